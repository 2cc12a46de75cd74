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
    /// A lost write that a peer's newer write replaced there is in none of the peer's registers, but that
    /// write remembers it: `remoteSeen` (what the writes of `remote` saw, lined up with its columns, `nil`
    /// when unknown) naming a write of `node` that beats what `local` holds shows the same loss.
    ///
    /// ```swift
    /// // this replica inserted row X, a peer read it, then a backup from before X was restored here
    /// RowMerge.holdsLostWrite(of: me, local: nil, remote: xFromThePeer, rules: rules)   // true
    /// ```
    public static func holdsLostWrite(
        of node: NodeID, local: RowRegisters?, remote: RowRegisters, remoteSeen: [Stamp?]? = nil, rules: Rules
    ) -> Bool {
        let own = { (stamp: Stamp?) in stamp?.node == node }
        if sawLostWrite(of: node, local: local, remoteSeen: remoteSeen, rules: rules) { return true }
        guard let local else { return own(remote.liveness.stamp) || remote.columns.contains { own($0?.stamp) } }
        if own(remote.liveness.stamp), mergeLiveness(local.liveness, remote.liveness) != local.liveness { return true }
        switch rules.policy {
        case .column:
            // A register a delete nothing captured forgot (see LocalWrite.deleteUncaptured) belongs to a life
            // this replica ended: a peer's copy of it says nothing.
            let ended =
                local.liveness.causalLength % 2 == 0 && remote.liveness.causalLength <= local.liveness.causalLength
            for (index, merge) in zip(remote.columns.indices, rules.merges) where merge != .max && merge != .min {
                guard let theirs = remote.columns[index], own(theirs.stamp) else { continue }
                guard let mine = local.columns[index] else {
                    if ended { continue }
                    return true
                }
                if theirs.stamp > mine.stamp { return true }
            }
        case .row:
            if let theirs = rowStamp(remote), own(theirs), rowStamp(local).map({ theirs > $0 }) ?? true { return true }
        }
        return false
    }

    /// Whether the writes of a peer's row saw a write of `node` that beats what `local` holds (see
    /// ``holdsLostWrite(of:local:remote:remoteSeen:rules:)``); only last-writer-wins columns say what they saw.
    private static func sawLostWrite(of node: NodeID, local: RowRegisters?, remoteSeen: [Stamp?]?, rules: Rules)
        -> Bool
    {
        guard let remoteSeen else { return false }
        switch rules.policy {
        case .column:
            for (index, merge) in zip(remoteSeen.indices, rules.merges) where merge == .lww {
                guard let seen = remoteSeen[index], seen.node == node else { continue }
                guard let local else { return true }
                guard local.columns.indices.contains(index) else { continue }
                guard let mine = local.columns[index], mine.stamp >= seen else { return true }
            }
            return false
        case .row:
            guard let seen = remoteSeen.compactMap({ $0 }).max(), seen.node == node else { return false }
            guard let local else { return true }
            return rowStamp(local).map { seen > $0 } ?? true
        }
    }
}
