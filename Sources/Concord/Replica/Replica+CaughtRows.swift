extension Replica {
    /// Has the connection catch the values of synced rows the app's triggers delete while Concord merges,
    /// and keep them (``keepCaughtRows(_:)``); called whenever the synced tables are read.
    ///
    /// Why: such a delete cannot be held back (see ``withoutCapture(_:)``), and a shown row's values live
    /// only in its table. Lost, the row's registers kept their stamps over NULL: on a peer holding the same
    /// writes, the tie between its values and NULL could settle on NULL, and a later insert of the row
    /// under older stamps showed NULL on every device. Kept, the delete is recorded as the app's own
    /// deletes are, with the row's values.
    ///
    /// ```swift
    /// // reminder_done_clears: AFTER UPDATE OF done ... DELETE FROM subtasks WHERE reminder_id = NEW.id
    /// try replica.withoutCapture { try merge(doneReminder) }   // each subtask's values kept, its delete logged
    /// ```
    func catchDeletedRows() throws {
        caughtColumnPositions = [:]
        let silencer = database.connection.silencer
        silencer.catcher.tables = Set(tables.map { SQLiteName.folded($0.name) })
        let usesHook = DeletedRowCatcher.isAvailable && configuration.catchesWithPreupdateHook
        if !usesHook { try silencer.catcher.installTriggerFunctions(on: database.handle) }
        silencer.catcher.usesHook = usesHook
        silencer.keepCaught = { [weak self] rows in try self?.keepCaughtRows(rows) }
        // A table no longer synced, or changed, loses its catch trigger now: it would refuse the app's DROP
        // COLUMN. The next merge makes the triggers it needs.
        try prepareCatchTriggers(creating: false)
    }

    /// Keeps each caught row's values in memory, with its table's store (``RegisterStore/caughtValues``),
    /// and notes the row for ``logCaughtDeletes()``. A row of a refused table, or of a table with generated
    /// columns (whose values the hook may place otherwise), is left to the look for rows lost uncaptured.
    ///
    /// Not in the hidden table yet: a row alive there and in neither table reads as hidden by its placement,
    /// and the merge would show it again (setting the trigger off a second time).
    func keepCaughtRows(_ rows: [DeletedRowCatcher.CaughtRow]) throws {
        for row in rows {
            guard let table = syncedTable(named: row.table), !isRefused(table.name),
                let positions = try caughtPositions(of: table), row.values.count > positions.columns.max() ?? 0,
                row.values.indices.contains(positions.key), case let key = row.values[positions.key],
                Self.isSyncableKey(key)
            else { continue }
            let store = store(table)
            // The row the merge itself deletes (the catch triggers see it; the hook, which sees only what
            // triggers delete, does not).
            if store.deletingKey == key { continue }
            if store.caughtValues[key] == nil { caughtDeletes.append((table, key)) }
            store.caughtValues[key] = positions.columns.map { row.values[$0] }
        }
    }

    /// Logs, as this device's deletes, the caught rows still in neither table whose registers or last logged
    /// write had them alive, their values kept in the hidden table, as a captured delete is logged, so the
    /// fold keeps the values. Then forgets them.
    func logCaughtDeletes() throws {
        defer { forgetCaughtRows() }
        let log = try database.cached(Self.logWriteSQL)
        for (table, key) in caughtDeletes {
            guard let values = store(table).caughtValues[key] else { continue }
            let gone = try database.scalar(
                """
                SELECT NOT EXISTS (SELECT 1 FROM \(table.qualifiedName) WHERE \(table.quotedKey) = ?1)
                    AND NOT EXISTS (SELECT 1 FROM \(table.hiddenTable) WHERE pk = ?1)
                    AND (EXISTS (SELECT 1 FROM \(table.rowsTable) WHERE kh = ?2 AND pk = ?1 AND cl % 2 = 1)
                        OR (SELECT op FROM \(Metadata.log) WHERE tbl = ?3 AND pk = ?1 ORDER BY seq DESC LIMIT 1)
                            IN (\(Metadata.Operation.insert.rawValue), \(Metadata.Operation.update.rawValue)))
                """, [key, .integer(KeyHash.of(key)), .integer(table.id)])
            guard gone == .integer(1) else { continue }
            try store(table).statement(.writeHidden).run([key] + values)
            try log.run([.integer(table.id), key, .integer(Metadata.Operation.delete.rawValue), .null])
        }
    }

    /// Drops what ``keepCaughtRows(_:)`` kept: logged, or gone with the writes of a merge that threw.
    func forgetCaughtRows() {
        for (table, _) in caughtDeletes { store(table).caughtValues = [:] }
        caughtDeletes = []
    }

    /// Where `table`'s key and columns are among the values a caught row holds (the preupdate hook's, or a
    /// catch trigger's, both in `PRAGMA table_xinfo` order); `nil` when the table has generated or hidden
    /// columns.
    func caughtPositions(of table: SyncedTable) throws -> (key: Int, columns: [Int])? {
        if let known = caughtColumnPositions[table.id] { return known }
        let info = try database.pragma("table_xinfo", of: table.name)
        let names = info.map { $0.text("name") ?? "" }
        var positions: (key: Int, columns: [Int])?
        if !info.contains(where: { $0.integer("hidden") != 0 }),
            let key = names.firstIndex(where: { SQLiteName.same($0, table.key) })
        {
            let columns = table.columns.compactMap { column in names.firstIndex { SQLiteName.same($0, column) } }
            if columns.count == table.columns.count { positions = (key, columns) }
        }
        caughtColumnPositions[table.id] = positions
        return positions
    }
}
