extension Replica {
    /// Follows additive schema changes of the synced tables, and refuses the destructive ones table by table.
    ///
    /// Apps migrate their tables with plain SQL; Concord notices at its next
    /// fold (and so at every export, apply, status and check), in the same
    /// transaction. Columns appended to a synced table (nullable, or with a
    /// DEFAULT) join the metadata with no register until someone writes them,
    /// and the capture triggers are made again to capture them; a table rebuilt
    /// by a migration tool (create, copy, drop, rename) gets its triggers back
    /// and is reconciled. A dropped, renamed or reordered column, a dropped or
    /// renamed table or another key stop *that* table (see ``schemaRefusals``),
    /// and the synced tables foreign keys tie to it: their writes wait in the
    /// capture log, their rows are neither exported nor merged, and undoing the
    /// change resumes them.
    ///
    /// It costs one `PRAGMA schema_version` per call while nothing changed.
    /// When that number moved — Concord's own suspending and resuming of
    /// capture moves it too, and a rolled-back transaction moves it back —
    /// a fingerprint of the whole schema (one query) tells whether anything
    /// really differs from the schema last checked; only then are the tables
    /// inspected. The first check after opening skips the inspection too when
    /// the process already found nothing in the same schema with the same
    /// declarations (``InspectionStore``): what it finds follows from that text alone.
    func checkSchemas() throws {
        guard !isAdoptingSchemas else { return }
        let version = try database.scalar("PRAGMA schema_version")?.integerValue
        if version != nil && version == checkedSchema?.version { return }
        let fingerprint = try schemaFingerprint()
        guard fingerprint != checkedSchema?.fingerprint else {
            checkedSchema = (version, fingerprint)
            return
        }
        // The first check since the tables were read (on opening, after enabling sync): when the process
        // already checked this very schema and these declarations and found nothing, it would again.
        let clean = InspectionStore.CleanKey(schema: fingerprint, tables: tables)
        if checkedSchema == nil, InspectionStore.shared.isClean(clean) {
            refusedTables = [:]
            checkedSchema = (version, fingerprint)
            return
        }
        // Adopting a change may write the user tables.
        try requireForeignKeysOffForUserWrites()
        isAdoptingSchemas = true
        defer { isAdoptingSchemas = false }
        let changed = try inspectSchemas()
        // A table refused now keeps no catch trigger (see ``prepareCatchTriggers(creating:)``).
        try prepareCatchTriggers(creating: false)
        if changed {
            checkedSchema = (try database.scalar("PRAGMA schema_version")?.integerValue, try schemaFingerprint())
        } else {
            checkedSchema = (version, fingerprint)
            if refusedTables.isEmpty, clean == InspectionStore.CleanKey(schema: fingerprint, tables: tables) {
                InspectionStore.shared.storeClean(clean)
            }
        }
    }

    /// Forgets the last check, so the next one inspects every table (after sync is enabled on one).
    func forgetSchemaCheck() { checkedSchema = nil }

    /// Reads the synced tables' declarations again unless this replica checked the file's schema as it is
    /// now (another process may have enabled a table or migrated one since); adopts nothing, writes nothing.
    ///
    /// Why: ``tables`` is what this replica read when it last looked, and every fold, export, apply or
    /// check looks first; a simulated device's second process reads ``tables`` before it does any of them.
    /// The next look inspects every table, as it would have.
    ///
    /// ```swift
    /// try replica.readTablesIfSchemaChanged()
    /// let columns = replica.tables.map(\.columns)
    /// ```
    @_spi(Simulation) public func readTablesIfSchemaChanged() throws {
        let version = try database.scalar("PRAGMA schema_version")?.integerValue
        if let checked = checkedSchema, version == checked.version { return }
        try loadSyncedTables()
    }

