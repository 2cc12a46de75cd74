/// A summary of a replica, as `concord status` prints it.
///
/// It is plain data, `Encodable` so a tool can print it as JSON (`concord status --json`), and it is read
/// after the replica's pending local writes are folded in, so the counts
/// include them.
///
/// ```swift
/// let status = try replica.status()
/// for table in status.tables { print(table.name, table.rows, table.tombstones) }
/// for row in status.parked { print("\(row.table) \(row.key): \(row.reason)") }
/// ```
public struct ReplicaStatus: Hashable, Sendable, Encodable {
    /// One synced table and how many rows it shows and keeps as deleted.
    public struct Table: Hashable, Sendable, Codable {
        /// The table's name.
        public var name: String
        /// Its ``TablePolicy``'s raw value: `column` or `row`.
        public var policy: String
        /// Rows shown in the table.
        public var rows: Int64
        /// Deleted rows whose registers are kept.
        public var tombstones: Int64
        /// Why the table does not sync now (a destructive schema change, with the fix); `nil` while it syncs.
        public var refused: String?
        /// Each column that does not merge last-writer-wins, as `column=kind`, in the table's order; `nil`
        /// when every column does.
        public var merges: [String]?
    }

    /// An alive row that is not shown, and why.
    public struct Parked: Hashable, Sendable, Encodable {
        /// The table the row belongs to.
        public var table: String
        /// The row's key: TEXT as is, any other value as its SQL literal (`X'…'` for a BLOB).
        public var key: String
        /// Why it is not shown, as ``ParkReason``'s description words it.
        public var reason: String
        /// The key itself, which ``key`` describes (the TEXT `X'61'` and the BLOB `X'61'` alike).
        public var keyValue: SQLiteValue

        private enum CodingKeys: String, CodingKey { case table, key, reason }

        /// Encodes the key as ``JSONKey`` does: TEXT as a string, any other key typed.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(table, forKey: .table)
            try container.encode(JSONKey(keyValue), forKey: .key)
            try container.encode(reason, forKey: .reason)
        }
    }

    /// A table, or columns of a synced table, that peers sync and this replica's schema lacks: kept and relayed
    /// (see the Migrations article), shown once a migration adds them.
    public struct Relayed: Hashable, Sendable, Codable {
        /// The table's name.
        public var table: String
        /// The columns this replica lacks, in the order peers declared them (every column, when ``whole``).
        public var columns: [String]
        /// Whether the table itself is missing here, or not synced.
        public var whole: Bool
        /// Rows holding something for those columns.
        public var rows: Int64
    }

    /// A replica whose changes this one has applied, or that is known to have read this one's.
    public struct Peer: Hashable, Sendable, Codable {
        /// The peer's node id, in hex.
        public var node: String
        /// How far this replica has read that peer's changes (0: never).
        public var version: Int64
        /// When this replica last read that peer's changes, in Unix milliseconds of its clock; `nil` when
        /// never, or not since an upgrade from a layout that did not record it.
        public var lastReadFromPeer: Int64? = nil
        /// How far the peer has read this replica's changes (this replica's versions), as the transport
        /// recorded it (``Replica/recordDelivery(to:upTo:)``, done by ``Replica/sync(_:)``); `nil` when
        /// nothing was recorded, and then nothing is known of what it has read.
        public var peerReadUpTo: Int64? = nil
        /// When it last read them, in Unix milliseconds of this replica's clock; `nil` when not recorded.
        public var lastReadByPeer: Int64? = nil
        /// The local changes (row changes stored here, own writes and merged ones alike) it has not read
        /// yet: what its next changeset from here holds; `nil` when nothing was recorded.
        public var unread: Int64? = nil
    }

    /// This replica's node id, in hex.
    public var node: String
    /// The local version: the highest any register change stored here got.
    public var version: Int64
    /// The last clock reading, packed.
    public var clock: UInt64
    /// The last clock reading as `milliseconds.counter`.
    public var clockReading: String
    /// The synced tables, in name order.
    public var tables: [Table]
    /// The peers this replica has read changes from, in node-id order.
    public var peers: [Peer]
    /// The alive rows not shown, table by table in name order, then by key.
    public var parked: [Parked]
    /// What this replica keeps for peers though its schema lacks it, in table name order.
    public var relayed: [Relayed] = []
    /// Writes the capture log held, not yet stamped, when the status was asked for (it stamps them).
    public var captureBacklog: Int64 = 0
    /// Writes the capture log still holds after that: those of tables refused for a schema change,
    /// kept until the change is undone.
    public var captureHeld: Int64 = 0
}

