extension Replica {
    /// Starts syncing `table` under `policy`.
    ///
    /// Validates the table (see `TableInspector`), creates its metadata and
    /// capture triggers, and records every row already present as this
    /// replica's first writes, in key order. Enabling a table that already
    /// syncs under the same policy does nothing.
    ///
    /// - Throws: ``ReplicaError/unsupportedTable(table:reason:fix:)`` naming why
    ///   the table cannot merge, or ``ReplicaError/alreadyEnabled(table:existing:requested:)``.
    public func enableSync(on table: String, policy: TablePolicy = .column, merges: [String: ColumnMerge] = [:]) throws
    {
        if let existing = syncedTable(named: table),
            case .destructive(let change, let fix) = try schemaChange(of: existing).kind
        {
            throw ReplicaError.schemaChanged(table: existing.name, change: change, fix: fix)
        }
        let inspected = try Self.inspect(
            table, policy: policy, merges: merges, in: database,
            functions: configuration.merges)
        if let existing = syncedTables[inspected.name], !existing.name.utf8.elementsEqual(inspected.name.utf8) {
            throw ReplicaError.unsupportedTable(
                table: inspected.name,
                reason: "table '\(existing.name)' already syncs, and its name reads as the same text "
                    + "though its Unicode bytes differ (\(Hex.encode(Array(existing.name.utf8))) and "
                    + "\(Hex.encode(Array(inspected.name.utf8))))", fix: "rename one of the two tables")
        }
        if let existing = syncedTables[inspected.name] {
            try enableAgain(existing, requested: inspected, merges: merges)
            return
        }
        if let (reason, fix) = try unguardableReason(of: inspected) {
            throw ReplicaError.unsupportedTable(table: inspected.name, reason: reason, fix: fix)
        }
        let unsyncable =
            try database.scalar(
                "SELECT count(*) FROM \(inspected.qualifiedName) WHERE typeof(\(inspected.quotedKey)) NOT IN ('text', 'blob')"
            )?
            .integerValue ?? 0
        guard unsyncable == 0 else {
            throw ReplicaError.unsupportedTable(
                table: inspected.name,
                reason: "\(unsyncable) row(s) have a \(inspected.key) that is NULL or a number, "
                    + "and a synced key must be TEXT or BLOB",
                fix: "give every row a unique TEXT key (e.g. a UUID) before enabling sync")
        }
        var synced = syncedTables
        synced[inspected.name] = inspected
        let foreignKeys = try TableInspector(database).foreignKeys(
            of: inspected, synced: synced, refusingGenerated: true, refusingCycles: true)
        // What the replica read of the tables goes back with a refusal's rollback: read again after it.
        let enabledMeanwhile: Bool
        do {
            enabledMeanwhile = try enable(inspected, policy: policy, foreignKeys: foreignKeys)
        } catch {
            try? loadSyncedTables()
            throw error
        }
        try loadSyncedTables()
        if enabledMeanwhile, let existing = syncedTables[inspected.name] {
            try enableAgain(existing, requested: inspected, merges: merges)
        }
    }

    /// Enables `inspected` in one transaction; returns `true`, changing nothing, when another process did first.
    private func enable(_ inspected: SyncedTable, policy: TablePolicy, foreignKeys: [ForeignKey]) throws -> Bool {
        try withoutForeignKeyEnforcement {
            // Another process may have enabled it since this one looked: decided again under the write lock
            // (the second of two `concord enable` at once failed on a UNIQUE constraint of Concord's own).
            let enabledMeanwhile =
                try database.scalar(
                    "SELECT EXISTS (SELECT 1 FROM \(Metadata.tables) WHERE name = ?)", [.text(inspected.name)])
                == .integer(1)
            if enabledMeanwhile { return true }
            try foldLocalWrites()
            try database.execute(
                "INSERT INTO \(Metadata.tables) (name, key, columns, policy, merges) VALUES (?, ?, ?, ?, ?)",
                [
                    .text(inspected.name), .text(inspected.key), .text(ColumnList.encode(inspected.columns)),
                    .text(policy.rawValue), .text(ColumnList.encodeMerges(inspected.mergeMap)),
                ])
            let id =
                try database.scalar(
                    "SELECT id FROM \(Metadata.tables) WHERE name = ?",
                    [.text(inspected.name)])?.integerValue ?? 0
            let table = inspected.withID(id)
            try requireFreeNames(of: table)
            let facts = try inspectedFacts(of: table)
            try database.execute(CaptureTriggers(table: table, facts: facts).metadataSQL)
            try installTriggersAndIndexes(for: table, facts: facts, foreignKeys: foreignKeys)
            try refuseUnmergeableValues(of: table, facts: facts)
            try recordExistingRows(of: table, facts: facts, foreignKeys: foreignKeys)
            // Rows peers sent of this table while it did not sync here were kept: they merge now.
            try loadSyncedTables()
            try foldLocalWrites()
            try parkExistingRowsThatCannotShow(of: table, foreignKeys: foreignKeys)
            try takeUpRelayedRows(of: table)
            return false
        }
    }

