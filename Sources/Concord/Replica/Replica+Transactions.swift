extension Replica {
    /// Runs `body` in a transaction during which SQLite enforces no foreign key, so the user tables
    /// may pass through states their foreign keys forbid, as long as the end state is whole.
    ///
    /// Concord decides itself what each table shows; SQLite's own actions
    /// (a cascade fired by hiding a parent) must not second-guess it. Every
    /// public entry point that folds or merges opens its transaction here, as
    /// SQLite can switch foreign keys off only outside one; called inside a
    /// transaction the app opened with foreign keys on, hiding a parent that
    /// has a RESTRICT child shown may still be refused.
    func withoutForeignKeyEnforcement<T>(_ body: () throws -> T) throws -> T {
        try withForeignKeysOff { try database.transaction(body) }
    }

    /// The same for a body that decides whether its transaction commits or rolls back (see
    /// ``Database/tentativeTransaction(_:)``): an apply that changed nothing leaves the file as it was.
    func tentativelyWithoutForeignKeyEnforcement(_ body: () throws -> Database.TransactionEnd) throws {
        try withForeignKeysOff { try database.tentativeTransaction(body) }
    }

    /// Runs `body` with foreign-key enforcement off, when no transaction is open (SQLite allows it only then).
    private func withForeignKeysOff<T>(_ body: () throws -> T) throws -> T {
        guard !database.inTransaction else { return try body() }
        let enforced = try database.scalar("PRAGMA foreign_keys") == .integer(1)
        if enforced { try database.execute("PRAGMA foreign_keys = OFF") }
        defer { if enforced { try? database.execute("PRAGMA foreign_keys = ON") } }
        return try body()
    }
}
