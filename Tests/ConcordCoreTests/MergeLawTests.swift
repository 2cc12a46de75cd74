import ConcordTestTraits
import ConcordTesting
import Testing

@testable import ConcordCore

/// Every built-in merge is a join: commutative, associative, idempotent.
@Suite("Merge laws of the built-in merges", .tags(.core))
struct MergeLawTests {
    @Test(arguments: [ColumnMerge.lww, .max, .min])
    func scalarMergesAreJoins(merge: ColumnMerge) {
        let report = MergeLaws.check(MergeGen.register(MergeGen.scalarPool), iterations: 300) {
            RowMerge.mergeColumn($0, $1, merge)
        }
        #expect(report.holds, "\(report)")
    }

    @Test func unionIsAJoin() {
        let report = MergeLaws.check(MergeGen.register(MergeGen.unionPool), iterations: 300) {
            RowMerge.mergeColumn($0, $1, .union)
        }
        #expect(report.holds, "\(report)")
    }

    @Test func counterContributionsMergeAsAJoin() {
        let report = MergeLaws.check(MergeGen.counterRegister, iterations: 300) {
            RowMerge.mergeColumn($0, $1, .counter)
        }
        #expect(report.holds, "\(report)")
    }

    @Test(arguments: [TablePolicy.column, .row])
    func wholeRowMergesAreJoins(policy: TablePolicy) {
        let rules = RowMerge.Rules(
            policy: policy, merges: policy == .row ? Array(repeating: .lww, count: 5) : MergeGen.merges)
        let report = MergeLaws.check(policy == .row ? MergeGen.wholeRow : MergeGen.row, iterations: 300) { a, b in
            RowMerge.merge(local: a, remote: b, rules: rules).merged
        }
        #expect(report.holds, "\(report)")
    }

    @Test func aNonCommutativeUserMergeIsRejectedWithASmallCounterexample() throws {
        let keepLeft = MergeFunction(name: "keep-left") { a, _ in a }
        let report = MergeLaws.check(Gen.sqliteValue, laws: [.commutativity]) { keepLeft.join($0, $1) }
        let violation = try #require(report.violation(of: .commutativity))
        #expect(violation.values.count <= 3)
        #expect(
            violation.values.allSatisfy { value in
                switch value {
                case .null: true
                case .integer(let v): abs(v) <= 1
                case .real(let v): abs(v) <= 1
                case .text(let t): t.bytes.count <= 1
                case .blob(let b): b.count <= 1
                }
            }, "\(violation)")
    }

    @Test func counterValueCountsOnlyTheCurrentLife() {
        let entries = [
            CounterContribution(causalLength: 1, amount: 5, stamp: Stamp(hlc: .zero, node: node(1))),
            CounterContribution(causalLength: 3, amount: 2, stamp: Stamp(hlc: .zero, node: node(2))),
            CounterContribution(causalLength: 3, amount: 4, stamp: Stamp(hlc: .zero, node: node(3))),
        ]
        #expect(RowMerge.counterValue(entries, life: 3) == 6)
        #expect(RowMerge.counterValue(entries, life: 1) == 5)
    }

    @Test func unionIsSortedAndCanonical() {
        #expect(UnionValue.merge(.text(#"["b", "a"]"#), .text(#"["c",1,"a"]"#)) == .text(#"[1,"a","b","c"]"#))
        #expect(UnionValue.canonical(.null) == .text("[]"))
        #expect(UnionValue.parse(.text("[1.5]")) == nil, "reals are not union elements")
        #expect(UnionValue.merge(.text(#"["\u00e9\n"]"#), .text("[]")) == .text("[\"é\\n\"]"))
    }
}