    /// Enables an already synced table again: nothing to do when it did not change, else its
    /// additive change is adopted with the merges declared for its new columns.
    ///
    /// Columns `merges` does not name keep their merge; naming another merge
    /// for an existing column would re-interpret registers other devices hold,
    /// so it is refused as another policy is, with nothing changed: the table
    /// goes on syncing as declared.
    private func enableAgain(_ existing: SyncedTable, requested: SyncedTable, merges: [String: ColumnMerge]) throws {
        guard existing.policy == requested.policy else {
            throw ReplicaError.alreadyEnabled(
                table: existing.name, existing: existing.declaration, requested: requested.declaration)
        }
        // Another merge for a column: refused as another policy is; the table goes on syncing as declared.
        for (column, merge) in zip(existing.columns, existing.merges) {
            guard let asked = merges[column], asked != merge else { continue }
            throw ReplicaError.alreadyEnabled(
                table: existing.name, existing: existing.declaration, requested: requested.declaration)
        }
        let change = try schemaChange(of: existing)
        guard change.needsAdoption else { return }
        if case .additive(let new) = change.kind { try refuseCountersWithABase(new, of: existing, merges: merges) }
        isAdoptingSchemas = true
        defer { isAdoptingSchemas = false }
        try withoutForeignKeyEnforcement { try adopt(change, of: existing, merges: merges) }
        forgetSchemaCheck()
    }

    /// Refuses a `counter` merge declared on a new column whose DEFAULT is not 0 (or NULL).
    ///
    /// Why: a counter is the sum of what each device added. The rows that predate
    /// the column, and rows that devices without it write, show its DEFAULT, which
    /// no device added; the first increment on a device counts from there, so a
    /// DEFAULT of 5 incremented once on each of two devices would converge to 2,
    /// not 7. With a DEFAULT of 0 every count is what devices added.
    ///
    /// ```swift
    /// // ALTER TABLE lists ADD COLUMN views INTEGER NOT NULL DEFAULT 5
    /// try replica.enableSync(on: "lists", merges: ["views": .counter])   // throws unsupportedTable
    /// ```
    func refuseCountersWithABase(
        _ new: [SchemaChange.NewColumn], of table: SyncedTable, merges: [String: ColumnMerge]
    ) throws {
        for column in new where merges[column.name] == .counter {
            guard let expression = column.defaultSQL else { continue }
            let value = try database.scalar("SELECT \(expression)") ?? .null
            switch value {
            case .null, .integer(0): continue
            case .real(let real) where real == 0: continue
            default: break
            }
            throw ReplicaError.unsupportedTable(
                table: table.name,
                reason: "its new column \(column.name) is declared a counter with DEFAULT \(expression): rows that "
                    + "predate the column, and rows devices without it write, show that value although no "
                    + "device added it, so a count would lose it at its first increment",
                fix: "drop the column and add it again with DEFAULT 0 (once Concord has taken the column up, "
                    + "its triggers read it and SQLite refuses the drop: run `concord disable DB --table "
                    + "\(table.name)` first and enable it again after), declare it a counter, then add each "
                    + "row's starting amount with an UPDATE on one device; or declare it lww")
        }
    }

