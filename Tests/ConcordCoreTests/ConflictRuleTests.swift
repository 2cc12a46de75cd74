import ConcordCore
import ConcordTestTraits
import Testing

private let me = NodeID(bytes: Array(repeating: 1, count: 16))!
private let peer = NodeID(bytes: Array(repeating: 2, count: 16))!
private let third = NodeID(bytes: Array(repeating: 3, count: 16))!

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

    @Test func aValueHeldHereLosesUnseenToARemoteWriteThatSaysItSawLess() {
        let local = row(1, stamp(10, me), [("mine", stamp(20, me)), ("b", stamp(10, me))])
        let remote = row(1, stamp(10, me), [("theirs", stamp(30, peer)), ("b", stamp(10, me))])
        let merged = RowMerge.merge(local: local, remote: remote, rules: rules).merged
        let exported = HLCTimestamp(rawValue: 25)  // "mine" has left this replica
        func losses(_ remoteSeen: [Stamp?]?) -> [ConflictRule.Loss] {
            ConflictRule.losses(
                local: local, seen: [], remote: remote, remoteSeen: remoteSeen, merged: merged, rules: rules,
                node: me, exported: exported)
        }
        // The winner replaced the older value, or nothing of another device: it never saw "mine".
        for remoteSeen in [[stamp(10, me), nil], [nil, nil]] as [[Stamp?]] {
            let lost = losses(remoteSeen)
            #expect(lost.map(\.column) == [0] && lost.first?.loser.value == "mine", "\(remoteSeen)")
            #expect(lost.first?.winner == stamp(30, peer) && lost.first?.winningValue == "theirs")
        }
        // It replaced "mine" or something newer; or it does not say (an older format): nothing is listed.
        #expect(losses([stamp(20, me), nil]).isEmpty)
        #expect(losses([stamp(25, third), nil]).isEmpty)
        #expect(losses(nil).isEmpty)
    }

    @Test func aRelayListsAValueThatLosesToAnotherDevicesRegisterThatNeverSawIt() {
        // The relay (third) holds peer's value, whose write saw only the first one; me's value arrives late.
        let held = row(1, stamp(10, me), [("winner", stamp(30, peer)), ("b", stamp(10, me))])
        let late = row(1, stamp(10, me), [("loser", stamp(20, me)), ("b", stamp(10, me))])
        let merged = RowMerge.merge(local: held, remote: late, rules: rules).merged
        let lost = ConflictRule.losses(
            local: held, seen: [stamp(10, me), nil], remote: late, remoteSeen: [nil, nil], merged: merged,
            rules: rules, node: third)
        #expect(lost.map(\.column) == [0] && lost.first?.loser.value == "loser")
        #expect(lost.first?.winner == stamp(30, peer) && lost.first?.winningValue == "winner")
        // Had peer's write replaced it, it was an overwrite.
        #expect(
            ConflictRule.losses(
                local: held, seen: [stamp(20, me), nil], remote: late, remoteSeen: [nil, nil], merged: merged,
                rules: rules, node: third
            ).isEmpty)
        // A device's own older value is no conflict, whoever holds it.
        let own = row(1, stamp(10, me), [("older", stamp(25, peer)), ("b", stamp(10, me))])
        #expect(
            ConflictRule.losses(
                local: held, seen: [nil, nil], remote: own, remoteSeen: [nil, nil],
                merged: RowMerge.merge(local: held, remote: own, rules: rules).merged, rules: rules, node: third
            ).isEmpty)
    }

    @Test func theSeenStampsKeptAreTheWinningRegisters() {
        let local = row(1, stamp(10, me), [("mine", stamp(20, me)), ("b", stamp(10, me))])
        let remote = row(1, stamp(10, me), [("theirs", stamp(30, peer)), ("b", stamp(10, me))])
        let merged = RowMerge.merge(local: local, remote: remote, rules: rules).merged
        func kept(_ remoteSeen: [Stamp?]?) -> [Stamp?]? {
            ConflictRule.mergedSeen(
                local: local, seen: [stamp(5, third), stamp(7, third)], remote: remote, remoteSeen: remoteSeen,
                merged: merged, rules: rules)
        }
        // Column 0 takes the remote write's; column 1, the same register on both sides, keeps what was here.
        #expect(kept([stamp(10, me), nil]) == [stamp(10, me), stamp(7, third)])
        #expect(kept(nil) == [stamp(30, peer), stamp(7, third)], "unknown: everything below the write")
        // Under the row policy the whole row follows the row that won.
        let row = RowMerge.Rules(policy: .row, merges: [.lww, .lww])
        let rowLocal = RowRegisters(
            liveness: local.liveness,
            columns: local.columns.map { $0.map { ColumnRegister(value: $0.value, stamp: stamp(20, me)) } })
        let rowRemote = RowRegisters(
            liveness: remote.liveness,
            columns: remote.columns.map { $0.map { ColumnRegister(value: $0.value, stamp: stamp(30, peer)) } })
        let rowMerged = RowMerge.merge(local: rowLocal, remote: rowRemote, rules: row).merged
        #expect(
            ConflictRule.mergedSeen(
                local: rowLocal, seen: [stamp(5, third), stamp(5, third)], remote: rowRemote,
                remoteSeen: [stamp(10, me), stamp(10, me)], merged: rowMerged, rules: row)
                == [stamp(10, me), stamp(10, me)])
        #expect(
            ConflictRule.mergedSeen(
                local: rowRemote, seen: [nil, nil], remote: rowLocal, remoteSeen: [stamp(1, third), stamp(1, third)],
                merged: rowMerged, rules: row) == nil, "the local row won and had seen nothing")
    }

    @Test func aChangesetCarriesSeenStampsOnlyForRegistersAndNeverAboveThem() {
        let registers = row(1, stamp(10, me), [("a", stamp(20, me)), nil])
        #expect(
            ConflictRule.exported(seen: [stamp(40, third), stamp(5, peer)], registers: registers, merges: rules.merges)
                == [stamp(20, me), nil])
        #expect(ConflictRule.exported(seen: nil, registers: registers, merges: rules.merges) == [nil, nil])
        #expect(
            ConflictRule.exported(seen: [stamp(5, peer), nil], registers: registers, merges: [.max, .lww])
                == [nil, nil], "a value-merged column has none")
    }
}
