/// What a replica keeps of a table it stops syncing, so that enabling sync on it again continues its rows'
/// lives rather than starting them over.
///
/// Why: disabling sync drops a table's registers, and disable, migrate, enable is the way through a
/// migration Concord refuses. Enabled again, every row was a first write of a first life (causal length 1),
/// below what the peers held: a row once deleted and inserted again (length 3 everywhere), deleted here
/// before the next sync, got length 2 and came back from the peers; a row the migration deleted came back
/// from them too; and a counter contributed its whole value again, on top of what the other devices had
/// contributed (10, of which 6 from another device, showed 16); a delete folded as sync stopped, not yet
/// sent, never left the device; and every value the migration left as it was beat, stamped anew, what
/// another device wrote meanwhile. So ``Replica/disableSync(on:)`` keeps each row's causal length and
/// stamps, each alive row's values with their stamps, and every device's contribution to its counters
/// (layout 13); ``Replica/enableSync(on:policy:merges:)`` continues from them: a row still there keeps its
/// life (or starts the next one, if it was deleted when sync stopped), a value still the same keeps its
/// stamp (a row-policy row, when all are), a row gone is deleted again as this device's write (in its next
/// life if it was alive, in the same one if it was deleted), the other devices' counter contributions come
/// back as they were, and this device's is what the row shows beyond them (a column declared a counter only
/// now counts what it held as the contribution of the device that wrote it, on every device alike). Rows are
/// matched by table name (as SQLite compares names) and key, values by column name; what is kept is dropped
/// once sync is enabled again.
///
/// ```swift
/// try replica.disableSync(on: "notes")
/// try replica.database.execute("DELETE FROM notes WHERE archived")   // part of the migration
/// try replica.enableSync(on: "notes")   // the deleted notes are deleted on every device
/// ```
enum RetiredRows {
    /// Each row's causal length and stamps (its own, and its liveness's) when its table stopped syncing.
    static let rows = "_concord_retired"
    /// Each row's values (a deleted row's as its hidden copy keeps them), by column name, with the stamps of
    /// their registers.
    static let values = "_concord_retired_values"
    /// Every device's contribution to each counter of each alive row's life, as the registers held them.
    static let counts = "_concord_retired_counts"

    static let createSQL = """
        CREATE TABLE IF NOT EXISTS \(rows) (
            name TEXT NOT NULL, pk NOT NULL, cl INTEGER NOT NULL, hlc INTEGER NOT NULL, node INTEGER NOT NULL,
            clh INTEGER NOT NULL, cln INTEGER NOT NULL, shown INTEGER NOT NULL, PRIMARY KEY (name, pk)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS \(values) (
            name TEXT NOT NULL, pk NOT NULL, col TEXT NOT NULL, value, hlc INTEGER NOT NULL, node INTEGER NOT NULL,
            counter INTEGER NOT NULL, PRIMARY KEY (name, pk, col)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS \(counts) (
            name TEXT NOT NULL, pk NOT NULL, col TEXT NOT NULL, node INTEGER NOT NULL, amount INTEGER NOT NULL,
            hlc INTEGER NOT NULL, PRIMARY KEY (name, pk, col, node)
        ) WITHOUT ROWID;
        """