    /// Makes `table`'s triggers, and indexes on its foreign-key columns where they are missing.
    ///
    /// Children of a parent whose visibility changes are found by index, not
    /// by a scan: on the hidden copies always, and on the user table unless
    /// the app indexed the column itself.
    func installTriggersAndIndexes(
        for table: SyncedTable, facts: TableInspector.CaptureFacts? = nil,
        foreignKeys: [ForeignKey]? = nil
    ) throws {
        let facts = try facts ?? TableInspector(database).captureFacts(of: table)
        try database.execute(captureTriggers(for: table, facts: facts).triggersSQL)
        for key in foreignKeys ?? parents(of: table.name) {
            let column = table.columns[key.column]
            try database.execute(
                "CREATE INDEX IF NOT EXISTS \(quoteIdentifier(Metadata.hiddenIndex(table.id, column: key.column))) "
                    + "ON \(table.hiddenTable)(\(Metadata.valueColumn(key.column)))")
            // An index whose first column it is, holding every row (a partial one serves no lookup of all).
            let indexed = try database.pragma("index_list", of: table.name).contains { index in
                guard index.integer("partial") == 0, let name = index.text("name") else { return false }
                return try database.pragma("index_info", of: name).contains {
                    $0.integer("seqno") == 0 && SQLiteName.same($0.text("name") ?? "", column)
                }
            }
            if !indexed {
                try database.execute(
                    "CREATE INDEX main.\(quoteIdentifier(Metadata.userIndex(table.id, column: key.column))) "
                        + "ON \(table.quotedName)(\(quoteIdentifier(column)))")
            }
        }
    }

    /// Refuses to create metadata whose names a table of the app already uses (names starting
    /// with `_concord_` are Concord's; an app that made one anyway gets told, not an SQL error).
    private func requireFreeNames(of table: SyncedTable) throws {
        // SQLite takes names without regard to ASCII case, so `_CONCORD_3_rows` would collide too.
        let prefix = Metadata.object(table.id, "")
        let taken = try database.query(
            "SELECT name FROM sqlite_schema WHERE lower(substr(name, 1, ?)) = ? ORDER BY name",
            [.integer(Int64(prefix.utf8.count)), .text(prefix)]
        ).compactMap { $0[0].textValue }
        if let name = taken.first {
            throw ReplicaError.unsupportedTable(
                table: table.name,
                reason: "the database already has an object named '\(name)', where Concord keeps "
                    + "this table's metadata (names starting with _concord_ are Concord's)",
                fix: "rename or drop '\(name)'")
        }
    }

    /// Checks that `table` in `database` can sync under `policy`, without writing anything.
    ///
    /// `enableSync(on:policy:)` runs the same check; call this first to refuse
    /// a whole set of tables before any of them is enabled.
    public static func validate(
        _ table: String, policy: TablePolicy = .column, merges: [String: ColumnMerge] = [:],
        in database: Database, functions: [String: MergeFunction] = [:]
    ) throws {
        _ = try inspect(table, policy: policy, merges: merges, in: database, functions: functions)
    }

