/// The SQL that makes any SQLite client's writes to a synced table into stamped register writes.
///
/// Triggers, not a hook in Concord's own connection, so that the app, the
/// `sqlite3` shell and any other process are all captured, in the order they
/// wrote, without loading anything of Concord. Each trigger advances the
/// replica's clock in `_concord_state` with the packed HLC rule
/// `max(last + 1, now << 16)` and records the write in `_concord_rows_T` in
/// the same transaction as the write itself, so a write's stamp is the time it
/// was made and a crash loses the write and its stamp together. While
/// Concord merges (`applying = 1`) the triggers stand aside.
///
/// An UPDATE stamps only the columns whose values changed (`IS NOT`), so an
/// ORM that writes every column does not clobber concurrent edits of the
/// others.
struct CaptureTriggers {
    let table: SyncedTable

    /// DDL for the table's metadata tables and triggers.
    var createSQL: String {
        [metadataTablesSQL, insertTrigger, updateTrigger, keyGuardTrigger, deleteTrigger].joined(separator: "\n")
    }

    /// DDL that removes the triggers (metadata stays).
    var dropTriggersSQL: String {
        ["insert", "update", "key", "delete"].map {
            "DROP TRIGGER IF EXISTS \(quoteIdentifier(Metadata.trigger(table.name, $0)));"
        }.joined(separator: "\n")
    }

    private var metadataTablesSQL: String {
        let stampColumns = table.stampColumns.map { ", \($0) INTEGER" }.joined()
        let hiddenColumns = table.quotedColumns.map { ", \($0)" }.joined()
        return """
            CREATE TABLE \(table.rowsTable) (
                pk PRIMARY KEY NOT NULL, cl INTEGER NOT NULL, ver INTEGER NOT NULL,
                hlc INTEGER NOT NULL, node INTEGER NOT NULL, clh INTEGER, cln INTEGER\(stampColumns)
            ) WITHOUT ROWID;
            CREATE INDEX \(quoteIdentifier(Metadata.versionIndex(table.name))) ON \(table.rowsTable)(ver);
            CREATE TABLE \(table.hiddenTable) (pk PRIMARY KEY NOT NULL\(hiddenColumns)) WITHOUT ROWID;
            """
    }

    private var active: String { "(SELECT applying FROM \(Metadata.state)) = 0" }
    private var now: String { "(SELECT version, hlc, node FROM \(Metadata.state)) AS s" }

    private func trigger(_ event: String, _ timing: String, _ when: String, _ body: [String]) -> String {
        """
        CREATE TRIGGER \(quoteIdentifier(Metadata.trigger(table.name, event))) \(timing) ON \(table.quotedName)
        WHEN \(when)
        BEGIN
        \(body.map { "  " + $0 + ";" }.joined(separator: "\n"))
        END;
        """
    }

    /// An insert writes every column; over a deleted row it is a re-insert (next odd length).
    private var insertTrigger: String {
        let clearStamps = table.stampColumns.map { ", \($0) = NULL" }.joined()
        return trigger("insert", "AFTER INSERT", active, [
            Metadata.tickSQL,
            "DELETE FROM \(table.hiddenTable) WHERE pk = NEW.\(table.quotedKey)",
            """
            INSERT INTO \(table.rowsTable) (pk, cl, ver, hlc, node) \
            SELECT NEW.\(table.quotedKey), 1, version, hlc, node FROM \(Metadata.state) WHERE true \
            ON CONFLICT (pk) DO UPDATE SET cl = cl + 1 - cl % 2, ver = excluded.ver, hlc = excluded.hlc, \
            node = excluded.node, clh = NULL, cln = NULL\(clearStamps)
            """,
        ])
    }

    /// An update stamps the changed columns (column policy) or the whole row (row policy).
    private var updateTrigger: String {
        let changed = table.quotedColumns.map { "NEW.\($0) IS NOT OLD.\($0)" }
        guard !changed.isEmpty else { return "" }
        let assignments: String
        switch table.policy {
        case .column:
            assignments = table.columns.map { column in
                let c = quoteIdentifier(column)
                let h = quoteIdentifier(Metadata.stampColumn(column))
                let n = quoteIdentifier(Metadata.nodeColumn(column))
                return "\(h) = CASE WHEN NEW.\(c) IS NOT OLD.\(c) THEN s.hlc ELSE \(h) END, "
                    + "\(n) = CASE WHEN NEW.\(c) IS NOT OLD.\(c) THEN s.node ELSE \(n) END"
            }.joined(separator: ", ")
        case .row:
            // The row is one register: the new write supplies every column. The
            // liveness stamp keeps its own value (it would otherwise follow the base).
            let rows = table.rowsTable
            assignments = "clh = coalesce(\(rows).clh, \(rows).hlc), cln = coalesce(\(rows).cln, \(rows).node), "
                + "hlc = s.hlc, node = s.node"
        }
        return trigger("update", "AFTER UPDATE", "\(active) AND (\(changed.joined(separator: " OR ")))", [
            Metadata.tickSQL,
            "UPDATE \(table.rowsTable) SET ver = s.version, \(assignments) FROM \(now) WHERE pk = NEW.\(table.quotedKey)",
        ])
    }

    /// Keys identify rows across devices, so they may not change.
    private var keyGuardTrigger: String {
        trigger("key", "BEFORE UPDATE OF \(table.quotedKey)", "NEW.\(table.quotedKey) IS NOT OLD.\(table.quotedKey)", [
            "SELECT RAISE(ABORT, 'concord: the primary key of synced table \(sqlString(table.name)) cannot change; "
                + "delete the row and insert it under the new key')",
        ])
    }

    /// A delete moves the row's values to the hidden table and its length to the next even number.
    private var deleteTrigger: String {
        let columns = table.quotedColumns.map { ", \($0)" }.joined()
        let values = table.quotedColumns.map { ", OLD.\($0)" }.joined()
        return trigger("delete", "AFTER DELETE", active, [
            Metadata.tickSQL,
            "INSERT OR REPLACE INTO \(table.hiddenTable) (pk\(columns)) VALUES (OLD.\(table.quotedKey)\(values))",
            "UPDATE \(table.rowsTable) SET cl = cl + cl % 2, ver = s.version, clh = s.hlc, cln = s.node "
                + "FROM \(now) WHERE pk = OLD.\(table.quotedKey)",
        ])
    }

    /// Escapes `'` for use inside an SQL string literal.
    private func sqlString(_ text: String) -> String { text.replacingOccurrences(of: "'", with: "''") }
}