    /// The synced tables that do not sync now because their schema changed destructively, in name order.
    ///
    /// Each is a ``ReplicaError/schemaChanged(table:change:fix:)`` naming the
    /// table, the change and the fix, or a
    /// ``ReplicaError/tiedToRefusedTable(table:refused:)`` for a table foreign
    /// keys tie to one. Every other table keeps syncing; the
    /// refused table's captured writes wait in the capture log, its rows are
    /// left out of exports and held back from applies (the peer's read
    /// position then stays where it was, so the next sync brings them again).
    /// The list is what the last fold, export, apply, status or check found;
    /// the `concord` tool prints it and exits 1 after doing the rest.
    ///
    /// ```swift
    /// let changes = try replica.changes(since: 0)        // the other tables' rows
    /// for refusal in replica.schemaRefusals { print(refusal) }
    /// ```
    public var schemaRefusals: [ReplicaError] {
        refusedTables.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.compactMap { refusedTables[$0] }
    }

    /// Whether the table named `name` is refused for a destructive schema change.
    /// (No hashing while nothing is refused: the fold asks for every write.)
    func isRefused(_ name: String) -> Bool { !refusedTables.isEmpty && refusedTables[name] != nil }

    /// Every object's type, names and SQL, in `main` and then in `temp` (a temporary table of the same name
    /// hides a synced table from the pragmas that inspect it), in the order the schema tables hold them:
    /// unsorted, since sorting the schema's text cost more than reading it, and the same schema reads the
    /// same (a reordered one is only inspected again).
    ///
    /// Compared byte for byte (a `String` takes `Å` and `Å`, two different names to SQLite, for one).
    private func schemaFingerprint() throws -> SQLiteName.Key {
        SQLiteName.Key(
            try database.scalar(
                """
                SELECT ifnull((SELECT group_concat(type || char(1) || name || char(1) || tbl_name || char(1) || ifnull(sql, ''), char(2))
                    FROM main.sqlite_schema), '') || char(3)
                  || ifnull((SELECT group_concat(type || char(1) || name || char(1) || tbl_name || char(1) || ifnull(sql, ''), char(2))
                    FROM temp.sqlite_schema), '')
                """)?.textValue ?? "")
    }

    /// Compares every synced table with its declaration; refuses the destructive changes first (so the
    /// folds adoption runs keep their writes), then adopts the rest. Returns whether anything was adopted.
    private func inspectSchemas() throws -> Bool {
        // The metadata may have been rolled back since it was last read.
        try loadSyncedTables()
        var refused: [String: ReplicaError] = [:]
        var adopt: [(SyncedTable, SchemaChange)] = []
        var guarded: [SyncedTable] = []
        for table in tables {
            let change = try schemaChange(of: table)
            if case .destructive(let what, let fix) = change.kind {
                refused[table.name] = .schemaChanged(table: table.name, change: what, fix: fix)
            } else if let (reason, fix) = try unguardableReason(of: table) {
                // Its guards refuse the writes they cannot check (renewed below); what it wrote before waits.
                refused[table.name] = .schemaChanged(table: table.name, change: reason, fix: fix)
                guarded.append(table)
            } else if change.needsAdoption, let refusal = try unsyncableForeignKey(of: table, after: change) {
                refused[table.name] = refusal
            } else if change.needsAdoption, let refusal = try relayedCounterWithABase(of: table, after: change) {
                refused[table.name] = refusal
            } else if change.needsAdoption {
                adopt.append((table, change))
            } else {
                guarded.append(table)
            }
        }
        refusedTables = refusingTiedTables(refused)
        adopt.removeAll { isRefused($0.0.name) }
        // Guards whose JSON function the app's new table or view hides are made again (adopting makes all anew).
        var renewed = false
        for table in guarded where try renewValueGuards(of: table) { renewed = true }
        for table in guarded where try renewInPlaceWriteGuard(of: table) { renewed = true }
        guard !adopt.isEmpty else { return renewed }
        // Decided outside a transaction (an apply checks before its own): decided again under the write lock,
        // as another process that reached the file at the same moment may have adopted the change meanwhile
        // (the second failed on "duplicate column name" adding the same metadata column again).
        if !database.inTransaction { return try withoutForeignKeyEnforcement { try inspectSchemas() } || renewed }
        try withoutForeignKeyEnforcement {
            for (table, change) in adopt { try self.adopt(change, of: table) }
        }
        return true
    }

