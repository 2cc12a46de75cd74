extension Replica {
    /// Makes the TEMP triggers that catch the rows an app trigger deletes while Concord merges, where the
    /// preupdate hook does not (``DeletedRowCatcher/usesHook``): one per synced table whose rows the catch
    /// reads whole, handing each deleted row to the catcher while armed
    /// (``DeletedRowCatcher/installTriggerFunctions(on:)``). Called as each merge starts, since the app's
    /// migrations drop and change tables: triggers that match are left alone. Without `creating` (as the
    /// synced tables are read again, and schemas checked), it only drops those that do not match.
    ///
    /// Why TEMP: they live on this connection alone, so no other client's deletes pay for them, and they
    /// change nothing in the file. Why armed: the app's own deletes on this connection fire them too. Why
    /// dropped early: a trigger naming a column keeps SQLite from dropping it (`ALTER TABLE ... DROP
    /// COLUMN`), as the capture triggers do for synced columns; a table that stopped syncing, or whose
    /// columns changed, must not keep one for the app to trip on.
    ///
    /// ```swift
    /// try prepareCatchTriggers()
    /// // CREATE TEMP TRIGGER "_concord_1_catch" AFTER DELETE ON main."notes" WHEN _concord_catching()
    /// // BEGIN SELECT _concord_catch('notes', 0, OLD."id", OLD."body"); END
    /// ```
    func prepareCatchTriggers(creating: Bool = true) throws {
        guard !database.connection.silencer.catcher.usesHook else { return }
        // Neither schema changed, and the triggers are there: they still hold (most merges).
        if creating, let made = catchTriggersMadeFor, try catchSchemaVersions() == made { return }
        catchTriggersMadeFor = nil
        var wanted: [String: String] = [:]
        for table in tables where !isRefused(table.name) {
            guard try caughtPositions(of: table) != nil else { continue }
            let names = try database.pragma("table_xinfo", of: table.name).map { $0.text("name") ?? "" }
            let trigger = Metadata.object(table.id, "catch")
            let calls = stride(from: 0, to: names.count, by: DeletedRowCatcher.valuesPerCall).map { offset in
                let part = names[offset..<min(offset + DeletedRowCatcher.valuesPerCall, names.count)]
                return "\(DeletedRowCatcher.catchFunction)("
                    + ([sqlLiteral(table.name), "\(offset)"] + part.map { "OLD." + quoteIdentifier($0) })
                    .joined(separator: ", ") + ")"
            }
            wanted[trigger] =
                "CREATE TRIGGER \(quoteIdentifier(trigger)) AFTER DELETE ON main.\(quoteIdentifier(table.name)) "
                + "WHEN \(DeletedRowCatcher.armedFunction)() BEGIN SELECT \(calls.joined(separator: ", ")); END"
        }
        var held: [String: String] = [:]
        for row in try database.query("SELECT name, sql FROM temp.sqlite_schema WHERE type = 'trigger'") {
            if let name = row[0].textValue, name.hasPrefix(Metadata.prefix), name.hasSuffix("_catch") {
                held[name] = row[1].textValue ?? ""
            }
        }
        for name in held.keys.sorted() where wanted[name] != held[name] {
            try database.execute("DROP TRIGGER temp.\(quoteIdentifier(name))")
        }
        guard creating else { return }
        for (name, sql) in wanted.sorted(by: { $0.key < $1.key }) where held[name] != sql {
            try database.execute("CREATE TEMP \(sql.dropFirst("CREATE ".count))")
        }
        catchTriggersMadeFor = try catchSchemaVersions()
    }

    /// The schema versions of `main` and `temp`, and how many catch triggers there are: what the triggers
    /// depend on. (A rolled-back transaction takes triggers made in it away and the version back.)
    private func catchSchemaVersions() throws -> [Int64?] {
        try [
            "PRAGMA main.schema_version", "PRAGMA temp.schema_version",
            "SELECT count(*) FROM temp.sqlite_schema WHERE type = 'trigger' AND name GLOB '_concord_*_catch'",
        ].map { try database.scalar($0)?.integerValue }
    }
}
