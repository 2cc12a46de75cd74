extension Replica {
    /// Starts syncing `table` under `policy`.
    ///
    /// Validates the table (see ``TableInspector``), creates its metadata and
    /// capture triggers, and records every row already present as this
    /// replica's first writes, in key order. Enabling a table that already
    /// syncs under the same policy does nothing.
    ///
    /// - Throws: ``ReplicaError/unsupportedTable(table:reason:fix:)`` naming why
    ///   the table cannot merge, or ``ReplicaError/alreadyEnabled(table:existing:requested:)``.
    public func enableSync(on table: String, policy: TablePolicy = .column, merges: [String: ColumnMerge] = [:]) throws {
        let inspected = try Self.inspect(table, policy: policy, merges: merges, in: database,
                                         functions: configuration.merges)
        if let existing = syncedTables[inspected.name] {
            guard existing.policy == inspected.policy, existing.merges == inspected.merges else {
                throw ReplicaError.alreadyEnabled(table: existing.name, existing: existing.declaration,
                                                  requested: inspected.declaration)
            }
            return
        }
        let nullKeys = try database.scalar(
            "SELECT count(*) FROM \(inspected.quotedName) WHERE \(inspected.quotedKey) IS NULL")?.integerValue ?? 0
        guard nullKeys == 0 else {
            throw ReplicaError.unsupportedTable(
                table: inspected.name, reason: "\(nullKeys) row(s) have a NULL \(inspected.key)",
                fix: "give every row a unique key (e.g. a UUID) before enabling sync")
        }
        var synced = syncedTables
        synced[inspected.name] = inspected
        let foreignKeys = try TableInspector(database).foreignKeys(of: inspected, synced: synced)
        try withForeignKeysDeferred {
            try foldLocalWrites()
            try database.execute(
                "INSERT INTO \(Metadata.tables) (name, key, columns, policy, merges) VALUES (?, ?, ?, ?, ?)",
                [.text(inspected.name), .text(inspected.key), .text(ColumnList.encode(inspected.columns)),
                 .text(policy.rawValue), .text(ColumnList.encodeMerges(inspected.mergeMap))])
            let id = try database.scalar("SELECT id FROM \(Metadata.tables) WHERE name = ?",
                                         [.text(inspected.name)])?.integerValue ?? 0
            let comparesTypes = try TableInspector(database).comparesTypes(of: inspected)
            try database.execute(CaptureTriggers(table: inspected, id: id, comparesTypes: comparesTypes).createSQL)
            for key in foreignKeys {
                // Children of a parent whose visibility changes are found by index, not by a scan:
                // on the hidden table always, and on the user table unless the app indexed the column.
                let column = inspected.columns[key.column]
                try database.execute("CREATE INDEX \(quoteIdentifier(Metadata.hiddenTable(inspected.name) + "_" + column)) "
                    + "ON \(inspected.hiddenTable)(\(quoteIdentifier(column)))")
                let indexed = try database.scalar("""
                    SELECT count(*) FROM pragma_index_list(?) AS l, pragma_index_info(l.name) AS i
                    WHERE i.seqno = 0 AND i.name = ? COLLATE NOCASE
                    """, [.text(inspected.name), .text(column)]) != .integer(0)
                if !indexed {
                    try database.execute("CREATE INDEX \(quoteIdentifier(Metadata.prefix + "index_" + inspected.name + "_" + column)) "
                        + "ON \(inspected.quotedName)(\(quoteIdentifier(column)))")
                }
            }
            try recordExistingRows(of: inspected)
        }
        try loadSyncedTables()
    }

    /// Checks that `table` in `database` can sync under `policy`, without writing anything.
    ///
    /// `enableSync(on:policy:)` runs the same check; call this first to refuse
    /// a whole set of tables before any of them is enabled.
    public static func validate(_ table: String, policy: TablePolicy = .column, merges: [String: ColumnMerge] = [:],
                                in database: Database, functions: [String: MergeFunction] = [:]) throws {
        _ = try inspect(table, policy: policy, merges: merges, in: database, functions: functions)
    }

    /// The table's declaration, with its merges checked against its columns and policy.
    private static func inspect(_ table: String, policy: TablePolicy, merges: [String: ColumnMerge],
                                in database: Database, functions: [String: MergeFunction]) throws -> SyncedTable {
        let inspected = try TableInspector(database).inspect(table, policy: policy)
        for (column, merge) in merges.sorted(by: { $0.key < $1.key }) {
            guard inspected.columns.contains(column) else {
                throw ReplicaError.invalidMerge(table: inspected.name, column: column,
                                                reason: "the table has no synced column by that name")
            }
            if policy == .row && merge != .lww {
                throw ReplicaError.invalidMerge(
                    table: inspected.name, column: column,
                    reason: "under the row policy the latest write supplies the whole row; "
                        + "declare the table with the column policy to merge columns one by one")
            }
            if case .custom(let name) = merge, functions[name] == nil {
                throw ReplicaError.unregisteredMerge(table: inspected.name, column: column, name: name)
            }
        }
        return SyncedTable(name: inspected.name, key: inspected.key, columns: inspected.columns, policy: policy,
                           merges: inspected.columns.map { merges[$0] ?? .lww })
    }

    /// Stamps every row already in `table` as a local insert.
    private func recordExistingRows(of table: SyncedTable) throws {
        var clock = try self.clock
        var version = try self.version
        let selfIndex = try index(of: nodeID)
        let insert = try database.prepare(
            "INSERT INTO \(table.rowsTable) (kh, pk, cl, ver, hlc, node) VALUES (?, ?, 1, ?, ?, ?)")
        let keys = try database.prepare(
            "SELECT \(table.quotedKey) FROM \(table.quotedName) ORDER BY \(table.quotedKey)")
        while try keys.step() {
            let stamp = clock.tick(physical: configuration.clock.unixMilliseconds())
            version += 1
            let key = keys.column(0)
            try insert.run([.integer(KeyHash.of(key)), key, .integer(version), .integer(stamp.sqliteValue),
                            .integer(selfIndex)])
        }
        try storeClock(clock, version: version)
    }

    /// Persists the clock and the local version.
    func storeClock(_ clock: HybridLogicalClock, version: Int64) throws {
        try database.execute("UPDATE \(Metadata.state) SET hlc = ?, version = ?",
                             [.integer(clock.last.sqliteValue), .integer(version)])
    }
}
