/// The SQL that makes any SQLite client's writes to a synced table land in the capture log.
///
/// Triggers, not a hook in Concord's own connection, so that the app, the
/// `sqlite3` shell and any other process are all captured, in the order they
/// wrote, without loading anything of Concord. Each write appends one row to
/// `_concord_log` in the same transaction as the write: the key, the
/// operation, the time of the write (SQL's `'now'`, read from the connection's
/// VFS) and, for an UPDATE, which columns changed (`IS NOT`), so an ORM that
/// writes every column does not clobber concurrent edits of the others. A
/// DELETE also keeps the row's values, which the table no longer has. While
/// Concord merges (`applying = 1`) the triggers stand aside.
struct CaptureTriggers {
    let table: SyncedTable
    /// The table's id in `_concord_tables`.
    let id: Int64

    /// DDL for the table's metadata tables and triggers.
    var createSQL: String {
        [metadataTablesSQL, insertTrigger, updateTrigger, keyGuardTrigger, deleteTrigger].joined(separator: "\n")
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

    private func trigger(_ event: String, _ timing: String, _ when: String, _ body: [String]) -> String {
        """
        CREATE TRIGGER \(quoteIdentifier(Metadata.trigger(table.name, event))) \(timing) ON \(table.quotedName)
        WHEN \(when)
        BEGIN
        \(body.map { "  " + $0 + ";" }.joined(separator: "\n"))
        END;
        """
    }

    private func logSQL(_ operation: Metadata.Operation, key: String, mask: String = "NULL") -> String {
        "INSERT INTO \(Metadata.log) (tbl, pk, op, at, mask) "
            + "VALUES (\(id), \(key), \(operation.rawValue), \(Metadata.nowMilliseconds), \(mask))"
    }

    private var insertTrigger: String {
        trigger("insert", "AFTER INSERT", active, [logSQL(.insert, key: "NEW.\(table.quotedKey)")])
    }

    /// An update logs which columns changed, one bit per column.
    private var updateTrigger: String {
        let changed = table.quotedColumns.map { "NEW.\($0) IS NOT OLD.\($0)" }
        guard !changed.isEmpty else { return "" }
        let bits = changed.enumerated().map { index, test in
            "((\(test)) << \(min(index, Metadata.maskBits)))"
        }
        return trigger("update", "AFTER UPDATE", "\(active) AND (\(changed.joined(separator: " OR ")))", [
            logSQL(.update, key: "NEW.\(table.quotedKey)", mask: bits.joined(separator: " | ")),
        ])
    }

    /// Keys identify rows across devices, so they may not change.
    private var keyGuardTrigger: String {
        trigger("key", "BEFORE UPDATE OF \(table.quotedKey)", "NEW.\(table.quotedKey) IS NOT OLD.\(table.quotedKey)", [
            "SELECT RAISE(ABORT, 'concord: the primary key of synced table \(sqlString(table.name)) cannot change; "
                + "delete the row and insert it under the new key')",
        ])
    }

    /// A delete keeps the row's values in the hidden table, since the user table no longer has them.
    private var deleteTrigger: String {
        let columns = table.quotedColumns.map { ", \($0)" }.joined()
        let values = table.quotedColumns.map { ", OLD.\($0)" }.joined()
        return trigger("delete", "AFTER DELETE", active, [
            "INSERT OR REPLACE INTO \(table.hiddenTable) (pk\(columns)) VALUES (OLD.\(table.quotedKey)\(values))",
            logSQL(.delete, key: "OLD.\(table.quotedKey)"),
        ])
    }

    /// Escapes `'` for use inside an SQL string literal.
    private func sqlString(_ text: String) -> String { text.replacingOccurrences(of: "'", with: "''") }
}
