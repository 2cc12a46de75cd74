extension Database {
    /// `value` as a column of `affinity` stores it, by SQLite's own rules.
    ///
    /// Asked only for values ``ColumnAffinity/mayConvert(_:)`` says could
    /// change: a one-row temporary table with a column of each affinity takes
    /// the value and hands back what it stored (`UPDATE … RETURNING`), so the
    /// answer is SQLite's, down to how it prints a REAL into a TEXT column.
    func stored(_ value: SQLiteValue, as affinity: ColumnAffinity) throws -> SQLiteValue {
        guard affinity.mayConvert(value) else { return value }
        try makeAffinityTable()
        let column = affinity.rawValue.lowercased()
        let stored =
            try cached("UPDATE temp._concord_affinity SET \(column) = ? RETURNING \(column)").all([value]).first?.first
            ?? value
        // A REAL column keeps an integral value as an integer on disk and reads it as a REAL, which
        // RETURNING does not.
        if affinity == .real, case .integer(let integer) = stored { return .real(Double(integer)) }
        return stored
    }

    /// Makes the one-row temporary table ``stored(_:as:)`` converts values in, when the connection lacks it.
    ///
    /// Made once per connection, when a replica opens, outside any transaction: made inside one (an apply's)
    /// it went again whenever that transaction rolled back (an apply that changed nothing does), and making
    /// it again, a change of the schema, made every prepared statement of the connection compile again
    /// (in the simulator's `batched-wide` runs, 2.7% of all instructions, a third of their re-prepares). (Both
    /// statements stay prepared: merges, checks and foreign-key lookups ask for every value that may
    /// convert, and a kept statement re-prepares itself once the table is made again.)
    func makeAffinityTable() throws {
        guard
            try cached("SELECT count(*) FROM temp.sqlite_schema WHERE name = '_concord_affinity'").all()
                == [[.integer(0)]]
        else { return }
        try execute(
            """
            CREATE TEMP TABLE _concord_affinity (text TEXT, numeric NUMERIC, integer INTEGER, real REAL);
            INSERT INTO temp._concord_affinity VALUES (NULL, NULL, NULL, NULL);
            """)
    }

    /// What a column's DEFAULT clause (`sql`, as `PRAGMA table_xinfo` gives it) evaluates to now, as a
    /// column of `affinity` stores it; `nil` when it cannot be evaluated on its own.
    func evaluatedDefault(_ sql: String, as affinity: ColumnAffinity?) throws -> SQLiteValue? {
        guard let value = try? scalar("SELECT (\(sql))") else { return nil }
        guard let affinity else { return value }
        return try stored(value, as: affinity)
    }
}

extension Database {
    /// Whether `shown` is what a rebuilt table's column of `affinity` holds when its rows were copied from
    /// a column, of whatever type, that held `written` as its own type converted it.
    ///
    /// Why: the registers keep a value as its writer wrote it (`'007'`), an old `INTEGER` column showed
    /// `7`, and a rebuild to `TEXT` copies that as `'7'`: a copy, not the app's write, and the row shows
    /// `'007'` again. A value the app wrote that is equal to such a copy cannot be told from one.
    func isCopy(_ shown: SQLiteValue, of written: SQLiteValue, as affinity: ColumnAffinity) throws -> Bool {
        if shown == written { return true }
        for old in [ColumnAffinity.integer, .real, .numeric, .text] where old.mayConvert(written) {
            if try stored(stored(written, as: old), as: affinity) == shown { return true }
        }
        return false
    }
}

extension RegisterStore {
    /// The columns whose value this replica's table would store as another value, each with the value it
    /// stores (SQLite's answer, see ``Database/stored(_:as:)``).
    ///
    /// Why: a column's declared type is the app's, and devices on different versions of the app declare
    /// it differently (an `INTEGER` zip code made `TEXT` by a table rebuild). The registers keep every
    /// value as its writer wrote it, so that each device relays and merges the same value under the same
    /// stamp; the table shows what its own column makes of it, and the row keeps the written values in
    /// its hidden copy, as it does behind a foreign key's stand-in. Stored as the column stores it, `'007'`
    /// would come back as `7` from an `INTEGER` column, and the writer's own device would take that for
    /// the same write with another value.
    ///
    /// ```swift
    /// try store.conversions(of: [.text("007"), .text("x")])   // [0: .integer(7)] in (INTEGER, TEXT)
    /// ```
    func conversions(of values: [SQLiteValue]) throws -> [Int: SQLiteValue] {
        guard let affinities else { return [:] }
        var result: [Int: SQLiteValue] = [:]
        for (index, value) in values.enumerated()
        where index < affinities.count && affinities[index].mayConvert(value) {
            let stored = try database.stored(value, as: affinities[index])
            if stored != value { result[index] = stored }
        }
        return result
    }

    /// The value as written of what a shown row's `column` shows (`shown`): the one its hidden copy keeps
    /// when its column converted that, or `shown` itself.
    ///
    /// Why: a local write of a value-merged column joins with what the register held, and the capture
    /// log has only what the table showed (`9` in an `INTEGER` column, for the `'9'` a peer wrote).
    func written(_ key: SQLiteValue, column: Int, shown: SQLiteValue) throws -> SQLiteValue {
        guard let affinity = affinities?[column], affinity != .blob, !shown.isNull else { return shown }
        let kept = try database.cached("SELECT \(table.hiddenColumns[column]) FROM \(table.hiddenTable) WHERE pk = ?")
            .all([key]).first?.first
        guard let kept, kept != shown, try database.stored(kept, as: affinity) == shown else { return shown }
        return kept
    }

    /// What a shown row's columns show in place of its registers' values: the stand-ins visibility
    /// gave (`standIns`), and the values its table's columns convert. A row with any keeps its
    /// registers' values in its hidden copy.
    func shownOverrides(of values: [SQLiteValue], standIns: [Int: SQLiteValue]) throws -> [Int: SQLiteValue] {
        try conversions(of: values).merging(standIns) { _, standIn in standIn }
    }
}
