extension Replica {
    /// Logs, as this device's deletes, the synced rows that left their tables while nothing captured it,
    /// so that the next fold stamps them.
    ///
    /// Why: a row's values live in its user table, and its registers say it is shown there. A row gone from
    /// the table with no delete captured would stay alive in the registers: peers would keep it, the next
    /// export from an early version would send it with every value NULL, and each peer would show that.
    /// SQLite deletes rows without firing delete triggers in two ways an app can reach:
    ///
    /// - While Concord merges, the app's own triggers still fire on what it writes. Their inserts and updates
    ///   of synced tables are left out (see ``withoutCapture(_:)``), but SQLite makes a delete whatever the
    ///   authorizer answers, and the capture trigger it fires is silenced with the rest. The app's rule ran
    ///   on this device (archiving a list on another device deleted, here, an item added here meanwhile).
    /// - `INSERT OR REPLACE`, `UPDATE OR REPLACE` and `ON CONFLICT REPLACE` delete the rows a UNIQUE index
    ///   collides with without firing their delete triggers (unless the connection set
    ///   `PRAGMA recursive_triggers`). A synced table cannot have such an index (enabling refuses it, and a
    ///   migration adding one stops the table, see ``SchemaChange``), but an app can create one, replace rows
    ///   and drop it again before Concord looks, in this process or another.
    ///
    /// Either way the delete is recorded as made here, as it would have been had the app deleted the row
    /// itself. A row a trigger deleted while Concord merged keeps its values where SQLite's preupdate hook
    /// caught them (``logCaughtDeletes()``, run first, logs those). Otherwise the row's values left with it,
    /// as for a table rebuilt without its triggers (``logLostRow(_:of:log:)``, shared with
    /// ``reconcile(_:newColumnsFrom:)``); the delete keeps nothing to bring back. A row written since the last fold has no registers yet: its last logged write, an
    /// insert or an update, gets the delete after it (``unshownSinceFoldSQL(_:)``).
    ///
    /// Where it looks, two queries per table (the registers, the capture log): the tables a silenced
    /// statement that threw may have deleted from (the others are looked at as they finish,
    /// ``logRowsDeletedWhileSilencing()``); and every synced table whenever the schema version differs from
    /// the one recorded at the last sweep (`_concord_state.swept`, kept in the file so a change another
    /// process made is seen too; emptied by the upgrade to layout 14, for what a merge of an earlier build,
    /// which looked only at the next fold, left). An app whose schema does not change pays one query per open.
    ///
    /// ```swift
    /// // Another connection: CREATE UNIQUE INDEX, INSERT OR REPLACE (deleting 'p1'), DROP INDEX.
    /// try replica.foldLocalWrites()     // logs and stamps the delete of 'p1' as this device's
    /// ```
    func logRowsLostUncaptured() throws {
        // Left by a silenced operation that threw before it could look (``logRowsDeletedWhileSilencing()``).
        var looked = database.connection.silencer.takeDeletedWhileSilencing()
        // The version ``checkSchemas()`` just read (a change it adopted is swept at the fold around it).
        let schemaVersion = isAdoptingSchemas ? nil : checkedSchema?.version
        var changed = false
        if let schemaVersion, schemaVersion != sweptSchemaVersion {
            // Remembered only as read back, after the transaction that wrote it committed: a sweep rolled back
            // with its transaction is made again.
            sweptSchemaVersion = try database.scalar("SELECT swept FROM \(Metadata.state)")?.integerValue
            changed = schemaVersion != sweptSchemaVersion
        }
        if changed { looked.formUnion(tables.map(\.name)) }
        try logRowsLost(from: looked)
        if changed, let schemaVersion {
            try database.execute("UPDATE \(Metadata.state) SET swept = ?", [.integer(schemaVersion)])
        }
    }

    /// Logs, as this device's deletes, the rows the app's triggers deleted uncaptured while Concord's own
    /// writes silenced capture, inside the transaction that made them (see ``withoutCapture(_:)``).
    ///
    /// Why here and not at the next fold: a flag kept in memory until then would be lost with a fold
    /// rolled back after taking it, and the deletes, already committed, with it. Only the tables a
    /// silenced statement that ran had coded such a delete for are looked at
    /// (``TriggerSilencer/deletedWhileSilencing``), so a merge that fires no deleting trigger pays nothing.
    ///
    /// ```swift
    /// // reminder_done_clears: AFTER UPDATE OF done ... DELETE FROM subtasks WHERE reminder_id = NEW.id
    /// try replica.withoutCapture { try merge(doneReminder) }   // logs each subtask it took
    /// ```
    func logRowsDeletedWhileSilencing() throws {
        try logCaughtDeletes()
        let tables = database.connection.silencer.takeDeletedWhileSilencing()
        guard !tables.isEmpty else { return }
        try logRowsLost(from: tables)
    }

    /// Logs the rows of the synced tables named in `names` that left them uncaptured (two queries a table).
    private func logRowsLost(from names: Set<String>) throws {
        guard !names.isEmpty else { return }
        let log = try database.cached(Self.logWriteSQL)
        for table in tables where names.contains(table.name) && !isRefused(table.name) {
            let gone = try database.query(
                "SELECT m.pk FROM \(table.rowsTable) AS m LEFT JOIN \(table.hiddenTable) AS h ON h.pk = m.pk "
                    + "LEFT JOIN \(table.qualifiedName) AS t ON t.\(table.quotedKey) = m.pk "
                    + "WHERE m.cl % 2 = 1 AND h.pk IS NULL AND t.\(table.quotedKey) IS NULL ORDER BY m.pk")
            for row in gone { try logLostRow(row[0], of: table, log: log) }
            for row in try database.query(Self.unshownSinceFoldSQL(table), [.integer(table.id)]) {
                try logLostRow(row[0], of: table, log: log)
            }
        }
    }

    /// The keys of `table` whose last write in the capture log inserted or updated the row, which the table
    /// no longer holds: rows written since the last fold, so without registers for the first query of
    /// ``logRowsLostUncaptured()`` to find, and deleted without a trigger. Folded as they are, they would be alive with nothing to show.
    private static func unshownSinceFoldSQL(_ table: SyncedTable) -> String {
        """
        SELECT last.pk FROM (SELECT pk, max(seq) AS seq FROM \(Metadata.log) WHERE tbl = ? GROUP BY pk) AS last
        JOIN \(Metadata.log) AS l ON l.seq = last.seq
        LEFT JOIN \(table.qualifiedName) AS t ON t.\(table.quotedKey) = last.pk
        WHERE l.op <> \(Metadata.Operation.delete.rawValue) AND typeof(last.pk) IN ('text', 'blob')
            AND t.\(table.quotedKey) IS NULL
        ORDER BY last.seq
        """
    }
}
