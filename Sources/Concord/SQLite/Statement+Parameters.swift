import CSQLite

extension Statement {
    /// Binds a statement's parameters one after another, then runs it.
    ///
    /// Why: apply writes every merged row through the same few statements,
    /// and building an array of values per row only to bind it costs more
    /// than the binding itself. Every parameter must be bound before `run()`.
    ///
    /// ```swift
    /// var insert = try Statement.Parameters(database.prepare("INSERT INTO t (a, b) VALUES (?, ?)"))
    /// try insert.bind(.integer(1))
    /// try insert.bind(.text("one"))
    /// try insert.run()
    /// ```
    struct Parameters {
        let statement: Statement
        private var bound: Int32 = 0

        /// Starts binding `statement` from its first parameter.
        init(_ statement: Statement) throws {
            statement.reset()
            try statement.settleSilencing()
            self.statement = statement
        }

        /// Binds `value` to the next parameter.
        mutating func bind(_ value: SQLiteValue) throws {
            bound += 1
            try statement.bind(value, at: bound)
        }

        /// Runs the statement to completion, ignoring any rows, and resets it.
        func run() throws {
            precondition(
                bound == sqlite3_bind_parameter_count(statement.handle),
                "bound \(bound) parameters of \(statement.sql)")
            defer { statement.reset() }
            while try statement.step() {}
        }
    }
}