extension Replica {
    /// Node id, local version, clock, synced tables with their counts, known peers with what each has
    /// not read yet, parked rows with their reasons, and the capture log's backlog.
    public func status() throws -> ReplicaStatus {
        try withForeignKeyEnforcementOffIfWriting {
            let backlog = try logCount()
            try foldLocalWrites()
            let clock = try self.clock.last
            let tables = try self.tables.map { table in
                ReplicaStatus.Table(
                    name: table.name, policy: table.policy.rawValue,
                    // A refused table may be gone (dropped or renamed): it then shows no rows.
                    rows: (try? database.scalar("SELECT count(*) FROM \(table.qualifiedName)"))??.integerValue ?? 0,
                    tombstones: try database.scalar(
                        "SELECT count(*) FROM \(table.rowsTable) WHERE cl % 2 = 0")?.integerValue ?? 0,
                    refused: refusedTables[table.name]?.description,
                    merges: table.mergedColumnNames)
            }
            let parked = try parkedRows()
            return ReplicaStatus(
                node: nodeID.description, version: try version, clock: clock.rawValue,
                clockReading: clock.description, tables: tables, peers: try peerStatus(), parked: parked,
                relayed: try relayedStatus(), captureBacklog: backlog, captureHeld: try logCount())
        }
    }
}

extension Replica {
    /// The alive rows not shown, table by table in name order, then by key: ``ReplicaStatus/parked`` alone.
    ///
    /// Cheaper than ``status()``, which also counts every table's rows: for
    /// an app (or a simulator) that watches parked rows after every sync.
    ///
    /// ```swift
    /// for row in try replica.parked() { print("\(row.table) \(row.key): \(row.reason)") }
    /// ```
    public func parked() throws -> [ReplicaStatus.Parked] {
        try withForeignKeyEnforcementOffIfWriting {
            try foldLocalWrites()
            return try parkedRows()
        }
    }

    /// Every peer this replica read from or that read it, in node-id order, with both directions.
    private func peerStatus() throws -> [ReplicaStatus.Peer] {
        let rows = try database.query(
            """
            SELECT n.node, p.version, p.at, r.version, r.at
            FROM (SELECT node FROM \(Metadata.peers) UNION SELECT node FROM \(Metadata.readers)) AS n
            LEFT JOIN \(Metadata.peers) AS p ON p.node = n.node
            LEFT JOIN \(Metadata.readers) AS r ON r.node = n.node
            ORDER BY n.node
            """)
        return try rows.map { row in
            let readUpTo = row[3].integerValue
            return ReplicaStatus.Peer(
                node: NodeID(bytes: row[0].blobValue ?? [])?.description ?? "?",
                version: row[1].integerValue ?? 0, lastReadFromPeer: row[2].integerValue, peerReadUpTo: readUpTo,
                lastReadByPeer: row[4].integerValue, unread: try readUpTo.map { try changeCount(after: $0) })
        }
    }

    /// The writes the capture log holds.
    private func logCount() throws -> Int64 {
        try database.scalar("SELECT count(*) FROM \(Metadata.log)")?.integerValue ?? 0
    }

    /// The capture log's last position (0 when empty): the writes of a statement run after this reading
    /// take the positions above it, up to the next reading (see ``FoldedWrite/seq``).
    @_spi(Simulation) public func captureLogEnd() throws -> Int64 {
        try database.scalar("SELECT coalesce(max(seq), 0) FROM \(Metadata.log)")?.integerValue ?? 0
    }

    /// The rows the capture log holds writes of after position `seq`, with each write's position, in log order.
    @_spi(Simulation) public func capturedRows(after seq: Int64) throws -> [(seq: Int64, row: RowRef)] {
        try database.query("SELECT seq, tbl, pk FROM \(Metadata.log) WHERE seq > ? ORDER BY seq", [.integer(seq)])
            .compactMap { entry in
                guard let name = tableNames[entry[1].integerValue ?? -1] else { return nil }
                return (entry[0].integerValue ?? 0, RowRef(table: name, key: entry[2]))
            }
    }

    private func parkedRows() throws -> [ReplicaStatus.Parked] {
        try tables.flatMap { table in
            try parkedRows(of: table).map {
                ReplicaStatus.Parked(
                    table: table.name, key: ParkReason.describe($0.key), reason: $0.reason, keyValue: $0.key)
            }
        }
    }

    /// What the relay store keeps, table by table: the columns this schema lacks and how many rows hold them.
    private func relayedStatus() throws -> [ReplicaStatus.Relayed] {
        let relay = RelayStore(database: database)
        return try relay.declarations().compactMap { declaration in
            let local = syncedTable(named: declaration.name)
            let lacking = declaration.columns(lackedBy: local?.columns ?? [])?.columns ?? []
            let rows = try relay.rowCount(of: declaration.name)
            guard local == nil || (!lacking.isEmpty && rows > 0) else { return nil }
            return ReplicaStatus.Relayed(table: declaration.name, columns: lacking, whole: local == nil, rows: rows)
        }
    }
}

extension SyncedTable {
    /// ``ReplicaStatus/Table/merges``: `column=kind` for each column that does not merge last-writer-wins.
    var mergedColumnNames: [String]? {
        let merged = zip(columns, merges).filter { $0.1 != .lww }.map { "\($0.0)=\($0.1.name)" }
        return merged.isEmpty ? nil : merged
    }
}
