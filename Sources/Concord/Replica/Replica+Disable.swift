extension Replica {
    /// Stops syncing `table`: removes its capture triggers and all of Concord's metadata about it,
    /// and leaves the app's rows as they are.
    ///
    /// This is the way through a migration Concord refuses (a dropped or
    /// renamed column, another key): disable the table, migrate it, and
    /// enable it again, when its rows become this replica's writes once more.
    /// Its registers, hidden (deleted or parked) rows, parking marks, conflict log entries and the
    /// writes the capture log still holds for it go from its tables; other tables' pending
    /// writes are folded first. Each row's causal length, values and stamps, and every device's counter
    /// contributions, are kept until sync is enabled on the table again, which goes on from them: a value
    /// the migration left as it was keeps its stamp, a row it deleted is deleted on every device, and a row
    /// deleted and inserted again before keeps its life (see `RetiredRows`). A row parked or hidden, in no
    /// table for the migration to see, waits whole with the rows peers send meanwhile, and merges back.
    /// A table that another synced table references must wait until that one is disabled, since the
    /// child's visibility depends on its parents' registers. A table the app dropped or renamed can be
    /// disabled too (its refusal says so): the rows it showed left with it, and count as deleted should
    /// sync be enabled on a table of that name again.
    ///
    /// ```swift
    /// try replica.disableSync(on: "reminders")
    /// try replica.database.execute("ALTER TABLE reminders RENAME COLUMN title TO name")
    /// try replica.enableSync(on: "reminders")
    /// ```
    ///
    /// - Throws: ``ReplicaError/notSynced(table:)`` when the table does not sync here, or
    ///   ``ReplicaError/referencedBySyncedTable(table:child:)`` when another synced table references it.
    public func disableSync(on name: String) throws {
        guard let table = syncedTable(named: name) else { throw ReplicaError.notSynced(table: name) }
        if let child = children(of: table.name).map(\.child).sorted().first(where: { $0 != table.name }) {
            throw ReplicaError.referencedBySyncedTable(table: table.name, child: child)
        }
        try withoutForeignKeyEnforcement {
            try foldLocalWrites()
            let gone = try database.pragma("table_xinfo", of: table.name).isEmpty
            if gone { try standIn(forGone: table) }
            try RetiredRows.retire(table, in: database)
            // Rows alive and not shown (parked, or hidden with a parent that is not) are in no table for a
            // migration to see: they wait with rows peers send meanwhile, and merge back when sync is enabled.
            var unshown: [(SQLiteValue, RowRegisters)] = []
            try store(table).forEachRow(since: .min) { key, row in
                if row.registers.liveness.isAlive && !row.shown { unshown.append((key, row.registers)) }
            }
            try dropMetadata(of: table)
            let relay = RelayStore(database: database)
            if !unshown.isEmpty { try relay.declare(table.schema) }
            let version = try self.version
            for (key, registers) in unshown { try relay.write(table.schema, key: key, registers, version: version) }
            if gone { try database.execute("DROP TABLE \(table.qualifiedName)") }
        }
        try loadSyncedTables()
        refusedTables[table.name] = nil
    }

    /// Creates, for the length of a disable, a table in place of `table`, which the app dropped or renamed,
    /// holding the key of every row it showed, with no values.
    ///
    /// Why: the drop took those rows and their values with it (the registers keep stamps only). Kept as
    /// rows the table showed, they count as deleted by the migration when sync is enabled on a table of
    /// that name again, like any row a migration left out; kept as unshown, they would be relayed whole,
    /// NULL values under their writers' stamps. Rows it did not show keep their hidden copies and wait.
    ///
    /// ```swift
    /// try replica.database.execute("DROP TABLE reminders")
    /// try replica.disableSync(on: "reminders")   // the stand-in comes and goes inside it
    /// ```
    private func standIn(forGone table: SyncedTable) throws {
        try database.execute(
            "CREATE TABLE \(table.qualifiedName) (\(([table.quotedKey] + table.quotedColumns).joined(separator: ", ")))"
        )
        try database.execute(
            "INSERT INTO \(table.qualifiedName) (\(table.quotedKey)) SELECT m.pk FROM \(table.rowsTable) AS m "
                + "LEFT JOIN \(table.hiddenTable) AS h ON h.pk = m.pk WHERE m.cl % 2 = 1 AND h.pk IS NULL")
    }

    /// Drops every object named after `table`'s id and deletes the rows that refer to it.
    private func dropMetadata(of table: SyncedTable) throws {
        let prefix = Metadata.object(table.id, "")
        let objects = try database.query(
            "SELECT type, name FROM sqlite_schema WHERE lower(substr(name, 1, ?)) = ? AND type IN ('trigger', 'index', 'table') "
                + "ORDER BY type = 'table', name",
            [.integer(Int64(prefix.utf8.count)), .text(prefix)])
        for object in objects {
            guard let type = object[0].textValue, let name = object[1].textValue else { continue }
            try database.execute("DROP \(type.uppercased()) IF EXISTS \(quoteIdentifier(name))")
        }
        for metadata in [Metadata.log, Metadata.parked, Metadata.revived, Metadata.conflicts] {
            try database.execute("DELETE FROM \(metadata) WHERE tbl = ?", [.integer(table.id)])
        }
        // Credits may have covered its log rows only: a later write must not take a position one still covers.
        try CopyCredits(of: self).narrow(in: database)
        try database.execute("DELETE FROM \(Metadata.tables) WHERE id = ?", [.integer(table.id)])
        // Columns kept for peers went with the table's registers; rows peers send from now on are relayed whole.
        try RelayStore(database: database).deleteRows(of: table.name)
    }
}