    /// The table's declaration, with its merges checked against its columns and policy.
    private static func inspect(
        _ table: String, policy: TablePolicy, merges: [String: ColumnMerge],
        in database: Database, functions: [String: MergeFunction]
    ) throws -> SyncedTable {
        let inspected = try TableInspector(database).inspect(table, policy: policy)
        // Read only when a counter is declared: only a counter's check asks for the columns' affinities.
        var affinities: [ColumnAffinity] = []
        if merges.values.contains(.counter) {
            affinities = try TableInspector(database).captureFacts(of: inspected).affinities
        }
        for (column, merge) in merges.sorted(by: { $0.key < $1.key }) {
            guard inspected.columns.contains(column) else {
                throw ReplicaError.invalidMerge(
                    table: inspected.name, column: column,
                    reason: SQLiteName.same(column, inspected.key)
                        ? "it is the table's key, which tells rows apart and never merges"
                        : "the table has no synced column by that name")
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
            if merge == .counter, let index = inspected.columns.firstIndex(of: column),
                [.text, .real].contains(affinities[index])
            {
                throw ReplicaError.invalidMerge(
                    table: inspected.name, column: column,
                    reason:
                        "a counter holds integers, but the column is declared with \(affinities[index].rawValue) affinity, "
                        + "which stores them as \(affinities[index] == .text ? "text" : "reals"); declare it INTEGER")
            }
            if merge == .max || merge == .min,
                case let collation = try database.columnCollation(table: inspected.name, column: column),
                collation.uppercased() != "BINARY"
            {
                throw ReplicaError.invalidMerge(
                    table: inspected.name, column: column,
                    reason: "\(merge) compares text by its bytes, but the column compares with the \(collation) "
                        + "collation, under which a later write SQLite holds equal or larger ('Banana' after 'apple' "
                        + "under NOCASE) would lose; declare the column without COLLATE, or merge it lww")
            }
        }
        return SyncedTable(
            name: inspected.name, key: inspected.key, columns: inspected.columns, policy: policy,
            merges: inspected.columns.map { merges[$0] ?? .lww })
    }

    /// Stamps every row already in `table` as a local insert; a row kept when sync on the table stopped goes
    /// on from there instead (see `RetiredRows`).
    private func recordExistingRows(
        of table: SyncedTable, facts: TableInspector.CaptureFacts, foreignKeys: [ForeignKey]
    ) throws {
        try checkIdentity()
        var clock = try self.clock
        var version = try versionFloor(after: try self.version)
        let selfIndex = try indexRegistering(nodeID)
        let registerColumns = ["kh", "pk", "cl", "ver", "hlc", "node", "clh", "cln"] + table.stampColumns
        let insert = try database.prepare(
            "INSERT INTO \(table.rowsTable) (\(registerColumns.joined(separator: ", "))) "
                + "VALUES (\(Array(repeating: "?", count: registerColumns.count).joined(separator: ", ")))")
        let retired =
            try database.scalar(
                "SELECT EXISTS (SELECT 1 FROM \(RetiredRows.rows) WHERE name = ? COLLATE NOCASE)",
                [.text(table.name)]) == .integer(1)
        func record(_ key: SQLiteValue, _ continued: RetiredRows.Continued?, now: HLCTimestamp) throws {
            version += 1
            func stored(_ stamp: RetiredRows.StoredStamp?) -> [SQLiteValue] {
                stamp.map { [.integer($0.hlc), .integer($0.node)] } ?? [.null, .null]
            }
            let base: [SQLiteValue] =
                continued?.stamp.map { [.integer($0.hlc), .integer($0.node)] }
                ?? [.integer(now.sqliteValue), .integer(selfIndex)]
            let columns = table.stampColumns.isEmpty ? [] : (continued?.columns ?? table.columns.map { _ in nil })
            try insert.run(
                [.integer(KeyHash.of(key)), key, .integer(continued?.life ?? 1), .integer(version)] + base
                    + stored(continued?.liveness) + columns.flatMap(stored))
        }
        // A counter's value is the sum of the devices' contributions: what the row holds is this device's.
        let counters = table.counterColumns
        let contribute =
            try counters.isEmpty
            ? nil
            : database.prepare(
                "INSERT INTO \(table.countersTable) (pk, col, node, cl, amount, hlc) VALUES (?, ?, ?, ?, ?, ?)")
        let hide = try database.prepare(
            "INSERT OR REPLACE INTO \(table.hiddenTable) (\((["pk"] + table.hiddenColumns).joined(separator: ", "))) "
                + "VALUES (\(Array(repeating: "?", count: table.columns.count + 1).joined(separator: ", ")))")
        let standIns = StandInCheck(replica: self, table: table, foreignKeys: foreignKeys)
        // Rows that keep values as written beside what the table shows, with those values by column.
        var converted: [(key: SQLiteValue, written: [Int: SQLiteValue])] = []
        let rows = try database.prepare(
            "SELECT \(([table.quotedKey] + table.quotedColumns).joined(separator: ", ")) "
                + "FROM \(table.qualifiedName) ORDER BY \(table.quotedKey)")
        while try rows.step() {
            let stamp = clock.tick(physical: try physicalTime())
            let key = rows.column(0)
            let shown = table.columns.indices.map { rows.column(Int32($0 + 1)) }
            var standInColumns: Set<Int> = []
            let continued =
                try retired
                ? RetiredRows.continued(key, of: table, shown: shown, database: database) { shown, kept, column in
                    if try database.isCopy(shown, of: kept, as: facts.affinities[column]) { return true }
                    guard try standIns.isStandIn(shown, for: kept, column: column) else { return false }
                    standInColumns.insert(column)
                    return true
                } : nil
            try record(key, continued, now: stamp)
            if let written = continued?.written, !written.isEmpty {
                converted.append((key, written))
                // Kept as written beside what the table shows, where its column converts it (see
                // `RegisterStore.conversions(of:)`) or shows a stand-in for a parent that is not visible.
                if try !standInColumns.isEmpty
                    || written.contains(where: { try database.stored($1, as: facts.affinities[$0]) != $1 })
                {
                    try hide.run([key] + shown.indices.map { written[$0] ?? shown[$0] })
                }
            }
            let life = continued?.life ?? 1
            for column in counters {
                guard var amount = shown[column].integerValue else { continue }
                if continued != nil {
                    // What the other devices contributed to this life comes back as they contributed it; this
                    // device's share is what the row shows beyond it, even 0: newer than the one peers hold.
                    var others = try RetiredRows.otherContributions(
                        of: key, column: table.columns[column], in: table.name, besides: selfIndex,
                        database: database)
                    // A column that did not merge as a counter: its value is the contribution of who wrote it.
                    if let former = try RetiredRows.formerValue(
                        of: key, column: table.columns[column], in: table.name, database: database),
                        former.stamp.node != selfIndex
                    {
                        others = [(former.stamp.node, former.amount, former.stamp.hlc)]
                    }
                    for other in others {
                        try contribute?.run([
                            key, .integer(Int64(column)), .integer(other.node), .integer(life),
                            .integer(other.amount), .integer(other.hlc),
                        ])
                    }
                    amount = Int64(clamping: Int128(amount) - Int128(RowMerge.clampedSum(others.map(\.amount))))
                } else if amount == 0 {
                    continue
                }
                try contribute?.run([
                    key, .integer(Int64(column)), .integer(selfIndex), .integer(life), .integer(amount),
                    .integer(stamp.sqliteValue),
                ])
            }
        }
        // Such a value shows as its column converts it: a migration meanwhile may have copied what the old
        // column showed (`'7'` for the `'007'` kept), which is a copy, not the app's write.
        try withoutCapture {
            for (key, written) in converted {
                for (column, value) in written.sorted(by: { $0.key < $1.key }) {
                    try database.cached(
                        "UPDATE \(table.qualifiedName) SET \(table.quotedColumns[column]) = ? WHERE \(table.quotedKey) = ?"
                    ).run([try database.stored(value, as: facts.affinities[column]), key])
                }
            }
        }
        if retired {
            // Gone from the table: a row alive when sync stopped is recorded alive as it was, then deleted by the
            // fold that follows, as this device's write; a row deleted before is deleted again in the same life
            // (its delete may not have left this device before sync stopped).
            let log = try database.cached(Self.logWriteSQL)
            for key in try RetiredRows.goneSinceRetired(table, in: database) {
                // As it was, values and stamps (a delete changes only its liveness); its hidden copy keeps them.
                guard let (continued, values) = try RetiredRows.gone(key, of: table, database: database) else {
                    continue
                }
                let stamp = clock.tick(physical: try physicalTime())
                try record(key, continued, now: stamp)
                try hide.run([key] + values)
                try logLostRow(key, of: table, log: log)
            }
            try RetiredRows.forget(table.name, in: database)
        }
        try storeClock(clock, version: version, stamped: true)
    }

    /// Parks the rows a table held when sync was enabled on it that cannot show: a child of a missing parent
    /// (written while the app left foreign keys off), a row on a cycle of references, a `SET NULL` child of a
    /// missing parent (which shows NULL there).
    ///
    /// Why: they were recorded as shown, as the table held them, while every other device, deciding from the
    /// registers, parked them; and `check` here found the table and the registers apart.
    private func parkExistingRowsThatCannotShow(of table: SyncedTable, foreignKeys: [ForeignKey]) throws {
        let references = foreignKeys.filter { $0.child == table.name }
        guard !references.isEmpty else { return }
        let referencing = references.map { "\(table.quotedColumns[$0.column]) IS NOT NULL" }
        var keys = try database.query(
            "SELECT \(table.quotedKey) FROM \(table.qualifiedName) WHERE \(referencing.joined(separator: " OR ")) "
                + "ORDER BY \(table.quotedKey)"
        ).map { RowRef(table: table.name, key: $0[0]) }
        guard !keys.isEmpty else { return }
        // Recorded now, after any delete of a parent they name through RESTRICT or NO ACTION: such a parent
        // comes back (a row the app wrote while sync was off, under a parent a peer deleted meanwhile).
        var parents: Set<RowRef> = []
        for key in references where key.action.revivesParent {
            let column = table.quotedColumns[key.column]
            for row in try database.query(
                "SELECT DISTINCT \(column) FROM \(table.qualifiedName) WHERE \(column) IS NOT NULL ORDER BY 1")
            {
                let parent = RowRef(table: key.parent, key: try parentKey(of: row[0], through: key))
                if parents.insert(parent).inserted { keys.append(parent) }
            }
        }
        try withoutCapture {
            let reprojection = Reprojection(replica: self)
            try reprojection.reproject([], retrying: keys)
            let version = try self.version
            let last = try reprojection.renumberMoved(after: version)
            if last != version { try storeClock(try clock, version: last) }
        }
    }

    /// Refuses to enable sync on a table whose rows hold a value one of its counter or union columns
    /// cannot merge, naming the row, before anything is recorded (the transaction then undoes the rest).
    ///
    /// Why: the guard triggers refuse such values as the app writes them, but rows already in the table
    /// never passed them; taken in, the first sync would replace them (a counter's text by 0, a union's
    /// list that is not a JSON array by `[]`) with no error anywhere.
    private func refuseUnmergeableValues(of table: SyncedTable, facts: TableInspector.CaptureFacts) throws {
        let triggers = try captureTriggers(for: table, facts: facts)
        // With both JSON walkers hidden a union column cannot be checked here either: the table is refused
        // for that (``unguardableReason(of:)``) until the app frees one of the names.
        for check in triggers.valueGuards(row: "t") where triggers.walker != nil || table.merges[check.column] != .union
        {
            guard
                let key = try database.scalar(
                    "SELECT t.\(table.quotedKey) FROM \(table.qualifiedName) AS t WHERE \(check.refused) "
                        + "ORDER BY t.\(table.quotedKey) LIMIT 1")
            else { continue }
            let value =
                try database.scalar(
                    "SELECT quote(\(table.quotedColumns[check.column])) FROM \(table.qualifiedName) "
                        + "WHERE \(table.quotedKey) = ?", [key])?.textValue ?? "a value"
            throw ReplicaError.invalidMerge(
                table: table.name, column: table.columns[check.column],
                reason: "the row keyed \(key) holds \(value) (\(check.message)); "
                    + "change the rows that hold such values, or declare another merge, then enable again")
        }
    }

    /// Persists the clock and the local version.
    /// `stamped`: the clock issued stamps of this replica's own writes, which the state then records
    /// (`own`, for telling which of them never left, see ``ConflictRule``).
    func storeClock(_ clock: HybridLogicalClock, version: Int64, stamped: Bool = false) throws {
        try database.execute(
            "UPDATE \(Metadata.state) SET hlc = ?, version = ?" + (stamped ? ", own = ?" : ""),
            [.integer(clock.last.sqliteValue), .integer(version)] + (stamped ? [.integer(clock.last.sqliteValue)] : []))
        try ReadPositions(database: database).record(version)
    }
}
