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

    @Test func aPeersWriteThatSawAWriteOfMineIHaveNotShowsItLostToo() {
        // The peer's write replaced my write at 10, which a restore took from here: its register is the
        // peer's, and only what it saw names mine.
        let theirs = registers(at: stamp(2), [ColumnRegister(value: "p", stamp: stamp(12, peer)), nil])
        let restored = registers(at: stamp(2), [ColumnRegister(value: "old", stamp: stamp(2)), nil])
        #expect(
            RowMerge.holdsLostWrite(
                of: me, local: restored, remote: theirs, remoteSeen: [stamp(10), nil], rules: column))
        #expect(
            RowMerge.holdsLostWrite(of: me, local: nil, remote: theirs, remoteSeen: [stamp(10), nil], rules: column))
        // Holding that write, or a newer one, or the peer's write having seen another device's, says nothing.
        let kept = registers(at: stamp(2), [ColumnRegister(value: "x", stamp: stamp(10)), nil])
        #expect(
            !RowMerge.holdsLostWrite(of: me, local: kept, remote: theirs, remoteSeen: [stamp(10), nil], rules: column))
        let later = registers(at: stamp(2), [ColumnRegister(value: "q", stamp: stamp(11, node(3))), nil])
        #expect(
            !RowMerge.holdsLostWrite(of: me, local: later, remote: theirs, remoteSeen: [stamp(10), nil], rules: column))
        #expect(
            !RowMerge.holdsLostWrite(
                of: me, local: restored, remote: theirs, remoteSeen: [stamp(10, node(3)), nil], rules: column))
        // Unknown (an older format) or about a column this replica does not have: nothing.
        #expect(!RowMerge.holdsLostWrite(of: me, local: restored, remote: theirs, remoteSeen: nil, rules: column))
        let narrow = registers(at: stamp(2), [])
        #expect(
            !RowMerge.holdsLostWrite(
                of: me, local: narrow, remote: theirs, remoteSeen: [nil, stamp(10)], rules: column))
    }

    @Test func whatAMaxColumnsWriteSawSaysNothingAndUnderTheRowPolicyTheRowsNewestDecides() {
        let theirs = registers(at: stamp(2), [nil, ColumnRegister(value: 9, stamp: stamp(12, peer))])
        let restored = registers(at: stamp(2), [nil, ColumnRegister(value: 1, stamp: stamp(2))])
        #expect(
            !RowMerge.holdsLostWrite(
                of: me, local: restored, remote: theirs, remoteSeen: [nil, stamp(10)], rules: column))
        let rules = RowMerge.Rules(policy: .row, merges: [.lww, .lww])
        let rowTheirs = registers(at: stamp(2), [ColumnRegister(value: "p", stamp: stamp(12, peer)), nil])
        let rowRestored = registers(at: stamp(2), [ColumnRegister(value: "o", stamp: stamp(4)), nil])
        #expect(
            RowMerge.holdsLostWrite(
                of: me, local: rowRestored, remote: rowTheirs, remoteSeen: [stamp(10), nil], rules: rules))
        let rowKept = registers(at: stamp(2), [ColumnRegister(value: "x", stamp: stamp(10)), nil])
        #expect(
            !RowMerge.holdsLostWrite(
                of: me, local: rowKept, remote: rowTheirs, remoteSeen: [stamp(10), nil], rules: rules))
    }
}
