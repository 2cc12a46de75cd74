/// The rows whose state changed after a version: what an app re-reads to refresh what it shows.
///
/// ```swift
/// let changed = try replica.changedRows(since: lastSeen)
/// for row in changed.rows { refresh(row.table, row.key, shown: row.isShown) }
/// lastSeen = changed.upTo
/// ```
public struct ChangedRows: Equatable, Sendable, Encodable {
    /// The version the rows changed after.
    public var since: Int64
    /// The replica's version when they were read: pass it as `since` next time.
    public var upTo: Int64
    /// One entry per row, in the order the rows last changed.
    public var rows: [Row]

    /// A row that changed, and whether the user table shows it now.
    public struct Row: Equatable, Sendable, Encodable {
        /// The synced table.
        public var table: String
        /// The row's key.
        public var key: SQLiteValue
        /// Whether the user table holds the row now (`false`: deleted, hidden with a parent, or parked).
        public var isShown: Bool

        private enum CodingKeys: String, CodingKey { case table, key, shown }

        /// Encodes the key as ``JSONKey`` does (as ``MergeReport`` does): a string for TEXT, typed otherwise.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(table, forKey: .table)
            try container.encode(JSONKey(key), forKey: .key)
            try container.encode(isShown, forKey: .shown)
        }
    }
}

extension Replica {
    /// The rows whose state changed after `version` — written here by any client, merged from a peer, or
    /// shown or hidden because another row changed (a parent deleted or arrived) — in the order they
    /// last changed.
    ///
    /// Why: an app whose tables are written by other processes and by sync
    /// wants to refresh only what changed. Every such change moves the row's
    /// registers to a new version, so this reads each table's versions after
    /// `version` (an index range, not a scan of the table), after folding the
    /// capture log. A row may be listed whose values came back the same (a
    /// peer's equal write); an app treats the list as the rows to read again.
    ///
    /// ```swift
    /// var seen: Int64 = 0
    /// let changed = try replica.changedRows(since: seen)
    /// seen = changed.upTo
    /// ```
    public func changedRows(since version: Int64) throws -> ChangedRows {
        guard version >= 0 else { throw ReplicaError.invalidVersion(version) }
        return try withForeignKeyEnforcementOffIfWriting {
            try foldLocalWrites()
            var found: [(version: Int64, row: ChangedRows.Row)] = []
            for table in tables where !isRefused(table.name) {
                let statement = try database.cached(
                    "SELECT m.ver, m.pk, t.\(table.quotedKey) IS NOT NULL FROM \(table.rowsTable) AS m "
                        + "LEFT JOIN \(table.qualifiedName) AS t ON t.\(table.quotedKey) = m.pk WHERE m.ver > ?")
                for row in try statement.all([.integer(version)]) {
                    found.append(
                        (
                            row[0].integerValue ?? 0,
                            .init(table: table.name, key: row[1], isShown: row[2] == .integer(1))
                        ))
                }
            }
            return ChangedRows(
                since: version, upTo: try self.version, rows: found.sorted { $0.version < $1.version }.map(\.row))
        }
    }
}
