/// The outcome of ``MergeLaws/check(_:laws:seed:iterations:maxShrinkCalls:describe:merge:)``:
/// whether every law held, and a minimal counterexample for each that did not.
///
/// Its description is meant for a test failure message: one line per broken
/// law with the shrunk values, plus the seed that replays the check.
///
/// ```swift
/// let report = MergeLaws.check(Gen.int(in: -100...100)) { a, b in a - b }
/// #expect(report.holds, "\(report)")
/// // merge laws broken (seed 13883484764739272705):
/// //   not commutative: merge(1, 0) = 1 but merge(0, 1) = -1 (case seed …, minimal choices [1])
/// //   …
/// ```
public struct MergeLawsReport<Value>: CustomStringConvertible {
    /// The master seed the check ran with; pass it as `seed:` to replay.
    public let seed: UInt64
    /// Cases tried per law.
    public let iterations: Int
    /// The laws checked, in order.
    public let laws: [MergeLaws.Law]
    /// One entry per broken law, in the order of ``laws``.
    public let violations: [MergeLawViolation<Value>]

    /// Whether every checked law held on every case.
    public var holds: Bool { violations.isEmpty }

    /// The violation of `law`, if it was checked and broken.
    public func violation(of law: MergeLaws.Law) -> MergeLawViolation<Value>? {
        violations.first { $0.law == law }
    }

    /// A line saying the laws held, with the number of cases and the seed; or
    /// one line per broken law with its minimal counterexample, under a
    /// heading with the seed that replays the check.
    ///
    /// Pass it as the comment of an expectation, so a failing test says why:
    ///
    /// ```swift
    /// #expect(report.holds, "\(report)")
    /// ```
    public var description: String {
        if holds {
            let names = laws.map(\.description).joined(separator: ", ")
            return "merge is \(names) on \(iterations) cases per law (seed \(seed))"
        }
        let lines = violations.map { "  " + $0.description }
        return (["merge laws broken (seed \(seed)):"] + lines).joined(separator: "\n")
    }
}

extension MergeLawsReport: Sendable where Value: Sendable {}

/// One broken merge law: the minimal values that break it and a sentence
/// saying how.
///
/// ```swift
/// if let broken = report.violation(of: .commutativity) {
///     print(broken.message)   // not commutative: merge(1, 0) = 1 but merge(0, 1) = 0
///     print(broken.values)    // [1, 0]
/// }
/// ```
public struct MergeLawViolation<Value>: CustomStringConvertible {
    /// The law that failed.
    public let law: MergeLaws.Law
    /// The shrunk counterexample: `[a, b]` for commutativity, `[a, b, c]`
    /// for associativity, `[a]` for idempotence.
    public let values: [Value]
    /// What went wrong, with the values written out.
    public let message: String
    /// The underlying property failure: seeds, choices, shrinking cost.
    public let failure: PropertyFailure

    /// The ``message``, followed by the case's seed and its minimal choices, which
    /// ``Property/replay(seed:maxShrinkCalls:_:)`` and ``Property/replay(choices:_:)`` rerun.
    public var description: String {
        "\(message) (case seed \(failure.iterationSeed), minimal choices \(failure.choices))"
    }
}

extension MergeLawViolation: Sendable where Value: Sendable {}
