/// Which values a merge makes lose that their winner's writer never saw: pure, like ``RowMerge``.
///
/// A value that loses to a write made after its writer saw it is an
/// overwrite, not a conflict (a device's own successive edits, or an edit of a
/// value synced in earlier). So every last-writer-wins write carries a record
/// of what it saw: the stamp of the register it replaced on its writer's
/// device — or, when that was the device's own write too, what that one had
/// seen — as the write's *seen* stamp (`nil`: it replaced nothing of another
/// device). Registers only ever grow, so a device that ever held a value `v`
/// held `v` or something newer whenever it wrote later: a value stamped above
/// a write's seen stamp was never held by its writer before that write.
///
/// Seen stamps travel with their registers in changesets (``RowChange/seen``)
/// and are kept beside them, so whichever replica holds both sides lists the
/// loss — the winner's device, the loser's, or a relay that held the winner
/// when the loser arrived and so never passed the loser on. When a changeset
/// reaches this replica, a value is listed as having lost when
/// - a remote value loses to a register held here, of another device, whose
///   seen stamp is below it (``Loss/Kind/overwritten``);
/// - a value held here loses to a remote register, of another device, whose
///   seen stamp is below it, or is this replica's own value, which never left
///   it (stamped after the clock's reading at its last export) — in both
///   cases only while the row is alive: a value that loses in a deleted row
///   lost to the delete;
/// - the row ends deleted by this replica's own delete, the remote registers
///   show the row alive, and the remote value is newer than anything this
///   replica held for that column, so the delete never saw it
///   (``Loss/Kind/deleted``); or this replica's own never-exported value
///   loses to a remote delete.
///
/// Deletes carry no seen stamps: a value a delete beat keeps travelling in its
/// register, so it reaches the deleting device, which lists it. A register
/// whose changeset did not say what it saw (format 1 or 2) is taken to have
/// seen everything below it. Value-merged columns (`counter`, `max`, `min`,
/// `union`, custom) lose nothing to a merge: their values are joined. A value
/// may be listed on several devices; each lists it once.
///
/// ```swift
/// let seen = ConflictRule.seen(replacing: old, seen: oldSeen, by: me)
/// let losses = ConflictRule.losses(
///     local: stored, seen: seenStamps, remote: incoming, remoteSeen: row.seen, merged: merged, rules: rules, node: me)
/// ```
public enum ConflictRule {
    /// A value that lost to a write that had not seen it.
    public struct Loss: Hashable, Sendable {
        /// How the value lost.
        public enum Kind: Int, Sendable {
            /// To a concurrent write of the same column (or, under the row policy, of the row).
            case overwritten = 1
            /// To a concurrent delete of the row.
            case deleted = 2
        }

        /// The column's position in the table's column list.
        public var column: Int
        /// How it lost.
        public var kind: Kind
        /// The value that lost, with the stamp of the write that made it.
        public var loser: ColumnRegister
        /// The stamp of the winning write (an edit or the delete).
        public var winner: Stamp
        /// The winning value; `nil` when the row was deleted.
        public var winningValue: SQLiteValue?

        /// A loss of `loser` in `column` to the write stamped `winner`.
        public init(column: Int, kind: Kind, loser: ColumnRegister, winner: Stamp, winningValue: SQLiteValue?) {
            self.column = column
            self.kind = kind
            self.loser = loser
            self.winner = winner
            self.winningValue = winningValue
        }
    }

    /// The seen stamp of a write by `node` over `previous`: `previous`'s stamp, or, when `previous` was
    /// `node`'s own write, what that one had seen (`previousSeen`); `nil` when there was nothing.
    public static func seen(replacing previous: Stamp?, seen previousSeen: Stamp?, by node: NodeID) -> Stamp? {
        guard let previous else { return nil }
        return previous.node == node ? previousSeen : previous
    }

