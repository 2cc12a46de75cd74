import CSQLite

extension Database {
    /// One row of a PRAGMA's result, its values by column name.
    public struct PragmaRow {
        private let values: [String: SQLiteValue]

        init(names: [String], values: [SQLiteValue]) {
            self.values = Dictionary(zip(names, values), uniquingKeysWith: { first, _ in first })
        }

        /// The value of column `name` (NULL for a column the PRAGMA does not have).
        public subscript(_ name: String) -> SQLiteValue { values[name] ?? .null }
        /// The text of column `name`, or `nil`.
        public func text(_ name: String) -> String? { self[name].textValue }
        /// The integer of column `name`, 0 when it is not one.
        public func integer(_ name: String) -> Int64 { self[name].integerValue ?? 0 }
    }

    /// The rows `PRAGMA main.<pragma>('<argument>')` gives, in the PRAGMA's own order.
    ///
    /// Why a PRAGMA statement rather than its table-valued form (`pragma_table_xinfo(name)`): a table, a
    /// view or a TEMP table of the app named `pragma_table_xinfo` takes the function's place, in `main` and
    /// in `temp` alike, and nothing can take a PRAGMA's. A PRAGMA takes no bound parameter, so the argument
    /// is written as a string literal, its quotes doubled.
    ///
    /// ```swift
    /// for column in try database.pragma("table_xinfo", of: "notes") { print(column.text("name") ?? "") }
    /// ```
    public func pragma(_ pragma: String, of argument: String) throws -> [PragmaRow] {
        // Cached, as checks and folds ask the same ones again and again; SQLite runs it again on the schema
        // of the moment.
        let statement = try idle(cached("PRAGMA main.\(pragma)('\(doubling(UInt8(ascii: "'"), in: argument))')"))
        defer { statement.reset() }
        try statement.bind([])
        let names = (0..<statement.columnCount).map(statement.columnName)
        var rows: [PragmaRow] = []
        while try statement.step() { rows.append(PragmaRow(names: names, values: statement.row())) }
        return rows
    }

    /// The `PRAGMA main.table_xinfo` row of `table`'s column `column`, whose name has the same bytes.
    public func columnInfo(_ column: String, of table: String) throws -> PragmaRow? {
        try pragma("table_xinfo", of: table).first {
            $0.text("name").map(SQLiteName.Key.init) == SQLiteName.Key(column)
        }
    }

    /// The rows of `PRAGMA main.foreign_key_list` for `table`, by key (`id`) then column (`seq`): the
    /// PRAGMA itself lists the keys last declared first.
    public func foreignKeyList(of table: String) throws -> [PragmaRow] {
        try pragma("foreign_key_list", of: table).sorted {
            ($0.integer("id"), $0.integer("seq")) < ($1.integer("id"), $1.integer("seq"))
        }
    }
}

extension Database {
    /// The most columns a table or a result set may have on this connection (`SQLITE_LIMIT_COLUMN`, 2,000 by
    /// default).
    var columnLimit: Int { Int(sqlite3_limit(connection.handle, SQLITE_LIMIT_COLUMN, -1)) }

    /// Sets the longest string, blob or row this connection stores (`SQLITE_LIMIT_LENGTH`); returns the
    /// limit it had. For tests that reach the limit without a gigabyte of data.
    @discardableResult
    func setLengthLimit(_ bytes: Int32) -> Int32 { sqlite3_limit(connection.handle, SQLITE_LIMIT_LENGTH, bytes) }
}
