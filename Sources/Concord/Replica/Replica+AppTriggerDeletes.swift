extension Replica {
    /// Logs, as this device's deletes, the synced rows that the app's own triggers deleted while Concord
    /// merged, so that the next fold stamps them.
    ///
    /// Why: while Concord merges, the app's triggers still fire on what it writes. Their inserts and
    /// updates of synced tables are left out (see ``withoutCapture(_:)``), but SQLite makes a delete
    /// whatever the authorizer answers, and the capture trigger it fires is silenced with the rest. The
    /// row was then gone from its table while its registers still said shown, with no hidden copy: the
    /// next export sent it with every value NULL, and each peer showed that. The app's rule ran on this
    /// device (archiving a list on another device deleted, here, an item added here meanwhile), so it is
    /// recorded as a delete made here, as it would have been had the app written the archive itself.
    /// The row's values left with it, as for a table rebuilt without its triggers (``logLostRow(_:of:log:)``,
    /// shared with ``reconcile(_:newColumnsFrom:)``); the delete keeps nothing to bring back.
    ///
    /// Where it looks: the tables a trigger of the app deletes from, as this connection compiled its merges
    /// (SQLite asks the authorizer about every delete it codes, ``TriggerSilencer/deletes``), one query
    /// each per fold; and, at the first fold since opening, every synced table while the schema has a
    /// trigger of the app whose text says DELETE, for a merge an earlier process made and did not fold.
    /// An app without such triggers pays one query per open.
    ///
    /// ```swift
    /// try replica.apply(changes)        // the app's trigger deleted rows of `items` as the archive landed
    /// try replica.foldLocalWrites()     // logs and stamps those deletes as this device's
    /// ```
    func logDeletesByAppTriggers() throws {
        var looked = tablesAppTriggersDelete
        if !lookedForAppTriggerDeletes {
            lookedForAppTriggerDeletes = true
            let deletes = try database.scalar(
                """
                SELECT EXISTS (SELECT 1 FROM main.sqlite_schema WHERE type = 'trigger'
                    AND lower(substr(name, 1, 9)) <> '_concord_' AND sql LIKE '%delete%')
                """)
            if deletes == .integer(1) { looked.formUnion(tables.map(\.name)) }
        }
        guard !looked.isEmpty else { return }
        let log = try database.cached(Self.logWriteSQL)
        for table in tables where looked.contains(table.name) && !isRefused(table.name) {
            let gone = try database.query(
                "SELECT m.pk FROM \(table.rowsTable) AS m LEFT JOIN \(table.hiddenTable) AS h ON h.pk = m.pk "
                    + "LEFT JOIN \(table.quotedName) AS t ON t.\(table.quotedKey) = m.pk "
                    + "WHERE m.cl % 2 = 1 AND h.pk IS NULL AND t.\(table.quotedKey) IS NULL ORDER BY m.pk")
            for row in gone { try logLostRow(row[0], of: table, log: log) }
        }
    }
}