    /// The seen stamps of the registers a local write stamped `stamp` left, given the registers `before`
    /// it and their seen stamps (`nil`: none): for each last-writer-wins column it wrote (`written`; under
    /// the row policy, any column written writes the row), what that write saw; unchanged for the others.
    /// `nil` when no column has one, which is what most writes leave (a new row, an edit of a row only this
    /// replica wrote).
    ///
    /// `written`, `before`, `beforeSeen` and `merges` line up with the table's columns, as the result does.
    public static func seen(
        written: [Bool], before: RowRegisters?, beforeSeen: [Stamp?]?, stamp: Stamp, policy: TablePolicy,
        merges: [ColumnMerge]
    ) -> [Stamp?]? {
        guard let before else { return nil }
        let node = stamp.node
        let count = written.count
        switch policy {
        case .row:
            guard written.contains(true) else { return beforeSeen }
            var previous: Stamp?
            for register in before.columns {
                if let old = register?.stamp, previous.map({ old > $0 }) ?? true { previous = old }
            }
            guard let rowSeen = seen(replacing: previous, seen: beforeSeen?.first ?? nil, by: node) else {
                return nil
            }
            return Array(repeating: rowSeen, count: count)
        case .column:
            var result: [Stamp?]? = beforeSeen?.count == count ? beforeSeen : nil
            for index in 0..<count where written[index] {
                guard case .lww = merges[index] else { continue }
                let kept = result?[index] ?? nil
                let new = seen(replacing: before.columns[index]?.stamp, seen: kept, by: node)
                guard new != kept else { continue }
                if result == nil { result = Array(repeating: nil, count: count) }
                result![index] = new
            }
            return result
        }
    }

    /// The values that lost, in this merge, to writes that had not seen them, in column order.
    ///
    /// `local` and `seen` are this replica's registers and their seen stamps before the merge (`nil`:
    /// saw nothing of another device), `remote` and `remoteSeen` the incoming ones (`remoteSeen` `nil`:
    /// unknown, each write taken to have seen everything below it), and `merged` what
    /// ``RowMerge/merge(local:remote:rules:)`` made of them. When `exported` is given (the clock's reading
    /// at this replica's last export), this replica's own values stamped after it never left it, so they
    /// are listed when a remote write wins over them whatever it saw.
    public static func losses(
        local: RowRegisters, seen: [Stamp?], remote: RowRegisters, remoteSeen: [Stamp?]? = nil,
        merged: RowRegisters, rules: RowMerge.Rules, node: NodeID, exported: HLCTimestamp? = nil
    ) -> [Loss] {
        let theirSeen = remoteSeen ?? remote.columns.map { $0?.stamp }
        var result = remoteLosses(local: local, seen: seen, remote: remote, merged: merged, rules: rules, node: node)
        result += localLosses(
            local: local, remote: remote, remoteSeen: theirSeen, merged: merged, rules: rules, node: node,
            exported: exported)
        result.sort { $0.column < $1.column }
        return result
    }

    /// The seen stamps to keep with the registers a merge made: per last-writer-wins column, those of
    /// the side whose register won (under the row policy, of the side whose row won); `nil` when none.
    ///
    /// A remote register whose changeset did not say what it saw (`remoteSeen` `nil`) keeps its own
    /// stamp, which says it saw everything below it: nothing it beat is then listed.
    public static func mergedSeen(
        local: RowRegisters?, seen: [Stamp?]?, remote: RowRegisters, remoteSeen: [Stamp?]?, merged: RowRegisters,
        rules: RowMerge.Rules
    ) -> [Stamp?]? {
        let count = merged.columns.count
        if sawNothing(seen: seen, remoteSeen: remoteSeen) { return nil }
        let theirSeen = remoteSeen ?? remote.columns.map { $0?.stamp }
        let ours = { (index: Int) -> Stamp? in
            guard let seen, index < seen.count else { return nil }
            return seen[index]
        }
        var result = [Stamp?](repeating: nil, count: count)
        switch rules.policy {
        case .row:
            let remoteWon =
                RowMerge.rowStamp(remote).map { theirs in local.flatMap(RowMerge.rowStamp).map { theirs > $0 } ?? true }
                ?? false
            for index in 0..<count { result[index] = remoteWon ? theirSeen[index] : ours(index) }
        case .column:
            for index in 0..<count {
                guard case .lww = rules.merges[index], let register = merged.columns[index] else { continue }
                let remoteWon =
                    remote.columns[index]?.stamp == register.stamp
                    && local?.columns[index]?.stamp != register.stamp
                result[index] = remoteWon ? theirSeen[index] : ours(index)
            }
        }
        return result.contains { $0 != nil } ? result : nil
    }

