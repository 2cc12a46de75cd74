extension RowMerge {
    /// Whether `remote` holds a write of `node` — the replica whose registers `local` are — that beats what
    /// `local` holds: a write this replica made and no longer has.
    ///
    /// Why: a replica's own write stays in its registers until a write that beats it replaces it, so a peer
    /// holding one that still wins here shows this file lost history (a backup restored over the same file,
    /// a power loss that took an exported commit). Its next stamps and versions may repeat ones its peers
    /// already hold, and a peer that read its versions past a write it made since would skip that write for
    /// good: the replica must take a new node id. Its clock alone cannot tell when it ran fast before the
    /// restore and has been set right since, for the lost write's stamp is then behind it. Only registers
    /// whose merge keeps the newer stamp are compared (`max` and `min` keep the larger or smaller value's).
    ///
    /// ```swift
    /// // this replica inserted row X, a peer read it, then a backup from before X was restored here
    /// RowMerge.holdsLostWrite(of: me, local: nil, remote: xFromThePeer, rules: rules)   // true
    /// ```
    public static func holdsLostWrite(of node: NodeID, local: RowRegisters?, remote: RowRegisters, rules: Rules)
        -> Bool
    {
        let own = { (stamp: Stamp?) in stamp?.node == node }
        guard let local else { return own(remote.liveness.stamp) || remote.columns.contains { own($0?.stamp) } }
        if own(remote.liveness.stamp), mergeLiveness(local.liveness, remote.liveness) != local.liveness { return true }
        switch rules.policy {
        case .column:
            for (index, merge) in zip(remote.columns.indices, rules.merges) where merge != .max && merge != .min {
                guard let theirs = remote.columns[index], own(theirs.stamp) else { continue }
                guard let mine = local.columns[index] else { return true }
                if theirs.stamp > mine.stamp { return true }
            }
        case .row:
            if let theirs = rowStamp(remote), own(theirs), rowStamp(local).map({ theirs > $0 }) ?? true { return true }
        }
        return false
    }
}
