import ConcordTestTraits
import Testing

@testable import ConcordCore

private let me = node(1)
private let peer = node(2)

private func stamp(_ time: UInt64, _ node: NodeID = me) -> Stamp {
    Stamp(hlc: HLCTimestamp(rawValue: time), node: node)
}

private func registers(cl: UInt64 = 1, at liveness: Stamp, _ columns: [ColumnRegister?]) -> RowRegisters {
    RowRegisters(liveness: Liveness(causalLength: cl, stamp: liveness), columns: columns)
}

/// A peer holding a write of this replica's own that still beats what the replica holds shows the replica
/// lost history; one its registers replaced by a write that beats it shows nothing.
@Suite(.tags(.core))
struct LostWriteTests {
    let column = RowMerge.Rules(policy: .column, merges: [.lww, .max])

    @Test func aRowOrAColumnWriteOfMineThatIHaveNotIsLost() {
        let mine = registers(at: stamp(10), [ColumnRegister(value: "x", stamp: stamp(10)), nil])
        #expect(RowMerge.holdsLostWrite(of: me, local: nil, remote: mine, rules: column))
        let older = registers(at: stamp(10), [ColumnRegister(value: "w", stamp: stamp(5)), nil])
        #expect(RowMerge.holdsLostWrite(of: me, local: older, remote: mine, rules: column))
        // The same write, or a peer's, says nothing.
        #expect(!RowMerge.holdsLostWrite(of: me, local: mine, remote: mine, rules: column))
        #expect(!RowMerge.holdsLostWrite(of: peer, local: nil, remote: mine, rules: column))
        let theirs = registers(at: stamp(10, peer), [ColumnRegister(value: "p", stamp: stamp(20, peer)), nil])
        #expect(!RowMerge.holdsLostWrite(of: me, local: older, remote: theirs, rules: column))
    }

    @Test func aWriteOfMineThatANewerWriteReplacedHereIsNotLost() {
        let mine = registers(at: stamp(10), [ColumnRegister(value: "x", stamp: stamp(10)), nil])
        let replaced = registers(at: stamp(10), [ColumnRegister(value: "p", stamp: stamp(15, peer)), nil])
        #expect(!RowMerge.holdsLostWrite(of: me, local: replaced, remote: mine, rules: column))
        // A delete of a peer's at an older stamp replaced my insert: a longer causal length beats any stamp.
        let deleted = registers(cl: 2, at: stamp(5, peer), [ColumnRegister(value: "x", stamp: stamp(10)), nil])
        #expect(!RowMerge.holdsLostWrite(of: me, local: deleted, remote: mine, rules: column))
    }

    @Test func aMaxColumnKeepsTheLargerValueWhateverItsStampSoItsStampsSayNothing() {
        let mine = registers(at: stamp(10), [nil, ColumnRegister(value: 5, stamp: stamp(10))])
        let larger = registers(at: stamp(10), [nil, ColumnRegister(value: 9, stamp: stamp(3, peer))])
        #expect(!RowMerge.holdsLostWrite(of: me, local: larger, remote: mine, rules: column))
    }

    @Test func underTheRowPolicyTheRowsNewestWriteDecides() {
        let rules = RowMerge.Rules(policy: .row, merges: [.lww, .lww])
        let mine = registers(at: stamp(10), [ColumnRegister(value: "x", stamp: stamp(10)), nil])
        let newer = registers(at: stamp(10), [ColumnRegister(value: "p", stamp: stamp(12, peer)), nil])
        let older = registers(at: stamp(10), [ColumnRegister(value: "o", stamp: stamp(4)), nil])
        #expect(!RowMerge.holdsLostWrite(of: me, local: newer, remote: mine, rules: rules))
        #expect(RowMerge.holdsLostWrite(of: me, local: older, remote: mine, rules: rules))
    }
}
