import Concord
import ConcordTestSupport
import ConcordTesting
import Testing

@Suite(.tags(.concordTesting), .timeLimit(.hangGuard))
struct MergeLawsTests {
    static let ints = Gen.int(in: -100...100)

    /// The larger value in SQLite's order, breaking its ties (0 vs 0.0) by
    /// storage class, and -0.0 vs 0.0 by bits, so that the result never depends on argument order.
    static func larger(_ a: SQLiteValue, _ b: SQLiteValue) -> SQLiteValue {
        if a < b { return b }
        if b < a { return a }
        if case .real(let x) = a, case .real(let y) = b { return x.bitPattern < y.bitPattern ? b : a }
        return a.typeName < b.typeName ? b : a
    }

    @Test func maxAndMinAreLawful() {
        let maxReport = MergeLaws.check(Self.ints) { a, b in max(a, b) }
        #expect(maxReport.holds, "\(maxReport)")
        let minReport = MergeLaws.check(Self.ints) { a, b in min(a, b) }
        #expect(minReport.holds, "\(minReport)")
        #expect(maxReport.description.contains("commutative, associative, idempotent"))
    }

    @Test func setUnionIsLawful() {
        let sets = Gen.int(in: 0...5).array(length: 0...4).map { Set($0) }
        let report = MergeLaws.check(sets, describe: { "\($0.sorted())" }) { a, b in a.union(b) }
        #expect(report.holds, "\(report)")
    }

    @Test func sqliteMaxNeedsATieBreakBetweenIntegerAndReal() throws {
        // SQLite's order ties 0 and 0.0, so a plain max keeps whichever came first.
        let plain = MergeLaws.check(Gen.sqliteValue, iterations: 2_000) { a, b in max(a, b) }
        let violation = try #require(plain.violation(of: .commutativity))
        #expect(Set(violation.values.map(\.typeName)) == ["integer", "real"])
        let tieBroken = MergeLaws.check(Gen.sqliteValue, iterations: 2_000) { a, b in Self.larger(a, b) }
        #expect(tieBroken.holds, "\(tieBroken)")
    }

    @Test func keepLeftIsRejectedWithASmallCounterexample() throws {
        let report = MergeLaws.check(Self.ints) { a, _ in a }
        #expect(!report.holds)
        let violation = try #require(report.violation(of: .commutativity))
        #expect(violation.values.count <= 3)
        #expect(violation.values.allSatisfy { abs($0) <= 1 })
        #expect(violation.message == "not commutative: merge(1, 0) = 1 but merge(0, 1) = 0")
        #expect(report.violation(of: .associativity) == nil)
        #expect(report.violation(of: .idempotence) == nil)
        #expect(report.description.contains(violation.message))
        #expect(report.description.contains("seed \(report.seed)"))
    }

    @Test func subtractionIsNotAssociative() throws {
        let report = MergeLaws.check(Self.ints) { a, b in a - b }
        let violation = try #require(report.violation(of: .associativity))
        #expect(violation.values.count == 3)
        #expect(violation.values.allSatisfy { abs($0) <= 1 })
        #expect(violation.message.hasPrefix("not associative: merge(merge("))
    }

    @Test func averageIsNotAssociative() throws {
        let report = MergeLaws.check(Self.ints) { a, b in (a + b) / 2 }
        #expect(report.violation(of: .commutativity) == nil)
        #expect(report.violation(of: .idempotence) == nil)
        let violation = try #require(report.violation(of: .associativity))
        #expect(violation.values.allSatisfy { abs($0) <= 2 })
        let reals = Gen.int(in: -100...100).map { Double($0) }
        #expect(MergeLaws.check(reals) { a, b in (a + b) / 2 }.violation(of: .associativity) != nil)
    }

    @Test func additionIsNotIdempotent() throws {
        let report = MergeLaws.check(Self.ints) { a, b in a + b }
        let violation = try #require(report.violation(of: .idempotence))
        #expect(violation.values == [1])
        #expect(violation.message == "not idempotent: merge(1, 1) = 2, not 1")
        #expect(report.violation(of: .commutativity) == nil)
        #expect(report.violation(of: .associativity) == nil)
    }

    @Test func lastWriterWinsNeedsATieBreak() throws {
        struct Stamped: Equatable, Sendable, CustomStringConvertible {
            var time: Int
            var value: SQLiteValue
            var description: String { "\(value)@\(time)" }
        }
        let stamped = Gen.zip(Gen.int(in: 0...3), Gen.sqliteValue).map { Stamped(time: $0.0, value: $0.1) }
        let naive = MergeLaws.check(stamped) { a, b in b.time > a.time ? b : a }
        let violation = try #require(naive.violation(of: .commutativity))
        #expect(violation.values.allSatisfy { $0.time == 0 })
        let tieBroken = MergeLaws.check(stamped) { a, b in
            b.time != a.time ? (b.time > a.time ? b : a) : Stamped(time: a.time, value: Self.larger(a.value, b.value))
        }
        #expect(tieBroken.holds, "\(tieBroken)")
    }

    @Test func lawsCanBeChosenAndReportsReplay() {
        let first = MergeLaws.check(Self.ints, laws: [.idempotence], seed: 99) { a, _ in a + 1 }
        let second = MergeLaws.check(Self.ints, laws: [.idempotence], seed: 99) { a, _ in a + 1 }
        #expect(first.laws == [.idempotence])
        #expect(first.violations.map(\.law) == [.idempotence])
        #expect(first.description == second.description)
        #expect(first.seed == 99)
    }

    /// `MergeFunction`'s doc comment shows a merge for users to copy: it holds the laws it tells them to
    /// check, over the whole value space. (It once broke ties with `max`, which holds `3` and `3.0` equal.)
    @Test func theMergeFunctionDocumentationsExampleHoldsTheLaws() {
        let longest = MergeFunction(name: "longest") { a, b in
            let (x, y) = (a.textValue?.utf8.count ?? -1, b.textValue?.utf8.count ?? -1)
            if x != y { return x > y ? a : b }
            // A tie goes by an order that tells every two values apart (SQLite's holds 3 and 3.0 equal).
            return SQLiteValue.totallyOrdered(a, before: b) ? b : a
        }
        for values in [Gen.sqliteValue, Gen.anySQLiteValue(largeLengths: nil)] {
            let report = MergeLaws.check(values, seed: 5, iterations: 500) { longest.join($0, $1) }
            #expect(report.holds, "\(report)")
        }
    }
}
