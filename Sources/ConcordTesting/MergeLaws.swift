/// Checks that a merge function is commutative, associative and idempotent
/// — the laws that let replicas merge in any order, any grouping and any
/// number of times and still converge.
///
/// A merge policy that breaks one of these laws makes devices disagree
/// depending on who synced with whom first, which only shows up in the field.
/// Each law is checked as a ``Property`` on values from your generator;
/// a violation is shrunk to a minimal counterexample (small values, as few
/// as the law needs) and reported in plain words, e.g.
/// `not commutative: merge(1, 0) = 1 but merge(0, 1) = 0`.
///
/// ```swift
/// // A user-defined merge: the larger value wins.
/// let report = MergeLaws.check(Gen.int(in: -100...100)) { a, b in max(a, b) }
/// #expect(report.holds, "\(report)")
///
/// // A "keep left" merge is rejected.
/// let keepLeft = MergeLaws.check(Gen.int(in: -100...100)) { a, _ in a }
/// #expect(keepLeft.violation(of: .commutativity) != nil)
/// ```
public enum MergeLaws {
    /// One algebraic law of merging.
    public enum Law: String, Sendable, CaseIterable, CustomStringConvertible {
        /// `merge(a, b) == merge(b, a)`: the order of a sync does not matter.
        case commutativity
        /// `merge(merge(a, b), c) == merge(a, merge(b, c))`: grouping does not matter.
        case associativity
        /// `merge(a, a) == a`: receiving the same change twice is harmless.
        case idempotence

        /// The adjective a violation negates: "commutative", …
        public var description: String {
            switch self {
            case .commutativity: "commutative"
            case .associativity: "associative"
            case .idempotence: "idempotent"
            }
        }
    }

    /// Cases tried per law when none are given.
    public static let defaultIterations = 200

    /// Checks `merge` against `laws` on values from `gen`.
    ///
    /// - Parameters:
    ///   - gen: Values to merge; make them small and colliding (see
    ///     ``Gen/sqliteValue``) so that interesting cases are common.
    ///   - laws: The laws to check, in report order.
    ///   - seed: The master seed (else `CONCORD_SEED`, else a fixed default).
    ///   - iterations: Cases tried per law; at least one (a check of no case would report laws it never tried
    ///     as holding).
    ///   - maxShrinkCalls: The shrinking budget per violated law.
    ///   - describe: How values are written in the report; pass a sorted
    ///     rendering for sets and dictionaries so reports are deterministic.
    ///   - merge: The merge function under test.
    public static func check<Value: Equatable>(
        _ gen: Gen<Value>,
        laws: [Law] = Law.allCases,
        seed: UInt64? = nil,
        iterations: Int = defaultIterations,
        maxShrinkCalls: Int = Shrinker.defaultMaxCalls,
        describe: (Value) -> String = { String(describing: $0) },
        merge: (Value, Value) -> Value
    ) -> MergeLawsReport<Value> {
        precondition(iterations > 0, "MergeLaws.check needs at least one case per law, not \(iterations)")
        let master = Property.masterSeed(seed)
        var violations: [MergeLawViolation<Value>] = []
        for law in laws {
            let found = Property.findFailure(
                seed: master, iterations: iterations, maxShrinkCalls: maxShrinkCalls
            ) { source in
                let values = draw(law, from: gen, using: &source)
                for (name, value) in zip(["a", "b", "c"], values) {
                    source.note("\(name) = \(describe(value))")
                }
                if let message = violationMessage(law, values, describe: describe, merge: merge) {
                    throw LawBroken(message: message)
                }
            }
            guard let failure = found else { continue }
            var replay = ChoiceSource(replaying: failure.choices)
            let values = draw(law, from: gen, using: &replay)
            let message =
                violationMessage(law, values, describe: describe, merge: merge)
                ?? String(describing: failure.error)
            violations.append(
                MergeLawViolation(law: law, values: values, message: message, failure: failure))
        }
        return MergeLawsReport(seed: master, iterations: iterations, laws: laws, violations: violations)
    }

    /// The values one case of `law` needs: two, three or one.
    private static func draw<Value>(
        _ law: Law, from gen: Gen<Value>, using source: inout ChoiceSource
    ) -> [Value] {
        let count =
            switch law {
            case .commutativity: 2
            case .associativity: 3
            case .idempotence: 1
            }
        return (0..<count).map { _ in gen.generate(using: &source) }
    }

    /// Why `values` break `law`, or `nil` if they satisfy it.
    private static func violationMessage<Value: Equatable>(
        _ law: Law,
        _ values: [Value],
        describe: (Value) -> String,
        merge: (Value, Value) -> Value
    ) -> String? {
        let text = values.map(describe)
        switch law {
        case .commutativity:
            let (ab, ba) = (merge(values[0], values[1]), merge(values[1], values[0]))
            guard ab != ba else { return nil }
            return "not commutative: merge(\(text[0]), \(text[1])) = \(describe(ab)) "
                + "but merge(\(text[1]), \(text[0])) = \(describe(ba))"
        case .associativity:
            let left = merge(merge(values[0], values[1]), values[2])
            let right = merge(values[0], merge(values[1], values[2]))
            guard left != right else { return nil }
            return "not associative: merge(merge(\(text[0]), \(text[1])), \(text[2])) = \(describe(left)) "
                + "but merge(\(text[0]), merge(\(text[1]), \(text[2]))) = \(describe(right))"
        case .idempotence:
            let twice = merge(values[0], values[0])
            guard twice != values[0] else { return nil }
            return "not idempotent: merge(\(text[0]), \(text[0])) = \(describe(twice)), not \(text[0])"
        }
    }
}

/// The error a law's property throws on a violating case.
struct LawBroken: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
