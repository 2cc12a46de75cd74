import ConcordTestTraits
import Testing

@testable import ConcordCore

private let me = node(1)
private let peer = node(2)

private func stamp(_ time: UInt64, _ node: NodeID = me) -> Stamp {
    Stamp(hlc: HLCTimestamp(rawValue: time), node: node)
}

/// A delete nothing captured forgets the registers whose merge NULL would win — `min` and user-defined
/// joins — since the row's values left with it unread; the others keep theirs (NULL loses their ties).
@Suite(.tags(.core))
struct UncapturedDeleteTests {
    let merges: [ColumnMerge] = [.lww, .max, .min, .counter, .union, .custom("longest")]

    @Test func onlyTheColumnsWhereNullWouldWinAreForgotten() {
        #expect(LocalWrite.forgottenByUncapturedDelete(merges) == [false, false, true, false, false, true])
        let held = RowRegisters(
            liveness: Liveness(causalLength: 1, stamp: stamp(1, peer)),
            columns: merges.indices.map { ColumnRegister(value: .integer(Int64($0)), stamp: stamp(1, peer)) })
        let after = LocalWrite.deleteUncaptured(forgetting: LocalWrite.forgottenByUncapturedDelete(merges)).applied(
            to: held, columnCount: merges.count, stamp: stamp(5), policy: .column)
        let deleted = LocalWrite.delete.applied(to: held, columnCount: merges.count, stamp: stamp(5), policy: .column)
        #expect(after.liveness == deleted.liveness)
        #expect(after.columns.map { $0 == nil } == [false, false, true, false, false, true])
        #expect(after.columns[0] == deleted.columns[0])
    }

    /// Peers still hold what it forgot: that is no write this replica lost.
    @Test func aPeersCopyOfAForgottenRegisterOfMineIsNoLostWrite() {
        let rules = RowMerge.Rules(policy: .column, merges: [.lww, .custom("longest")])
        let mine = RowRegisters(
            liveness: Liveness(causalLength: 1, stamp: stamp(1)),
            columns: [ColumnRegister(value: "a", stamp: stamp(1)), ColumnRegister(value: "b", stamp: stamp(1))])
        let forgot = LocalWrite.deleteUncaptured(forgetting: [false, true]).applied(
            to: mine, columnCount: 2, stamp: stamp(5), policy: .column)
        #expect(!RowMerge.holdsLostWrite(of: me, local: forgot, remote: mine, rules: rules))
        // In a life it has not ended, a register of mine it lacks is lost.
        var alive = forgot
        alive.liveness = Liveness(causalLength: 3, stamp: stamp(6))
        #expect(RowMerge.holdsLostWrite(of: me, local: alive, remote: mine, rules: rules))
    }
}
