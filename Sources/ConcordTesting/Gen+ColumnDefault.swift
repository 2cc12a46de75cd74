extension Gen where Value == String? {
    /// A column's DEFAULT clause, as written after `DEFAULT`, or `nil` for none.
    ///
    /// Why: a DEFAULT that gives another value each time it is evaluated
    /// (`CURRENT_TIMESTAMP`, `(random())`) gives each device its own value in
    /// rows no write has set the column in: rows from a device whose schema
    /// lacks the column, or copied by the migration that rebuilt the table to
    /// add it. A sync engine that evaluates it on each device shows different
    /// values for one row for good, with every register equal. So this
    /// generator gives those beside the literals SQLite's `ADD COLUMN` also
    /// accepts, and an expression that is constant but not a literal.
    ///
    /// Shrinks toward no DEFAULT, then the literals.
    ///
    /// ```swift
    /// let clause = Gen.columnDefault.generate(using: &source)   // e.g. "CURRENT_TIMESTAMP"
    /// let sql = "c TEXT" + (clause.map { " DEFAULT \($0)" } ?? "")
    /// ```
    public static var columnDefault: Gen<String?> {
        element(of: [
            nil, "0", "'x'", "NULL", "-1.5", "X'00'", "CURRENT_TIMESTAMP", "CURRENT_DATE", "(hex(randomblob(4)))",
            "(random())", "(strftime('%s', 'now'))", "('a' || 'b')",
        ])
    }

    /// Whether SQLite's `ALTER TABLE … ADD COLUMN` accepts `clause` as a new column's DEFAULT: a literal or
    /// none (it refuses the current time and any expression in parentheses). A column with another
    /// DEFAULT can only be added by rebuilding the table.
    public static func addableDefault(_ clause: String?) -> Bool {
        guard let clause else { return true }
        return !clause.hasPrefix("(") && !clause.uppercased().hasPrefix("CURRENT_")
    }
}
