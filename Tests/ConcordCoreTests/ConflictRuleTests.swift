import ConcordCore
import ConcordTestTraits
import Testing

private let me = NodeID(bytes: Array(repeating: 1, count: 16))!
private let peer = NodeID(bytes: Array(repeating: 2, count: 16))!

private func stamp(_ hlc: UInt64, _ node: NodeID) -> Stamp { Stamp(hlc: HLCTimestamp(rawValue: hlc), node: node) }

private func row(_ cl: UInt64, _ live: Stamp, _ columns: [(SQLiteValue, Stamp)?]) -> RowRegisters {
    RowRegisters(
        liveness: Liveness(causalLength: cl, stamp: live),
        columns: columns.map { $0.map { ColumnRegister(value: $0.0, stamp: $0.1) } })
}

/// `ConflictRule` decides, from the registers and what this replica's writes saw, which values lost unseen.
@Suite("Conflict rule", .tags(.core))
struct ConflictRuleTests {
    let rules = RowMerge.Rules(policy: .column, merges: [.lww, .lww])

    @Test func aWriteOverAnotherDevicesValueSeesItAndOverItsOwnKeepsWhatThatSaw() {
        let inserted = row(1, stamp(10, peer), [("a", stamp(10, peer)), ("b", stamp(10, peer))])
        let mine = row(1, stamp(10, peer), [("x", stamp(20, me)), ("b", stamp(10, peer))])
        let seen = ConflictRule.seen(
            written: [true, false], before: inserted, beforeSeen: nil, stamp: stamp(20, me), policy: .column,
            merges: rules.merges)
        #expect(seen == [stamp(10, peer), nil])
        // Writing over its own write, it keeps what that one saw.
        #expect(
            ConflictRule.seen(
                written: [true, false], before: mine, beforeSeen: seen, stamp: stamp(30, me), policy: .column,
                merges: rules.merges) == seen)
        #expect(
            ConflictRule.seen(
                written: [true, true], before: nil, beforeSeen: nil, stamp: stamp(5, me), policy: .column,
                merges: rules.merges)
                == nil, "a new row saw nothing")
    }

    @Test func aRemoteValueAboveWhatTheWinningLocalWriteSawLosesUnseen() {
        let local = row(1, stamp(10, me), [("mine", stamp(30, me)), ("b", stamp(10, me))])
        let remote = row(1, stamp(10, me), [("theirs", stamp(20, peer)), ("b", stamp(10, me))])
        let merged = RowMerge.merge(local: local, remote: remote, rules: rules).merged
        let unseen = ConflictRule.losses(
            local: local, seen: [], remote: remote, merged: merged, rules: rules, node: me)
        #expect(unseen.map(\.column) == [0] && unseen.first?.loser.value == "theirs")
        #expect(unseen.first?.winner == stamp(30, me) && unseen.first?.kind == .overwritten)
        // The same local write having seen that value (or a newer one): no conflict.
        for seen in [stamp(20, peer), stamp(25, peer)] {
            #expect(
                ConflictRule.losses(
                    local: local, seen: [seen, nil], remote: remote, merged: merged, rules: rules, node: me
                ).isEmpty)
        }
        // A remote value that wins lists nothing here: whether its writer saw ours is not known here.
        #expect(
            ConflictRule.losses(
                local: remote, seen: [], remote: local, merged: merged, rules: rules, node: peer
            ).isEmpty)
    }

    @Test func anEditNewerThanAnythingHeldHereLosesToThisReplicasDelete() {
        let local = row(2, stamp(30, me), [("a", stamp(10, me)), ("b", stamp(10, me))])
        let remote = row(1, stamp(10, me), [("edited", stamp(20, peer)), ("b", stamp(10, me))])
        let merged = RowMerge.merge(local: local, remote: remote, rules: rules).merged
        let unseen = ConflictRule.losses(
            local: local, seen: [], remote: remote, merged: merged, rules: rules, node: me)
        #expect(unseen.map(\.column) == [0] && unseen.first?.kind == .deleted && unseen.first?.winningValue == nil)
    }

    @Test func valueMergedColumnsLoseNothing() {
        let counters = RowMerge.Rules(policy: .column, merges: [.max, .union])
        let local = row(1, stamp(10, me), [(5, stamp(30, me)), ("[1]", stamp(30, me))])
        let remote = row(1, stamp(10, me), [(3, stamp(20, peer)), ("[2]", stamp(20, peer))])
        let merged = RowMerge.merge(local: local, remote: remote, rules: counters).merged
        #expect(
            ConflictRule.losses(local: local, seen: [], remote: remote, merged: merged, rules: counters, node: me)
                .isEmpty)
    }

    @Test func anOwnValueStampedAfterTheLastExportLosesUnseenToARemoteWrite() {
        let local = row(1, stamp(10, me), [("mine", stamp(20, me)), ("b", stamp(10, me))])
        let remote = row(1, stamp(10, me), [("theirs", stamp(30, peer)), ("b", stamp(10, me))])
        let merged = RowMerge.merge(local: local, remote: remote, rules: rules).merged
        let unsent = ConflictRule.losses(
            local: local, seen: [], remote: remote, merged: merged, rules: rules, node: me,
            exported: HLCTimestamp(rawValue: 15))
        #expect(unsent.map(\.column) == [0] && unsent.first?.loser.value == "mine")
        #expect(unsent.first?.winner == stamp(30, peer) && unsent.first?.winningValue == "theirs")
        // Exported at or after its stamp, another device may have seen it: nothing is listed.
        for exported in [UInt64(20), 25] {
            #expect(
                ConflictRule.losses(
                    local: local, seen: [], remote: remote, merged: merged, rules: rules, node: me,
                    exported: HLCTimestamp(rawValue: exported)
                ).isEmpty)
        }
    }
}
