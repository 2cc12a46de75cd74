/// The checks every row of a changeset passes before anything is merged, and what they learn.
struct RowValidator {
    let clock: HybridLogicalClock
    let physical: Int64
    let node: NodeID
    /// The newest stamp seen, and the newest of this replica's own node.
    private(set) var newest: Stamp?
    /// The newest stamp the clock has not read yet: every stamp but this replica's own that it issued
    /// (at or below its clock's last reading), which a peer relays back to it.
    private(set) var newestUnread: Stamp?
    private(set) var newestOwn: HLCTimestamp?
    private(set) var rows = 0

    init(clock: HybridLogicalClock, physical: Int64, node: NodeID) {
        self.clock = clock
        self.physical = physical
        self.node = node
    }

    /// Refuses a row of a table the changeset does not declare, a key that is not TEXT or BLOB,
    /// and a stamp (liveness, column or counter contribution) too far ahead of this replica's clock.
    /// Rows of the `relayed` tables (not synced here) pass the same checks.
    mutating func check(_ row: RowChange, _ plans: TablePlans, relayed: TablePlans.Names) throws {
        guard let table = plans[row.table]?.local.name ?? (relayed.contains(row.table) ? row.table : nil) else {
            throw ReplicaError.tableNotSynced(table: row.table)
        }
        guard Replica.isSyncableKey(row.key) else {
            throw ReplicaError.invalidKey(table: table, key: row.key.description)
        }
        rows += 1
        try check(row.registers.liveness.stamp)
        for column in row.registers.columns {
            try check(column?.stamp)
            for contribution in column?.contributions ?? [] { try check(contribution.stamp) }
        }
    }

    private mutating func check(_ stamp: Stamp?) throws {
        guard let stamp else { return }
        // This replica's own stamp, issued by its clock: not a remote one to hold to the drift limit. (A clock
        // set back since made peers relaying its recent writes refused for being "that device", ahead.)
        let issuedHere = stamp.node == node && stamp.hlc <= clock.last
        if !issuedHere {
            try clock.check(stamp.hlc, from: stamp.node, physical: physical)
            if newestUnread.map({ stamp > $0 }) ?? true { newestUnread = stamp }
        }
        if newest.map({ stamp > $0 }) ?? true { newest = stamp }
        if stamp.node == node && newestOwn.map({ stamp.hlc > $0 }) ?? true { newestOwn = stamp.hlc }
    }
}
