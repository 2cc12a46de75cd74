import ConcordTestTraits
import Testing

@testable import ConcordCore

private func stamp(_ hlc: UInt64, _ byte: UInt8 = 1) -> Stamp {
    Stamp(hlc: HLCTimestamp(rawValue: hlc), node: node(byte))
}

private func register(_ value: SQLiteValue, _ hlc: UInt64, _ byte: UInt8 = 1) -> ColumnRegister {
    ColumnRegister(value: value, stamp: stamp(hlc, byte))
}

/// The longer text wins; between texts of one length, the larger (a join: commutative, associative, idempotent).
private let longest = MergeFunction(name: "longest") { a, b in
    let (x, y) = (a.textValue ?? "", b.textValue ?? "")
    return x.utf8.count != y.utf8.count ? (x.utf8.count > y.utf8.count ? a : b) : max(a, b)
}

/// Each column merge keeps what its name promises, whichever side a value comes from.
@Suite("Column merges", .tags(.core))
struct ColumnMergeTests {
    @Test func namesReadBackAsTheSameMerge() {
        #expect(ColumnMerge.builtIns.map(\.name) == ["lww", "max", "min", "counter", "union"])
        for merge in ColumnMerge.builtIns + [.custom("tagSet")] {
            #expect(ColumnMerge(name: merge.name) == merge)
            #expect(merge.description == merge.name)
        }
        #expect(ColumnMerge(name: "MAX") == .custom("MAX"), "names are exact")
        #expect(ColumnMerge(name: "max") != .custom("max"))
        #expect((ColumnMerge.builtIns + [.custom("x")]).map(\.joinsValues) == [false, true, true, true, true, true])
    }

    @Test func aCustomMergeJoinsTheValuesUnderTheNewerStamp() {
        let functions = ["longest": longest]
        let short = register("abc", 9)
        let long = register("abcdef", 2, 2)
        for (a, b) in [(short, long), (long, short)] {
            #expect(RowMerge.mergeColumn(a, b, .custom("longest"), functions) == register("abcdef", 9))
        }
        // Without the function (not registered on this replica), the newer write wins as it is.
        for (a, b) in [(short, long), (long, short)] {
            #expect(RowMerge.mergeColumn(a, b, .custom("longest")) == short)
        }
        #expect(RowMerge.mergeColumn(nil, long, .custom("longest"), functions) == long)
        #expect(RowMerge.mergeColumn(short, nil, .custom("longest"), functions) == short)
    }

    @Test func maxAndMinPickByValueAndSettleSQLiteTiesByStamp() {
        let five = register(5, 1)
        let text = register("x", 0)
        #expect(RowMerge.mergeColumn(five, text, .max) == text, "text is above numbers, whatever the stamps")
        #expect(RowMerge.mergeColumn(text, five, .min) == five)
        // 1 and 1.0 are one value to SQLite: the newer write's stands.
        let integer = register(1, 5)
        let real = register(1.0, 3)
        for merge in [ColumnMerge.max, .min] {
            #expect(RowMerge.mergeColumn(integer, real, merge) == integer)
            #expect(RowMerge.mergeColumn(real, integer, merge) == integer)
        }
    }

    @Test func twoWritesForgedWithOneStampAreSettledByTheirValues() {
        // Only a cloned or forged peer reuses a stamp; every replica must still pick the same value.
        let a = register(.real(-0.0), 7)
        let b = register(.real(0.0), 7)
        for merge in [ColumnMerge.lww, .max, .min] {
            #expect(RowMerge.mergeColumn(a, b, merge) == b, "\(merge)")
            #expect(RowMerge.mergeColumn(b, a, merge) == b, "\(merge)")
        }
    }

    @Test func valueMergedColumnsAreSettledWhateverAPeerSent() {
        let rules = RowMerge.Rules(policy: .column, merges: [.union, .counter, .lww])
        let sent = RowRegisters(
            liveness: Liveness(causalLength: 3, stamp: stamp(1)),
            columns: [
                register(.text(#"["b", "a", "b"]"#), 2),
                ColumnRegister(
                    value: 99, stamp: stamp(3),
                    contributions: [
                        CounterContribution(causalLength: 3, amount: 2, stamp: stamp(3)),
                        CounterContribution(causalLength: 1, amount: 40, stamp: stamp(1, 2)),
                        CounterContribution(causalLength: 3, amount: -5, stamp: stamp(2, 3)),
                    ]),
                register(.text(#"["b", "a"]"#), 4),
            ])
        let first = RowMerge.merge(local: nil, remote: sent, rules: rules)
        #expect(first.changed)
        #expect(first.merged.columns[0] == register(.text(#"["a","b"]"#), 2), "the canonical union")
        #expect(first.merged.columns[1]?.value == -3, "the sum over the current life")
        #expect(first.merged.columns[2] == sent.columns[2], "an lww column is left as sent")
        // Merging the same again, or the settled result, changes nothing.
        #expect(
            RowMerge.merge(local: first.merged, remote: sent, rules: rules)
                == RowMerge.Outcome(merged: first.merged, changed: false))
        #expect(
            RowMerge.merge(local: first.merged, remote: first.merged, rules: rules)
                == RowMerge.Outcome(merged: first.merged, changed: false))
        // A row-policy table takes the registers as they are.
        let row = RowMerge.merge(local: nil, remote: sent, rules: RowMerge.Rules(policy: .row, merges: rules.merges))
        #expect(row.merged == sent)
    }
}