    /// Keeps `table`'s causal lengths, stamps, values and counter contributions, before its registers go.
    static func retire(_ table: SyncedTable, in database: Database) throws {
        try forget(table.name, in: database)
        try database.execute(
            """
            INSERT OR REPLACE INTO \(rows) (name, pk, cl, hlc, node, clh, cln, shown)
            SELECT ?, m.pk, m.cl, m.hlc, m.node, coalesce(m.clh, m.hlc), coalesce(m.cln, m.node),
                t.\(table.quotedKey) IS NOT NULL
            FROM \(table.rowsTable) AS m LEFT JOIN \(table.qualifiedName) AS t ON t.\(table.quotedKey) = m.pk
            """, [.text(table.name)])
        for (column, name) in table.columns.enumerated() {
            // A column's stamp, where the rows table keeps one, else the row's (NULL stands for that).
            let (hlc, node) =
                table.stampColumns.isEmpty
                ? ("m.hlc", "m.node")
                : (
                    "coalesce(m.\(Metadata.stampColumn(column)), m.hlc)",
                    "coalesce(m.\(Metadata.nodeColumn(column)), m.node)"
                )
            try database.execute(
                """
                INSERT OR REPLACE INTO \(values) (name, pk, col, value, hlc, node, counter)
                SELECT ?, m.pk, ?, CASE WHEN h.pk IS NOT NULL THEN h.\(Metadata.valueColumn(column))
                    ELSE t.\(table.quotedColumns[column]) END, \(hlc), \(node), \(table.merges[column] == .counter ? 1 : 0)
                FROM \(table.rowsTable) AS m LEFT JOIN \(table.hiddenTable) AS h ON h.pk = m.pk
                LEFT JOIN \(table.qualifiedName) AS t ON t.\(table.quotedKey) = m.pk
                """, [.text(table.name), .text(name)])
        }
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
        for kept in [rows, values, counts] {
            try database.execute("DELETE FROM \(kept) WHERE name = ? COLLATE NOCASE", [.text(name)])
        }
    }

    /// A stamp as the rows table keeps it: a clock reading and a node index.
    typealias StoredStamp = (hlc: Int64, node: Int64)

    /// How a row that was kept goes on, now that the table shows `shown` (a value per column of `table`).
    struct Continued {
        /// Its causal length: the kept life if the row was alive, else the next one.
        var life: Int64
        /// Its stamp, when nothing it shows changed; else `nil`, for a new one.
        var stamp: StoredStamp?
        /// Its liveness's stamp, when it keeps its life.
        var liveness: StoredStamp?
        /// Per column, the stamp of a value still the same; `nil` for a new one.
        var columns: [StoredStamp?]
        /// The values kept as written where the table shows them converted by its column (`'007'` as `7`),
        /// by column: the row keeps them in its hidden copy.
        var written: [Int: SQLiteValue] = [:]
    }

    /// What was kept of one row (see ``kept(_:of:database:)``).
    private struct Kept {
        let life: Int64
        let stamp: StoredStamp
        let liveness: StoredStamp
        /// Per column of the table now (matched by name), its value and its register's stamp.
        let columns: [(value: SQLiteValue, stamp: StoredStamp)?]
        /// Whether the row had a column the table no longer has.
        let lostColumns: Bool
    }

    /// What was kept of the row `key` of `table`: its causal length, its own and its liveness's stamps, and its
    /// values with their stamps; `nil` when nothing was.
    private static func kept(_ key: SQLiteValue, of table: SyncedTable, database: Database) throws -> Kept? {
        guard
            let row = try database.query(
                "SELECT cl, hlc, node, clh, cln FROM \(rows) WHERE name = ? COLLATE NOCASE AND pk = ?",
                [.text(table.name), key]
            ).first, let life = row[0].integerValue
        else { return nil }
        let values = try database.query(
            "SELECT col, value, hlc, node FROM \(values) WHERE name = ? COLLATE NOCASE AND pk = ?",
            [.text(table.name), key])
        let columns = table.columns.map { name in
            values.first { SQLiteName.same($0[0].textValue ?? "", name) }.map {
                (value: $0[1], stamp: (hlc: $0[2].integerValue ?? 0, node: $0[3].integerValue ?? 0))
            }
        }
        func stamp(_ at: Int) -> StoredStamp { (row[at].integerValue ?? 0, row[at + 1].integerValue ?? 0) }
        return Kept(
            life: life, stamp: stamp(1), liveness: stamp(3), columns: columns,
            lostColumns: values.count != columns.count { $0 != nil })
    }