    /// `refused`, plus every synced table a foreign key ties to one of them, directly or through other
    /// synced tables, as child or as parent (``ReplicaError/tiedToRefusedTable(table:refused:)``).
    ///
    /// Why: a refused table's rows are neither merged nor exported, so a table tied to it that went on
    /// syncing would merge children whose parents are held back, or a parent's delete whose children's
    /// deletes are: rows that name rows this device does not show, which `PRAGMA foreign_key_check`
    /// reports. Waiting together, both sides' writes are kept and sync as one once the change is undone.
    ///
    /// ```swift
    /// refusingTiedTables(["boards": refusal])  // ["boards": refusal, "cards": .tiedToRefusedTable(...)]
    /// ```
    private func refusingTiedTables(_ refused: [String: ReplicaError]) -> [String: ReplicaError] {
        var result = refused
        // Breadth first from each refused table, in name order, so a table tied to two names the first.
        var queue = refused.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { ($0, $0) }
        var next = 0
        while next < queue.count {
            let (name, origin) = queue[next]
            next += 1
            let tied = parents(of: name).map(\.parent) + children(of: name).map(\.child)
            for other in tied where result[other] == nil && syncedTables[other] != nil {
                result[other] = .tiedToRefusedTable(table: other, refused: origin)
                queue.append((other, origin))
            }
        }
        return result
    }

    /// Why `table` cannot sync once `change` is adopted because a new column that peers merge as a counter
    /// has a DEFAULT other than 0 here (see ``refuseCountersWithABase(_:of:merges:)``); `nil` when it can.
    private func relayedCounterWithABase(of table: SyncedTable, after change: SchemaChange) throws -> ReplicaError? {
        guard case .additive(let new) = change.kind else { return nil }
        do {
            try refuseCountersWithABase(new, of: table, merges: relayedMerges(of: table, new))
            return nil
        } catch ReplicaError.unsupportedTable(let name, let reason, _) {
            return .schemaChanged(
                table: name,
                change: reason.replacing(
                    "is declared a counter with DEFAULT ",
                    with: "is a counter on the devices that added it first, "
                        + "and its DEFAULT here is "),
                fix: SchemaChange.fix(name, "drop the column and add it again with DEFAULT 0, where a counter starts"))
        }
    }

    /// Why `table` cannot sync once `change` is adopted — a foreign key its migration added onto a table that
    /// does not sync, or one Concord cannot follow — or `nil` when it can. The table then waits, nothing lost,
    /// until the fix (typically: enable sync on the parent table; the new column is then picked up).
    private func unsyncableForeignKey(of table: SyncedTable, after change: SchemaChange) throws -> ReplicaError? {
        var columns = table.columns
        if case .additive(let new) = change.kind { columns += new.map(\.name) }
        let adopted = SyncedTable(
            name: table.name, key: table.key, columns: columns, policy: table.policy,
            merges: table.merges + Array(repeating: .lww, count: columns.count - table.columns.count))
        do {
            _ = try TableInspector(database).foreignKeys(of: adopted, synced: syncedTables, refusingCycles: true)
            return nil
        } catch ReplicaError.unsupportedTable(_, let reason, let fix) {
            return .schemaChanged(
                table: table.name, change: reason,
                fix: fix + "; Concord then picks the change up by itself, and the writes made meanwhile sync")
        }
    }

    /// How `table`'s live schema differs from its declaration.
    func schemaChange(of table: SyncedTable) throws -> SchemaChange {
        try SchemaChange.of(table, in: database, triggersMissing: !hasCaptureTriggers(table))
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
