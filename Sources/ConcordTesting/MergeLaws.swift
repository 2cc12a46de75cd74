import ConcordCore
import Foundation

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

    /// The values one case of `law` needs: two, three or one. For SQLite values, one case in four makes
    /// the second value the first's twin (``twin(of:)``), a value a careless merge takes for the first.
    private static func draw<Value>(
        _ law: Law, from gen: Gen<Value>, using source: inout ChoiceSource
    ) -> [Value] {
        let count =
            switch law {
            case .commutativity: 2
            case .associativity: 3
            case .idempotence: 1
            }
        var values = (0..<count).map { _ in gen.generate(using: &source) }
        if count > 1, let first = values[0] as? SQLiteValue, let twin = twin(of: first) as? Value,
            Gen<Int>.int(in: 0...3).generate(using: &source) == 0
        {
            values[1] = twin
        }
        return values
    }

    /// A value SQLite holds apart from `value` that a merge written with Swift's comparisons may take for
    /// it: `1` and `1.0`, `0.0` and `-0.0`, `"é"` precomposed and decomposed (Swift's `String` calls them
    /// equal), a text and a blob of the same bytes; `nil` for NULL and values without one.
    ///
    /// Why: such pairs break a merge's laws only when both are drawn, which independent draws rarely do; a
    /// merge ordering text with `String`'s `<` held over 200 cases per law.
    ///
    /// ```swift
    /// MergeLaws.twin(of: .integer(1))   // .real(1.0)
    /// ```
    static func twin(of value: SQLiteValue) -> SQLiteValue? {
        switch value {
        case .null: return nil
        case .integer(let integer):
            return integer.magnitude < 1 << 53 ? .real(Double(integer)) : nil
        case .real(let real):
            if real == 0 { return .real(-real) }
            return real.rounded() == real && real.magnitude < 1e15 ? .integer(Int64(real)) : nil
        case .text(let text):
            guard let string = text.string else { return .blob(text.bytes) }
            for other in [string.precomposedStringWithCanonicalMapping, string.decomposedStringWithCanonicalMapping]
            where Array(other.utf8) != text.bytes {
                return .text(other)
            }
            return .blob(text.bytes)
        case .blob(let bytes):
            return .text(SQLiteText(bytes: bytes))
        }
    }

    /// Why `values` break `law`, or `nil` if they satisfy it.
    private static func violationMessage<Value: Equatable>(
        _ law: Law,
        _ values: [Value],
        describe: (Value) -> String,
        merge: (Value, Value) -> Value
    ) -> String? {
        switch law {
        case .commutativity:
            let (ab, ba) = (merge(values[0], values[1]), merge(values[1], values[0]))
            guard ab != ba else { return nil }
            let t = distinctDescriptions(values + [ab, ba], describe)
            return "not commutative: merge(\(t[0]), \(t[1])) = \(t[2]) but merge(\(t[1]), \(t[0])) = \(t[3])"
        case .associativity:
            let left = merge(merge(values[0], values[1]), values[2])
            let right = merge(values[0], merge(values[1], values[2]))
            guard left != right else { return nil }
            let t = distinctDescriptions(values + [left, right], describe)
            return "not associative: merge(merge(\(t[0]), \(t[1])), \(t[2])) = \(t[3]) "
                + "but merge(\(t[0]), merge(\(t[1]), \(t[2]))) = \(t[4])"
        case .idempotence:
            let twice = merge(values[0], values[0])
            guard twice != values[0] else { return nil }
            let t = distinctDescriptions([values[0], twice], describe)
            return "not idempotent: merge(\(t[0]), \(t[0])) = \(t[1]), not \(t[0])"
        }
    }

    /// The descriptions of `values`, with every scalar outside printable ASCII written `\u{…}` when two
    /// different values would otherwise read the same.
    ///
    /// Why: `"é"` and `"e\u{301}"` print alike, so a merge that mixed them up was reported as
    /// `merge('é', 'é') = 'é' but merge('é', 'é') = 'é'`.
    ///
    /// ```swift
    /// distinctDescriptions([.text("é"), .text("e\u{301}")], { "\($0)" })   // ["'\u{E9}'", "'e\u{301}'"]
    /// ```
    static func distinctDescriptions<Value: Equatable>(_ values: [Value], _ describe: (Value) -> String) -> [String] {
        let plain = values.map(describe)
        let collide = plain.indices.contains { i in
            plain.indices.contains { j in j > i && plain[i] == plain[j] && values[i] != values[j] }
        }
        guard collide else { return plain }
        return plain.map { text in
            text.unicodeScalars.map {
                (0x20..<0x7F).contains($0.value) ? String($0) : "\\u{\(String($0.value, radix: 16, uppercase: true))}"
            }
            .joined()
        }
    }
}

/// The error a law's property throws on a violating case.
struct LawBroken: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
