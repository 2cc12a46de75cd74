extension Replica {
    /// Makes Concord's metadata and triggers follow an additive change of `table`, inside the caller's transaction.
    ///
    /// New columns are appended to the declaration (`lww`, or what `merges`
    /// names, or else what peers declared for a column this device relayed
    /// before it had it: ``relayedMerges(of:_:)``) and get their per-table metadata columns; existing rows get no
    /// register for them (stamp columns default to "no write"), so nothing is
    /// re-stamped and they show their default until someone writes them. The
    /// capture triggers are made again for the new column list. Values the app
    /// wrote to a new column before Concord looked (the old triggers did not
    /// see them) become local writes now; a table whose triggers were gone is
    /// reconciled as a whole (see ``reconcile(_:newColumnsFrom:)``).
    ///
    /// ```swift
    /// try replica.database.execute("ALTER TABLE reminders ADD COLUMN priority INTEGER")
    /// try replica.foldLocalWrites()   // adopts `priority` first
    /// ```
    func adopt(_ change: SchemaChange, of table: SyncedTable, merges asked: [String: ColumnMerge] = [:]) throws {
        var current = table
        if case .additive(let new) = change.kind {
            let merges = try relayedMerges(of: table, new).merging(asked) { $1 }
            current = SyncedTable(
                id: table.id,
                schema: TableSchema(
                    name: table.name, key: table.key, columns: table.columns + new.map(\.name), policy: table.policy,
                    merges: table.merges + new.map { merges[$0.name] ?? .lww }))
            try database.execute(
                "UPDATE \(Metadata.tables) SET columns = ?, merges = ? WHERE id = ?",
                [
                    .text(ColumnList.encode(current.columns)), .text(ColumnList.encodeMerges(current.mergeMap)),
                    .integer(table.id),
                ])
            try loadSyncedTables()
            try addMetadataColumns(of: current, from: table.columns.count)
        }
        let first = table.columns.count
        // What newer peers wrote to the new columns, kept while this device lacked them, shows now: after
        // the values the app wrote meanwhile become local writes, which are newer; before a rebuild is
        // reconciled, whose copy could not hold them (it read a table without the columns).
        if change.triggersMissing {
            try takeUpRelayedColumns(of: current, from: first)
            try reconcile(current, newColumnsFrom: first)
        } else {
            try database.execute(CaptureTriggers(table: current, facts: facts(of: current)).dropAllTriggersSQL)
            try installTriggersAndIndexes(for: current)
            // Showing what peers wrote replaces the table's values; what the app wrote is newer, so it is
            // read first and written back after, as this device's writes.
            let written = try newColumnWrites(of: current, from: first)
            try takeUpRelayedColumns(of: current, from: first)
            try logNewColumnWrites(written, of: current)
        }
    }

    /// The merges peers declared for `new` columns of `table` that this device relayed before its app added
    /// them (see ``RelayStore``), by column name; a column no peer wrote is not named.
    ///
    /// Why: adopted as `lww`, a column peers merge as a counter made each side refuse the other's
    /// changesets whole, every table of them, for good; and the fix, declaring it a counter here, was
    /// refused as a change of merge.
    ///
    /// ```swift
    /// try replica.relayedMerges(of: table, [NewColumn(name: "views", defaultSQL: "0")])   // ["views": .counter]
    /// ```
    func relayedMerges(of table: SyncedTable, _ new: [SchemaChange.NewColumn]) throws -> [String: ColumnMerge] {
        guard let relayed = try RelayStore(database: database).declaration(of: table.name) else { return [:] }
        var merges: [String: ColumnMerge] = [:]
        for column in new {
            guard let index = relayed.columns.firstIndex(where: { SQLiteName.same($0, column.name) }) else { continue }
            merges[column.name] = relayed.merges[index]
        }
        return merges
    }

    /// The capture facts of a synced table, as loaded.
    func facts(of table: SyncedTable) throws -> TableInspector.CaptureFacts {
        try captureFacts[table.name] ?? TableInspector(database).captureFacts(of: table)
    }

    /// Adds the metadata columns of `table`'s columns from position `first` on.
    private func addMetadataColumns(of table: SyncedTable, from first: Int) throws {
        let defaults = try facts(of: table).defaults
        for column in first..<table.columns.count {
            if table.hasColumnStamps {
                // (0, 0) is "no write yet": existing rows have no register for the new column.
                try database.execute(
                    "ALTER TABLE \(table.rowsTable) ADD COLUMN \(Metadata.stampColumn(column)) INTEGER DEFAULT 0; "
                        + "ALTER TABLE \(table.rowsTable) ADD COLUMN \(Metadata.nodeColumn(column)) INTEGER DEFAULT 0")
            }
            try database.execute("ALTER TABLE \(table.hiddenTable) ADD COLUMN \(Metadata.valueColumn(column))")
            try database.execute(
                "UPDATE \(table.hiddenTable) SET \(Metadata.valueColumn(column)) = ?", [defaults[column]])
        }
        let added = first..<table.columns.count
        if table.counterColumns.contains(where: added.contains) {
            try database.execute(
                """
                CREATE TABLE IF NOT EXISTS \(table.countersTable) (
                    pk NOT NULL, col INTEGER NOT NULL, node INTEGER NOT NULL, cl INTEGER NOT NULL,
                    amount INTEGER NOT NULL, hlc INTEGER NOT NULL, PRIMARY KEY (pk, col, node)
                ) WITHOUT ROWID
                """)
        }
        let joined = table.joinedColumns.filter(added.contains)
        guard !joined.isEmpty else { return }
        try database.execute("CREATE TABLE IF NOT EXISTS \(table.logValuesTable) (seq INTEGER PRIMARY KEY)")
        for column in joined {
            try database.execute(
                "ALTER TABLE \(table.logValuesTable) ADD COLUMN \(Metadata.oldValueColumn(column)); "
                    + "ALTER TABLE \(table.logValuesTable) ADD COLUMN \(Metadata.newValueColumn(column))")
        }
    }

    /// A row's values the app wrote to new columns before Concord looked, with which columns it wrote.
    struct NewColumnWrite {
        let key: SQLiteValue
        let values: [SQLiteValue]
        let changed: [Bool]
    }

    /// The values the app wrote to `table`'s columns from `first` on before Concord looked, in key order:
    /// any that differs, by bytes or type, from the column's default, and any value of a DEFAULT that
    /// changes (`CURRENT_TIMESTAMP`), which this device evaluated for itself. ``logNewColumnWrites(_:of:)``
    /// makes them local writes. A `max` or `min` column's DEFAULT other than NULL is written too, in every
    /// row: the rows start there, as rows present when sync is enabled start at what they hold. Without it
    /// a lower write (a higher one, for `min`) showed below the default every row showed, where a column
    /// declared from the start keeps its maximum; joins of devices' equal defaults change nothing.
    func newColumnWrites(of table: SyncedTable, from first: Int) throws -> [NewColumnWrite] {
        guard first < table.columns.count else { return [] }
        let facts = try facts(of: table)
        let defaults = facts.defaults
        let new = Array(first..<table.columns.count)
        let startsAtDefault = { (column: Int) in
            [.max, .min].contains(table.merges[column]) && defaults[column] != .null
        }
        // A DEFAULT that changes (`CURRENT_TIMESTAMP`) gave every row a value of this device's own.
        let everyRow = new.contains { facts.volatileDefaults[$0] != nil || startsAtDefault($0) }
        let differs = new.map { column in
            let c = table.quotedColumns[column]
            return "(\(c) IS NOT ?\(column + 1) COLLATE BINARY OR typeof(\(c)) <> typeof(?\(column + 1)))"
        }
        let rows = try database.query(
            "SELECT \(([table.quotedKey] + table.quotedColumns).joined(separator: ", ")) FROM \(table.qualifiedName) "
                + "WHERE \(everyRow ? "1" : differs.joined(separator: " OR ")) ORDER BY \(table.quotedKey)",
            everyRow ? [] : defaults)
        return rows.map { row in
            NewColumnWrite(
                key: row[0], values: Array(row.dropFirst()),
                changed: table.columns.indices.map {
                    $0 >= first
                        && (row[1 + $0] != defaults[$0] || facts.volatileDefaults[$0] != nil || startsAtDefault($0))
                })
        }
    }

    /// Logs `writes` as local updates stamped at the next fold, putting back in the table any value that
    /// showing what peers wrote to the same columns replaced meanwhile.
    ///
    /// A written column merged by value is logged as changed from what the row showed once peers' values
    /// were taken up, which the fold joins the write with: a `max` column's DEFAULT written in every row
    /// must not replace a higher value a peer wrote. A counter's is logged as changed from its default,
    /// what the app saw when it wrote, so its change is what the app added.
    func logNewColumnWrites(_ writes: [NewColumnWrite], of table: SyncedTable) throws {
        let defaults = try facts(of: table).defaults
        for write in writes {
            let columns = table.columns.indices.filter { write.changed[$0] }
            guard !columns.isEmpty else { continue }
            let shown = try database.query(
                "SELECT \(columns.map { table.quotedColumns[$0] }.joined(separator: ", ")) FROM \(table.qualifiedName) "
                    + "WHERE \(table.quotedKey) = ?", [write.key]
            ).first
            if let shown, shown != columns.map({ write.values[$0] }) {
                try withoutCapture {
                    try database.execute(
                        "UPDATE \(table.qualifiedName) SET "
                            + columns.map { "\(table.quotedColumns[$0]) = ?" }.joined(separator: ", ")
                            + " WHERE \(table.quotedKey) = ?", columns.map { write.values[$0] } + [write.key])
                }
            }
            var olds = defaults
            for (offset, column) in columns.enumerated() where table.merges[column] != .counter {
                if let shown { olds[column] = shown[offset] }
            }
            try logUpdate(of: table, key: write.key, changed: write.changed, values: write.values, olds: olds)
        }
    }

    /// Appends an update of `key` to the capture log, with the old and new values of value-merged columns:
    /// `olds` for the columns it changed, the new value for the others.
    func logUpdate(
        of table: SyncedTable, key: SQLiteValue, changed: [Bool], values: [SQLiteValue], olds: [SQLiteValue]
    ) throws {
        guard changed.contains(true) else { return }
        try database.execute(
            "INSERT INTO \(Metadata.log) (tbl, pk, op, at, mask) VALUES (?, ?, ?, \(Metadata.now), ?)",
            [.integer(table.id), key, .integer(Metadata.Operation.update.rawValue), ChangeMask.encode(changed)])
        let joined = table.joinedColumns
        guard !joined.isEmpty else { return }
        try database.execute(
            "INSERT INTO \(table.logValuesTable) (seq, "
                + joined.flatMap { [Metadata.oldValueColumn($0), Metadata.newValueColumn($0)] }.joined(separator: ", ")
                + ") VALUES (last_insert_rowid()" + String(repeating: ", ?", count: 2 * joined.count) + ")",
            joined.flatMap { [changed[$0] ? olds[$0] : values[$0], values[$0]] })
    }
}