    /// Whether neither side's writes saw anything of another device — the remote side says so (`remoteSeen` is
    /// known) and the kept stamps `seen` hold none — so that their merge keeps none (``mergedSeen`` is `nil`):
    /// most merges, which a caller can skip asking about.
    public static func sawNothing(seen: [Stamp?]?, remoteSeen: [Stamp?]?) -> Bool {
        guard let remoteSeen, !remoteSeen.contains(where: { $0 != nil }) else { return false }
        return !(seen?.contains { $0 != nil } ?? false)
    }

    /// What a changeset says the writes of `registers` saw, from the seen stamps kept with them (`nil`:
    /// none): an entry only for a last-writer-wins column that holds a register, and never above that
    /// register's own stamp (an upgraded replica's stamps, taken to have seen everything up to the
    /// upgrade, are above the older registers; at the register's own stamp they say the same).
    public static func exported(seen: [Stamp?]?, registers: RowRegisters, merges: [ColumnMerge]) -> [Stamp?] {
        registers.columns.enumerated().map { index, register in
            guard let register, case .lww = merges[index], let seen, index < seen.count, let entry = seen[index]
            else { return nil }
            return min(entry, register.stamp)
        }
    }

    /// Whether `loser` lost to `winner`, the register the merge kept (`kept`), without its writer having seen it:
    /// another device's write of another value, stamped above the loser, whose seen stamp (`nil`: it saw
    /// nothing of another device) is below the loser; or, with `unsent`, whatever it saw (the loser never left
    /// this replica).
    private static func lostUnseen(
        _ loser: ColumnRegister, to winner: ColumnRegister, kept: Stamp?, winnerSeen: Stamp?, unsent: Bool = false
    ) -> Bool {
        winner.stamp.node != loser.stamp.node && kept == winner.stamp && winner.stamp > loser.stamp
            && loser.value != winner.value && (unsent || winnerSeen.map { loser.stamp > $0 } ?? true)
    }

    /// The stamp a whole-row write saw: the highest of its columns' (they are all the same when one
    /// replica wrote the row).
    private static func rowSeen(_ seen: [Stamp?]) -> Stamp? {
        seen.lazy.compactMap { $0 }.max()
    }

    /// Values held here (this replica's or another's) that lost to a remote write whose writer had not
    /// seen them; and this replica's own never-exported values that lost to a remote edit or delete.
    private static func localLosses(
        local: RowRegisters, remote: RowRegisters, remoteSeen: [Stamp?], merged: RowRegisters,
        rules: RowMerge.Rules, node: NodeID, exported: HLCTimestamp?
    ) -> [Loss] {
        var result: [Loss] = []
        let unsent = { (stamp: Stamp) in stamp.node == node && exported.map { stamp.hlc > $0 } ?? false }
        let unseen = { (stamp: Stamp, seen: Stamp?) in seen.map { stamp > $0 } ?? true }
        let deletedThere =
            local.liveness.isAlive && !merged.liveness.isAlive && merged.liveness == remote.liveness
            && remote.liveness.stamp.map { $0.node != node } ?? false
        switch rules.policy {
        case .row:
            guard let ours = RowMerge.rowStamp(local) else { return [] }
            if deletedThere, unsent(ours), let delete = merged.liveness.stamp {
                for (index, register) in local.columns.enumerated() {
                    guard let register else { continue }
                    result.append(
                        Loss(column: index, kind: .deleted, loser: register, winner: delete, winningValue: nil))
                }
                return result
            }
            guard merged.liveness.isAlive, let theirs = RowMerge.rowStamp(remote), theirs.node != ours.node,
                theirs > ours, merged.columns == remote.columns, unsent(ours) || unseen(ours, rowSeen(remoteSeen))
            else { return [] }
            for index in local.columns.indices {
                guard let register = local.columns[index], register.value != remote.columns[index]?.value else {
                    continue
                }
                result.append(
                    Loss(
                        column: index, kind: .overwritten, loser: register, winner: theirs,
                        winningValue: remote.columns[index]?.value))
            }
        case .column:
            for index in local.columns.indices {
                guard case .lww = rules.merges[index], let ours = local.columns[index] else { continue }
                if deletedThere, unsent(ours.stamp), let delete = merged.liveness.stamp {
                    result.append(Loss(column: index, kind: .deleted, loser: ours, winner: delete, winningValue: nil))
                    continue
                }
                guard merged.liveness.isAlive, let theirs = remote.columns[index],
                    lostUnseen(
                        ours, to: theirs, kept: merged.columns[index]?.stamp, winnerSeen: remoteSeen[index],
                        unsent: unsent(ours.stamp))
                else { continue }
                result.append(
                    Loss(
                        column: index, kind: .overwritten, loser: ours, winner: theirs.stamp, winningValue: theirs.value
                    )
                )
            }
        }
        return result
    }

