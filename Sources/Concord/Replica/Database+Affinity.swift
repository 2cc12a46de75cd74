extension Database {
    /// `value` as a column of `affinity` stores it, by SQLite's own rules.
    ///
    /// Asked only for values ``ColumnAffinity/mayConvert(_:)`` says could
    /// change: a one-row temporary table with a column of each affinity takes
    /// the value and hands back what it stored (`UPDATE … RETURNING`), so the
    /// answer is SQLite's, down to how it prints a REAL into a TEXT column.
    func stored(_ value: SQLiteValue, as affinity: ColumnAffinity) throws -> SQLiteValue {
        guard affinity.mayConvert(value) else { return value }
        // Made once per connection; a rolled-back transaction that made it takes it away again.
        if try scalar("SELECT count(*) FROM temp.sqlite_schema WHERE name = '_concord_affinity'")
            == .integer(0)
        {
            try execute(
                """
                CREATE TEMP TABLE _concord_affinity (text TEXT, numeric NUMERIC, integer INTEGER, real REAL);
                INSERT INTO temp._concord_affinity VALUES (NULL, NULL, NULL, NULL);
                """)
        }
        let column = affinity.rawValue.lowercased()
        return try scalar("UPDATE temp._concord_affinity SET \(column) = ? RETURNING \(column)", [value])
            ?? value
    }

    /// What a column's DEFAULT clause (`sql`, as `PRAGMA table_xinfo` gives it) evaluates to now, as a
    /// column of `affinity` stores it; `nil` when it cannot be evaluated on its own.
    func evaluatedDefault(_ sql: String, as affinity: ColumnAffinity?) throws -> SQLiteValue? {
        guard let value = try? scalar("SELECT (\(sql))") else { return nil }
        guard let affinity else { return value }
        return try stored(value, as: affinity)
    }
}

extension RegisterStore {
    /// The registers with every value as this replica's table stores it (see ``Database/stored(_:as:)``).
    ///
    /// A peer whose column has another type, or a hostile one, may send `0.0`
    /// for a column that keeps `0`: merged as sent, the register would differ
    /// from the table the moment it is shown, and every later merge of the same
    /// register would find a change.
    func conform(_ registers: RowRegisters) throws -> RowRegisters {
        guard let affinities else { return registers }
        var result = registers
        for (index, column) in registers.columns.enumerated() {
            guard let column, index < affinities.count, affinities[index].mayConvert(column.value) else { continue }
            result.columns[index]?.value = try database.stored(column.value, as: affinities[index])
        }
        return result
    }
}
