/// Which values a merge makes lose that their winner's writer never saw: pure, like ``RowMerge``.
///
/// A value that loses to a write made after its writer saw it is an
/// overwrite, not a conflict (a device's own successive edits, or an edit of a
/// value synced in earlier). Only a replica's **own** writes come with a record
/// of what they saw: when this replica writes a last-writer-wins register, it
/// keeps the stamp of the register it replaced — or, when that was its own
/// write too, what that one had seen — as the write's *seen* stamp. Registers
/// only ever grow, so a replica that ever held a value `v` held `v` or
/// something newer whenever it wrote later: a value stamped above the seen
/// stamp of this replica's write was never held here before that write.
///
/// So, when a changeset reaches this replica, a remote value is listed as
/// having lost when
/// - it loses to this replica's own write whose seen stamp is below it
///   (``Loss/Kind/overwritten``), or
/// - the row ends deleted by this replica's own delete, the remote registers
///   show the row alive, and the remote value is newer than anything this
///   replica held for that column, so the delete never saw it
///   (``Loss/Kind/deleted``).
///
/// And one of this replica's own values is listed as having lost when a
/// remote edit (or delete) wins over it while it never left this replica: it
/// was stamped after the clock's reading at the replica's last export, so no
/// other device can have seen it.
///
/// Seen stamps are not synced, so a value that left its device and then lost
/// is listed only by the device whose write won, and only if the value
/// reaches it. Value-merged columns (`counter`, `max`, `min`, `union`,
/// custom) lose nothing to a merge: their values are joined.
///
/// ```swift
/// let seen = ConflictRule.seen(replacing: old, seen: oldSeen, by: me)
/// let losses = ConflictRule.losses(local: stored, seen: seenStamps, remote: incoming, rules: rules, node: me)
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

    /// The values that lost, in this merge, to writes that had not seen them, in column order: remote
    /// values that lost to writes of `node` (this replica), and, when `exported` is given, this replica's
    /// own values that lost to a remote write though they never left this replica (stamped after
    /// `exported`, the clock's reading at its last export), so no other device can have seen them.
    ///
    /// `local` and `seen` are this replica's registers and seen stamps before the merge, `remote` the
    /// incoming registers and `merged` what ``RowMerge/merge(local:remote:rules:)`` made of them.
    public static func losses(
        local: RowRegisters, seen: [Stamp?], remote: RowRegisters, merged: RowRegisters, rules: RowMerge.Rules,
        node: NodeID, exported: HLCTimestamp? = nil
    ) -> [Loss] {
        var result = remoteLosses(local: local, seen: seen, remote: remote, merged: merged, rules: rules, node: node)
        if let exported {
            result += localLosses(
                local: local, remote: remote, merged: merged, rules: rules, node: node, exported: exported)
            result.sort { $0.column < $1.column }
        }
        return result
    }

    /// This replica's own values, never exported, that lost to a remote write (or delete).
    private static func localLosses(
        local: RowRegisters, remote: RowRegisters, merged: RowRegisters, rules: RowMerge.Rules, node: NodeID,
        exported: HLCTimestamp
    ) -> [Loss] {
        var result: [Loss] = []
        let unsent = { (stamp: Stamp) in stamp.node == node && stamp.hlc > exported }
        let deletedThere =
            local.liveness.isAlive && !merged.liveness.isAlive && merged.liveness == remote.liveness
            && remote.liveness.stamp.map { $0.node != node } ?? false
        switch rules.policy {
        case .row:
            guard let ours = RowMerge.rowStamp(local), unsent(ours) else { return [] }
            if deletedThere, let delete = merged.liveness.stamp {
                for (index, register) in local.columns.enumerated() {
                    guard let register else { continue }
                    result.append(
                        Loss(column: index, kind: .deleted, loser: register, winner: delete, winningValue: nil))
                }
                return result
            }
            guard merged.liveness.isAlive, let theirs = RowMerge.rowStamp(remote), theirs.node != node, theirs > ours,
                merged.columns == remote.columns
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
                guard case .lww = rules.merges[index], let ours = local.columns[index], unsent(ours.stamp) else {
                    continue
                }
                if deletedThere, let delete = merged.liveness.stamp {
                    result.append(Loss(column: index, kind: .deleted, loser: ours, winner: delete, winningValue: nil))
                    continue
                }
                guard merged.liveness.isAlive, let theirs = remote.columns[index], theirs.stamp.node != node,
                    theirs.stamp > ours.stamp, ours.value != theirs.value
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

    /// Remote values that lost to writes of this replica that had not seen them.
    private static func remoteLosses(
        local: RowRegisters, seen: [Stamp?], remote: RowRegisters, merged: RowRegisters, rules: RowMerge.Rules,
        node: NodeID
    ) -> [Loss] {
        var result: [Loss] = []
        let deletedHere =
            !merged.liveness.isAlive && remote.liveness.isAlive && merged.liveness == local.liveness
            && local.liveness.stamp?.node == node
        switch rules.policy {
        case .row:
            guard let theirs = RowMerge.rowStamp(remote), theirs.node != node else { return [] }
            let ours = RowMerge.rowStamp(local)
            if deletedHere, ours.map({ theirs > $0 }) ?? true, let delete = merged.liveness.stamp {
                for (index, register) in remote.columns.enumerated() {
                    guard let register else { continue }
                    result.append(
                        Loss(column: index, kind: .deleted, loser: register, winner: delete, winningValue: nil))
                }
                return result
            }
            guard let ours, ours.node == node, ours > theirs, merged.columns == local.columns,
                (seen.first ?? nil).map({ theirs > $0 }) ?? true
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
                guard case .lww = rules.merges[index], let theirs = remote.columns[index], theirs.stamp.node != node
                else { continue }
                let ours = local.columns[index]
                if deletedHere, ours.map({ theirs.stamp > $0.stamp }) ?? true, let delete = merged.liveness.stamp {
                    result.append(Loss(column: index, kind: .deleted, loser: theirs, winner: delete, winningValue: nil))
                    continue
                }
                guard let ours, ours.stamp.node == node, ours.stamp > theirs.stamp, ours.value != theirs.value,
                    (seen.indices.contains(index) ? seen[index] : nil).map({ theirs.stamp > $0 }) ?? true
                else { continue }
                result.append(
                    Loss(column: index, kind: .overwritten, loser: theirs, winner: ours.stamp, winningValue: ours.value)
                )
            }
        }
        return result
    }
}
