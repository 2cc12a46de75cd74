extension Replica {
    /// The TEMP table whose one row says whether the catch triggers copy what they see (see
    /// ``prepareCatchTriggers()``).
    static let catchingFlag = Metadata.prefix + "catching"

    /// Makes the TEMP triggers that catch the rows an app trigger deletes while Concord merges, where the
    /// preupdate hook does not (``DeletedRowCatcher/usesHook``): one per synced table whose rows the catch
    /// reads whole, copying each deleted row into a TEMP table of its own while armed. Called as each merge
    /// starts, since the app's migrations drop and change tables: triggers that match are left alone.
    /// Without `creating` (as the synced tables are read again), it only drops those that do not match.
    ///
    /// Why TEMP: they live on this connection alone, so no other client's deletes pay for them, and they
    /// change nothing in the file. Why armed: the app's own deletes on this connection fire them too. Why
    /// dropped early: a trigger naming a column keeps SQLite from dropping it (`ALTER TABLE ... DROP
    /// COLUMN`), as the capture triggers do for synced columns; a table that stopped syncing, or whose
    /// columns changed, must not keep one for the app to trip on.
    ///
    /// ```swift
    /// try prepareCatchTriggers()   // CREATE TEMP TRIGGER "_concord_1_catch" AFTER DELETE ON main."notes" ...
    /// ```
    func prepareCatchTriggers(creating: Bool = true) throws {
        guard !database.connection.silencer.catcher.usesHook else { return }
        // Neither schema changed since the triggers were made: they still hold (most merges).
        if creating, let made = catchTriggersMadeFor, try catchSchemaVersions() == made { return }
        catchTriggersMadeFor = nil
        var wanted: [(trigger: String, table: SyncedTable, columns: Int, sql: String)] = []
        for table in tables where !isRefused(table.name) {
            guard let names = try catchColumns(of: table) else { continue }
            let trigger = Metadata.object(table.id, "catch")
            let sql =
                "CREATE TRIGGER \(quoteIdentifier(trigger)) AFTER DELETE ON main.\(quoteIdentifier(table.name)) "
                + "WHEN (SELECT armed FROM \(quoteIdentifier(Self.catchingFlag))) BEGIN INSERT INTO "
                + "\(quoteIdentifier(Metadata.object(table.id, "caught"))) VALUES ("
                + names.map { "OLD." + quoteIdentifier($0) }.joined(separator: ", ") + "); END"
            wanted.append((trigger, table, names.count, sql))
        }
        var held: [String: String] = [:]
        for row in try database.query("SELECT name, sql FROM temp.sqlite_schema WHERE type = 'trigger'") {
            if let name = row[0].textValue, name.hasPrefix(Metadata.prefix), name.hasSuffix("_catch") {
                held[name] = row[1].textValue ?? ""
            }
        }
        let wantedSQL = Dictionary(uniqueKeysWithValues: wanted.map { ($0.trigger, $0.sql) })
        for name in held.keys.sorted() where wantedSQL[name] != held[name] {
            try database.execute("DROP TRIGGER temp.\(quoteIdentifier(name))")
        }
        guard creating else {
            catchTriggerTables = wanted.filter { held[$0.trigger] == $0.sql }.map {
                ($0.table.name, Metadata.object($0.table.id, "caught"))
            }
            return
        }
        let flag = quoteIdentifier(Self.catchingFlag)
        for made in wanted where held[made.trigger] != made.sql {
            let caught = quoteIdentifier(Metadata.object(made.table.id, "caught"))
            try database.execute(
                """
                CREATE TEMP TABLE IF NOT EXISTS \(flag) (armed INTEGER NOT NULL);
                INSERT INTO temp.\(flag) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM temp.\(flag));
                DROP TABLE IF EXISTS temp.\(caught);
                CREATE TEMP TABLE \(caught) (\((0..<made.columns).map { "c\($0)" }.joined(separator: ", ")));
                CREATE TEMP \(made.sql.dropFirst("CREATE ".count));
                """)
        }
        catchTriggerTables = wanted.map { ($0.table.name, Metadata.object($0.table.id, "caught")) }
        catchTriggersMadeFor = try catchSchemaVersions()
    }

    /// The schema versions of `main` and `temp`: what the catch triggers depend on.
    private func catchSchemaVersions() throws -> [Int64?] {
        [
            try database.cached("PRAGMA main.schema_version").all().first?.first?.integerValue,
            try database.cached("PRAGMA temp.schema_version").all().first?.first?.integerValue,
        ]
    }

    /// Arms or disarms the catch triggers (around a step of a merge statement that may fire an app delete).
    func armCatchTriggers(_ armed: Bool) throws {
        guard !catchTriggerTables.isEmpty else { return }
        try database.cached("UPDATE temp.\(quoteIdentifier(Self.catchingFlag)) SET armed = ?").run([
            .integer(armed ? 1 : 0)
        ])
    }

    /// The rows the catch triggers copied, by table, each in the order deleted; empties their tables.
    func takeRowsTriggersCaught() throws -> [DeletedRowCatcher.CaughtRow] {
        var rows: [DeletedRowCatcher.CaughtRow] = []
        for (table, caught) in catchTriggerTables {
            let found = try database.cached("SELECT * FROM temp.\(quoteIdentifier(caught)) ORDER BY rowid").all()
            guard !found.isEmpty else { continue }
            rows += found.map { DeletedRowCatcher.CaughtRow(table: table, values: $0) }
            try database.cached("DELETE FROM temp.\(quoteIdentifier(caught))").run()
        }
        return rows
    }

    /// The names of `table`'s columns in its order, when the catch reads its rows whole (as
    /// ``caughtPositions(of:)`` does); `nil` otherwise.
    private func catchColumns(of table: SyncedTable) throws -> [String]? {
        guard try caughtPositions(of: table) != nil else { return nil }
        return try database.pragma("table_xinfo", of: table.name).map { $0.text("name") ?? "" }
    }
}