    /// How the row `key` of `table`, which the table shows now as `shown` (a value per column), goes on, when
    /// it was kept. A column still the same shows the kept value, or a copy of what its column showed of it
    /// (`isCopy(shown, kept, column)`, see ``Database/isCopy(_:of:as:)``).
    static func continued(
        _ key: SQLiteValue, of table: SyncedTable, shown: [SQLiteValue], database: Database,
        isCopy: (SQLiteValue, SQLiteValue, Int) throws -> Bool
    ) throws -> Continued? {
        guard let kept = try kept(key, of: table, database: database) else { return nil }
        guard kept.life % 2 == 1 else {
            return Continued(life: kept.life + 1, columns: table.columns.map { _ in nil })
        }
        var written: [Int: SQLiteValue] = [:]
        let columns = try zip(kept.columns, shown).enumerated().map { column, pair -> StoredStamp? in
            let (kept, value) = pair
            guard let kept else { return nil }
            if kept.value == value { return kept.stamp }
            guard try isCopy(value, kept.value, column) else { return nil }
            written[column] = kept.value
            return kept.stamp
        }
        return Continued(
            life: kept.life, stamp: columns.contains { $0 == nil } || kept.lostColumns ? nil : kept.stamp,
            liveness: kept.liveness,
            columns: columns, written: written)
    }

    /// How the row `key` of `table`, gone from the table, is recorded before it is deleted again: as it was,
    /// in its last life alive, with its stamps, and per column of `table` its value (NULL, and no register,
    /// for a column it did not have: the stamp (0, 0), which the rows table reads as none; a `nil` stamp
    /// would be the row's own, and a later life the row takes from a peer that lacks the column would keep
    /// that NULL over the column's DEFAULT).
    static func gone(_ key: SQLiteValue, of table: SyncedTable, database: Database) throws
        -> (Continued, [SQLiteValue])?
    {
        guard let kept = try kept(key, of: table, database: database) else { return nil }
        return (
            Continued(
                life: kept.life % 2 == 1 ? kept.life : kept.life - 1, stamp: kept.stamp, liveness: kept.liveness,
                columns: kept.columns.map { $0?.stamp ?? (hlc: 0, node: 0) }),
            kept.columns.map { $0?.value ?? .null }
        )
    }

    /// The value a column that did not merge as a counter held when sync stopped, with its register's stamp,
    /// when it held an integer some device wrote: enabling the column as a counter makes it that device's
    /// contribution on every device that does so, rather than each device's own (which counted it once per
    /// device: 10 showed 20).
    static func formerValue(of key: SQLiteValue, column: String, in name: String, database: Database) throws
        -> (amount: Int64, stamp: StoredStamp)?
    {
        let kept = try database.query(
            "SELECT value, hlc, node FROM \(values) WHERE name = ? COLLATE NOCASE AND pk = ? AND col = ? AND NOT counter",
            [.text(name), key, .text(column)]
        ).first
        guard let kept, let amount = kept[0].integerValue, let node = kept[2].integerValue, node != 0 else {
            return nil
        }
        return (amount, (kept[1].integerValue ?? 0, node))
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

    /// The keys of rows of `table` the registers held when sync stopped that the table no longer holds, in key
    /// order: rows shown then and deleted since, and rows deleted before whose delete may not have reached
    /// every device yet. A row alive and not shown then (parked, or hidden with a parent that was not) was in
    /// no table to delete: it waits in the relay store (see ``Replica/disableSync(on:)``).
    static func goneSinceRetired(_ table: SyncedTable, in database: Database) throws -> [SQLiteValue] {
        try database.query(
            """
            SELECT r.pk FROM \(rows) AS r LEFT JOIN \(table.qualifiedName) AS t ON t.\(table.quotedKey) = r.pk
            WHERE r.name = ? COLLATE NOCASE AND (r.cl % 2 = 0 OR r.shown) AND t.\(table.quotedKey) IS NULL
            ORDER BY r.pk
            """, [.text(table.name)]
        ).map { $0[0] }
    }
}
