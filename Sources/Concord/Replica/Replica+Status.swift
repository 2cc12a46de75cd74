/// A summary of a replica, as `concord status` prints it.
public struct ReplicaStatus: Hashable, Sendable, Codable {
    public struct Table: Hashable, Sendable, Codable {
        public var name: String
        public var policy: String
        /// Rows shown in the table.
        public var rows: Int64
        /// Deleted rows whose registers are kept.
        public var tombstones: Int64
    }

    /// An alive row that is not shown, and why.
    public struct Parked: Hashable, Sendable, Codable {
        public var table: String
        public var key: String
        public var reason: String
    }

    public struct Peer: Hashable, Sendable, Codable {
        public var node: String
        /// How far this replica has read that peer's changes.
        public var version: Int64
    }

    public var node: String
    public var version: Int64
    /// The last clock reading, packed.
    public var clock: UInt64
    /// The last clock reading as `milliseconds.counter`.
    public var clockReading: String
    public var tables: [Table]
    public var peers: [Peer]
    public var parked: [Parked]
}

extension Replica {
    /// Node id, local version, clock, synced tables with their counts, and known peers.
    public func status() throws -> ReplicaStatus {
        try withoutForeignKeyEnforcement {
            try foldLocalWrites()
            let clock = try self.clock.last
            let tables = try self.tables.map { table in
                ReplicaStatus.Table(
                    name: table.name, policy: table.policy.rawValue,
                    rows: try database.scalar("SELECT count(*) FROM \(table.quotedName)")?.integerValue ?? 0,
                    tombstones: try database.scalar(
                        "SELECT count(*) FROM \(table.rowsTable) WHERE cl % 2 = 0")?.integerValue ?? 0)
            }
            let peers = try database.query("SELECT node, version FROM \(Metadata.peers) ORDER BY node").map {
                ReplicaStatus.Peer(node: NodeID(bytes: $0[0].blobValue ?? [])?.description ?? "?",
                                   version: $0[1].integerValue ?? 0)
            }
            let parked = try self.tables.flatMap { table in
                try parkedRows(of: table).map {
                    ReplicaStatus.Parked(table: table.name, key: ParkReason.describe($0.key), reason: $0.reason)
                }
            }
            return ReplicaStatus(node: nodeID.description, version: try version, clock: clock.rawValue,
                                 clockReading: clock.description, tables: tables, peers: peers, parked: parked)
        }
    }
}
