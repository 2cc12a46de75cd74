/// A property that failed: the seeds that found it, the shrunk
/// counterexample, and how to replay it.
///
/// Thrown by ``Property/check(seed:iterations:maxShrinkCalls:_:)`` (so a
/// Swift Testing test that calls it fails with this description) and
/// returned by ``Property/findFailure(seed:iterations:maxShrinkCalls:_:)``.
/// Its description holds everything needed to reproduce the failure: the
/// master seed reruns the whole run, the iteration seed reruns just the
/// failing case, and the choices replay the minimal counterexample directly.
///
/// ```swift
/// do {
///     try Property.check(seed: 1) { source in
///         let xs = source.draw(Gen.int(in: 0...1000).array())
///         guard xs.reduce(0, +) <= 100 else { throw MyError.tooBig }
///     }
/// } catch {
///     print(error)   // seeds, the minimal [101], and a replay line
/// }
/// ```
public struct PropertyFailure: Error, Sendable, CustomStringConvertible {
    /// The seed the whole run started from (`nil` for a replayed case).
    public let masterSeed: UInt64?
    /// Which iteration failed first, 0-based (`nil` for a replayed case).
    public let iteration: Int?
    /// The seed of that iteration: ``Property/replay(seed:maxShrinkCalls:_:)`` reruns it.
    public let iterationSeed: UInt64
    /// The minimal failing choices: ``Property/replay(choices:_:)`` reruns them.
    public let choices: [UInt64]
    /// How many choices the original failing case made.
    public let originalChoiceCount: Int
    /// The shrunk counterexample: each drawn value and note, in order.
    public let counterexample: [String]
    /// The error the minimal counterexample raised.
    public let error: any Error
    /// What shrinking cost.
    public let shrink: ShrinkResult
    /// Whether the minimal case failed again when run once more to report it. `false` means the property
    /// is flaky: it depends on something besides its choices (the time, unseeded randomness, state one case
    /// leaves for the next), and ``error`` is the one the original case raised.
    public var reproduced: Bool = true

    /// Everything needed to act on the failure, one fact per line: where it was found, the
    /// shrunk counterexample, the error, and the three ways to replay it.
    ///
    /// A Swift Testing test that calls ``Property/check(seed:iterations:maxShrinkCalls:_:)``
    /// shows this text as its failure, so it is written to be pasted from:
    ///
    /// ```text
    /// Property failed at iteration 0 (master seed 1, iteration seed 10451216379200822465).
    /// Minimal counterexample (shrunk from 20 to 2 choices in 28 runs):
    ///   [101]
    /// Error: tooBig
    /// Replay this case: try Property.replay(seed: 10451216379200822465) { source in … }
    /// Replay the minimal case: try Property.replay(choices: [1, 101]) { source in … }
    /// Rerun the whole run: pass seed: 1, or set CONCORD_SEED=1
    /// ```
    ///
    /// (That is the type's own example above, run.)
    public var description: String {
        let origin =
            if let masterSeed, let iteration {
                "at iteration \(iteration) (master seed \(masterSeed), iteration seed \(iterationSeed))"
            } else {
                "replaying iteration seed \(iterationSeed)"
            }
        var lines = [
            "Property failed \(origin).",
            "Minimal counterexample (shrunk from \(originalChoiceCount) to \(choices.count) choices "
                + "in \(shrink.calls) runs\(shrink.exhausted ? ", budget exhausted" : "")):",
        ]
        lines += counterexample.isEmpty ? ["  (no values drawn)"] : counterexample.map { "  " + $0 }
        if !reproduced {
            lines.append(
                "Flaky: the minimal case passed when run again; the property depends on something besides its "
                    + "choices (the time, unseeded randomness, state left by another case). The error below is the "
                    + "original case's.")
        }
        lines += [
            "Error: \(error)",
            "Replay this case: try Property.replay(seed: \(iterationSeed)) { source in … }",
            "Replay the minimal case: try Property.replay(choices: \(choices)) { source in … }",
        ]
        if let masterSeed {
            lines.append(
                "Rerun the whole run: pass seed: \(masterSeed), or set "
                    + "\(Property.seedEnvironmentVariable)=\(masterSeed)")
        }
        return lines.joined(separator: "\n")
    }
}

/// The error a property raises when a condition it requires is false: from
/// ``Property/require(_:_:)`` or a `Gen` + predicate check returning `false`.
///
/// ```swift
/// try Property.check { source in
///     let x = source.draw(Gen.int(in: 0...9))
///     try Property.require(x < 10, "x out of range")   // throws PredicateFailed
/// }
/// ```
public struct PredicateFailed: Error, Sendable, CustomStringConvertible {
    /// What was required.
    public let message: String

    /// A failure that says what was required.
    ///
    /// Throw it from a property body when a check fails and no error of your
    /// own says it better; ``Property/require(_:_:)`` throws one for you.
    /// Shrinking keeps a smaller case only when it throws the same error type,
    /// so one property should not mix it with other error types for the same
    /// failure.
    ///
    /// ```swift
    /// guard merged.count >= left.count else { throw PredicateFailed("merge lost rows: \(merged)") }
    /// ```
    public init(_ message: String = "the predicate returned false") {
        self.message = message
    }

    /// The ``message``, as the failure report shows it.
    public var description: String { message }
}
