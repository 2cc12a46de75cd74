extension Replica {
    /// Runs `body` in a transaction during which SQLite enforces no foreign key, so the user tables
    /// may pass through states their foreign keys forbid, as long as the end state is whole.
    ///
    /// Concord decides itself what each table shows; SQLite's own actions
    /// (a cascade fired by hiding a parent) must not second-guess it. Every
    /// public entry point that writes the user tables opens its transaction
    /// here (or through ``withForeignKeyEnforcementOffIfWriting(_:)``), as
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

    /// Runs `body`, which folds and reads, in a transaction that turns foreign-key enforcement off only
    /// if it is going to write the user tables.
    ///
    /// Why: switching enforcement changes how SQLite compiles statements, so
    /// each switch makes every statement of the connection compile again on
    /// its next run — the larger part of a small sync's cost. Most calls of
    /// `status()`, `check()` or `changes(since:)` find nothing to fold, or
    /// only writes of tables with neither foreign keys nor value-merged
    /// columns, and write no user table. The body runs with enforcement as
    /// the app left it; should it reach a write of the user tables anyway
    /// (``withoutCapture(_:)`` is where every such write starts), it stops,
    /// its transaction rolls back, and it runs again with enforcement off.
    ///
    /// ```swift
    /// try withForeignKeyEnforcementOffIfWriting { try foldLocalWrites(); return try self.clock }
    /// ```
    func withForeignKeyEnforcementOffIfWriting<T>(_ body: () throws -> T) throws -> T {
        forgetNodeCache()
        guard !database.inTransaction, !bettingOnNoUserWrites, try foreignKeysEnforced(), try !foldMayWriteUserTables()
        else { return try withoutForeignKeyEnforcement(body) }
        do {
            return try database.transaction {
                bettingOnNoUserWrites = true
                defer { bettingOnNoUserWrites = false }
                return try body()
            }
        } catch is UserWritesNeedForeignKeysOff {
            return try withoutForeignKeyEnforcement(body)
        }
    }

    /// Throws ``UserWritesNeedForeignKeysOff`` when the running operation bet it would not write the user tables.
    func requireForeignKeysOffForUserWrites() throws {
        if bettingOnNoUserWrites { throw UserWritesNeedForeignKeysOff() }
    }

    /// Whether the connection enforces foreign keys now.
    private func foreignKeysEnforced() throws -> Bool {
        try database.enforcesForeignKeys
    }

    /// Whether a fold now may write the user tables: the schema changed since it was checked (adopting a
    /// change may), or the log holds writes of a table with foreign keys or value-merged columns. A guess
    /// made before the transaction: a write landing in between is caught by the bet's check.
    private func foldMayWriteUserTables() throws -> Bool {
        guard let checked = checkedSchema?.version, try database.scalar("PRAGMA schema_version") == .integer(checked)
        else { return true }
        let writing = tables.filter {
            !$0.joinedColumns.isEmpty || !parents(of: $0.name).isEmpty || !children(of: $0.name).isEmpty
        }
        guard !writing.isEmpty else { return false }
        let ids = writing.map { String($0.id) }.joined(separator: ", ")
        return try database.scalar("SELECT EXISTS (SELECT 1 FROM \(Metadata.log) WHERE tbl IN (\(ids)))") == .integer(1)
    }

    /// Runs `body` with foreign-key enforcement off, when no transaction is open (SQLite allows it only then).
    private func withForeignKeysOff<T>(_ body: () throws -> T) throws -> T {
        forgetNodeCache()
        guard !database.inTransaction else { return try body() }
        let enforced = try foreignKeysEnforced()
        if enforced { try database.execute("PRAGMA foreign_keys = OFF") }
        defer { if enforced { try? database.execute("PRAGMA foreign_keys = ON") } }
        return try body()
    }
}

/// Stops an operation that bet it would not write the user tables as it is about to (see
/// ``Replica/withForeignKeyEnforcementOffIfWriting(_:)``); it never reaches the caller.
struct UserWritesNeedForeignKeysOff: Error {}
