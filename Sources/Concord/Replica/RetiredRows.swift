/// What a replica keeps of a table it stops syncing, so that enabling sync on it again continues its rows'
/// lives rather than starting them over.
///
/// Why: disabling sync drops a table's registers, and disable, migrate, enable is the way through a
/// migration Concord refuses. Enabled again, every row was a first write of a first life (causal length 1),
/// below what the peers held: a row once deleted and inserted again (length 3 everywhere), deleted here
/// before the next sync, got length 2 and came back from the peers; a row the migration deleted came back
/// from them too; and a counter contributed its whole value again, on top of what the other devices had
/// contributed (10, of which 6 from another device, showed 16); and a delete folded as sync stopped, not yet
/// sent, never left the device. So ``Replica/disableSync(on:)`` keeps each row's causal length and every
/// device's contribution to its counters' current life (layout 13); ``Replica/enableSync(on:policy:merges:)``
/// continues from them: a row still there keeps its life (or starts the next one, if it was deleted when
/// sync stopped), a row gone is deleted again as this device's write (in its next life if it was alive, in
/// the same one if it was deleted), the other devices' counter contributions come back as they were, and
/// this device's is what the row shows beyond them. Rows are matched by table name (as SQLite compares
/// names) and key; what is kept is dropped once sync is enabled again.
///
/// ```swift
/// try replica.disableSync(on: "notes")
/// try replica.database.execute("DELETE FROM notes WHERE archived")   // part of the migration
/// try replica.enableSync(on: "notes")   // the deleted notes are deleted on every device
/// ```
enum RetiredRows {
    /// Each row's causal length when its table stopped syncing.
    static let rows = "_concord_retired"
    /// Every device's contribution to each counter of each alive row's life, as the registers held them.
    static let counts = "_concord_retired_counts"

    static let createSQL = """
        CREATE TABLE IF NOT EXISTS \(rows) (
            name TEXT NOT NULL, pk NOT NULL, cl INTEGER NOT NULL, PRIMARY KEY (name, pk)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS \(counts) (
            name TEXT NOT NULL, pk NOT NULL, col TEXT NOT NULL, node INTEGER NOT NULL, amount INTEGER NOT NULL,
            hlc INTEGER NOT NULL, PRIMARY KEY (name, pk, col, node)
        ) WITHOUT ROWID;
        """

    /// Keeps `table`'s causal lengths and its counters' contributions, before its registers go.
    static func retire(_ table: SyncedTable, in database: Database) throws {
        try forget(table.name, in: database)
        try database.execute(
            "INSERT OR REPLACE INTO \(rows) (name, pk, cl) SELECT ?, pk, cl FROM \(table.rowsTable)",
            [.text(table.name)])
        for column in table.counterColumns {
            try database.execute(
                """
                INSERT OR REPLACE INTO \(counts) (name, pk, col, node, amount, hlc)
                SELECT ?, c.pk, ?, c.node, c.amount, c.hlc FROM \(table.countersTable) AS c
                JOIN \(table.rowsTable) AS m ON m.pk = c.pk
                WHERE c.col = ? AND c.cl = m.cl AND m.cl % 2 = 1
                """, [.text(table.name), .text(table.columns[column]), .integer(Int64(column))])
        }
    }

    /// Drops what was kept of the table named `name`.
    static func forget(_ name: String, in database: Database) throws {
        for kept in [rows, counts] {
            try database.execute("DELETE FROM \(kept) WHERE name = ? COLLATE NOCASE", [.text(name)])
        }
    }

    /// The causal length a row of the table named `name` that is in the table now continues from, when one
    /// was kept: the kept life if the row was alive, else the next one.
    static func causalLength(of key: SQLiteValue, in name: String, database: Database) throws -> Int64? {
        guard
            let kept = try database.scalar(
                "SELECT cl FROM \(rows) WHERE name = ? COLLATE NOCASE AND pk = ?", [.text(name), key])?.integerValue
        else { return nil }
        return kept % 2 == 1 ? kept : kept + 1
    }

    /// The contributions other devices than the one of node index `node` made to the counter `column` of a
    /// row alive when sync stopped, as (node index, amount, clock reading), by node.
    static func otherContributions(
        of key: SQLiteValue, column: String, in name: String, besides node: Int64, database: Database
    ) throws -> [(node: Int64, amount: Int64, hlc: Int64)] {
        try database.query(
            "SELECT node, amount, hlc FROM \(counts) WHERE name = ? COLLATE NOCASE AND pk = ? AND col = ? AND node <> ? "
                + "ORDER BY node", [.text(name), key, .text(column), .integer(node)]
        ).map { ($0[0].integerValue ?? 0, $0[1].integerValue ?? 0, $0[2].integerValue ?? 0) }
    }

    /// The keys of rows of `table` the registers held when sync stopped that the table no longer holds, with
    /// their causal lengths, in key order: rows deleted since, and rows deleted before whose delete may not
    /// have reached every device yet.
    static func goneSinceRetired(_ table: SyncedTable, in database: Database) throws -> [(SQLiteValue, Int64)] {
        try database.query(
            """
            SELECT r.pk, r.cl FROM \(rows) AS r LEFT JOIN \(table.qualifiedName) AS t ON t.\(table.quotedKey) = r.pk
            WHERE r.name = ? COLLATE NOCASE AND t.\(table.quotedKey) IS NULL ORDER BY r.pk
            """, [.text(table.name)]
        ).map { ($0[0], $0[1].integerValue ?? 1) }
    }
}
