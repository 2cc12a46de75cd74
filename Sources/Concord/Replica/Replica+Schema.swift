extension Replica {
    /// Refuses to go on while a synced table's schema differs from what sync was enabled on.
    ///
    /// Capture triggers and metadata are made for one column list: a column
    /// added later would have its writes missed, a table rebuilt by a
    /// migration tool (create, copy, drop, rename) loses its triggers, and a
    /// dropped or renamed column or table leaves registers nothing shows.
    /// Rather than sync such a table by halves, every fold (and so every
    /// export, apply, status and check) stops with an error that names the
    /// table, the change and the fix.
    ///
    /// It costs one `PRAGMA schema_version` per call while nothing changed.
    /// When that number moved — Concord's own suspending and resuming of
    /// capture moves it too, and a rolled-back transaction moves it back —
    /// a fingerprint of the whole schema (one query) tells whether anything
    /// really differs from the schema last checked; only then are the tables
    /// inspected.
    func checkSchemas() throws {
        let version = try database.scalar("PRAGMA schema_version")?.integerValue
        if version != nil && version == checkedSchema?.version { return }
        let fingerprint = try schemaFingerprint()
        if fingerprint != checkedSchema?.fingerprint {
            for table in tables { try checkSchema(of: table) }
        }
        checkedSchema = (version, fingerprint)
    }

    /// Forgets the last check, so the next one inspects every table (after sync is enabled on one).
    func forgetSchemaCheck() { checkedSchema = nil }

    /// Every object's type, names and SQL, in name order.
    private func schemaFingerprint() throws -> String {
        try database.scalar(
            """
            SELECT group_concat(type || char(1) || name || char(1) || tbl_name || char(1) || ifnull(sql, ''), char(2))
            FROM (SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name)
            """)?.textValue ?? ""
    }

    func checkSchema(of table: SyncedTable) throws {
        let columns = try database.query(
            "SELECT name, pk, hidden FROM pragma_table_xinfo(?) ORDER BY cid", [.text(table.name)])
        let refuse = { (change: String, fix: String) in
            ReplicaError.schemaChanged(table: table.name, change: change, fix: fix)
        }
        let undo = "undo the change; schema changes of synced tables are not synced by this version of Concord"
        guard !columns.isEmpty else {
            throw refuse(
                "the table no longer exists (dropped or renamed)", "create it again, or rename it back; " + undo)
        }
        let keys = columns.filter { $0[1].integerValue != 0 }.compactMap { $0[0].textValue }
        guard keys == [table.key] else {
            throw refuse(
                "its primary key is now \(keys.isEmpty ? "missing" : keys.joined(separator: ", ")), not \(table.key)",
                undo)
        }
        let present = columns.filter { $0[1].integerValue == 0 && $0[2].integerValue == 0 }.compactMap {
            $0[0].textValue
        }
        if present != table.columns {
            let added = present.filter { !table.columns.contains($0) }
            let gone = table.columns.filter { !present.contains($0) }
            var change: [String] = []
            if !added.isEmpty { change.append("column(s) \(added.joined(separator: ", ")) added") }
            if !gone.isEmpty { change.append("column(s) \(gone.joined(separator: ", ")) dropped or renamed") }
            if change.isEmpty { change.append("its columns were reordered") }
            throw refuse(change.joined(separator: "; "), undo)
        }
        guard try hasCaptureTriggers(table) else {
            throw refuse(
                "its capture triggers are gone, so writes made since were not captured "
                    + "(a migration that rebuilds the table drops them)",
                "run `concord enable` (or Replica.enableSync) on the table again: it reinstalls them and "
                    + "records every row the table holds now as written by this replica")
        }
    }

    /// Whether the table still has its capture triggers (a table rebuilt by a migration tool has none).
    func hasCaptureTriggers(_ table: SyncedTable) throws -> Bool {
        let triggers = ["insert", "update", "delete"].map { Metadata.trigger(table.id, $0) }
        let found =
            try database.scalar(
                "SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ? COLLATE NOCASE AND name IN (?, ?, ?)",
                [.text(table.name)] + triggers.map { .text($0) })?.integerValue ?? 0
        return found >= (table.columns.isEmpty ? 2 : 3)
    }
}