    /// Remote values that lost to a register held here (this replica's write or one merged in) whose
    /// writer had not seen them, or to this replica's own delete made without having seen them.
    private static func remoteLosses(
        local: RowRegisters, seen: [Stamp?], remote: RowRegisters, merged: RowRegisters, rules: RowMerge.Rules,
        node: NodeID
    ) -> [Loss] {
        var result: [Loss] = []
        // The row is dead by this replica's delete, and the remote side is the row alive, or dead by the
        // same delete (a device that merged the delete after its app edited the row): an edit that arrives
        // newer than what this replica held was made without having seen the delete.
        let deletedHere =
            !merged.liveness.isAlive && merged.liveness == local.liveness && local.liveness.stamp?.node == node
            && (remote.liveness.isAlive || remote.liveness == local.liveness)
        switch rules.policy {
        case .row:
            guard let theirs = RowMerge.rowStamp(remote) else { return [] }
            let ours = RowMerge.rowStamp(local)
            if deletedHere, theirs.node != node, ours.map({ theirs > $0 }) ?? true, let delete = merged.liveness.stamp {
                for (index, register) in remote.columns.enumerated() {
                    guard let register else { continue }
                    result.append(
                        Loss(column: index, kind: .deleted, loser: register, winner: delete, winningValue: nil))
                }
                return result
            }
            guard merged.liveness.isAlive, let ours, ours.node != theirs.node, ours > theirs,
                merged.columns == local.columns,
                rowSeen(seen).map({ theirs > $0 }) ?? true
            else { return [] }
            for index in remote.columns.indices {
                guard let register = remote.columns[index], register.value != local.columns[index]?.value else {
                    continue
                }
                result.append(
                    Loss(
                        column: index, kind: .overwritten, loser: register, winner: ours,
                        winningValue: local.columns[index]?.value))
            }
        case .column:
            for index in remote.columns.indices {
                guard case .lww = rules.merges[index], let theirs = remote.columns[index] else { continue }
                let ours = local.columns[index]
                if deletedHere, theirs.stamp.node != node, ours.map({ theirs.stamp > $0.stamp }) ?? true,
                    let delete = merged.liveness.stamp
                {
                    result.append(Loss(column: index, kind: .deleted, loser: theirs, winner: delete, winningValue: nil))
                    continue
                }
                guard merged.liveness.isAlive, let ours,
                    lostUnseen(
                        theirs, to: ours, kept: merged.columns[index]?.stamp,
                        winnerSeen: seen.indices.contains(index) ? seen[index] : nil)
                else { continue }
                result.append(
                    Loss(column: index, kind: .overwritten, loser: theirs, winner: ours.stamp, winningValue: ours.value)
                )
            }
        }
        return result
    }
}
