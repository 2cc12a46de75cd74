import CSQLite

extension Database {
    /// Runs `body` with every trigger of this connection switched off, the app's and Concord's.
    ///
    /// Why: a write whose result is already decided elsewhere — a delete merged from a peer — must land
    /// even where a trigger of the app would refuse it (`RAISE(IGNORE)` or `RAISE(ABORT)` in a BEFORE
    /// trigger), or the device would show a row every other device deleted. Switching expires every
    /// prepared statement of the connection twice (off, then on again), so it is for the rare write
    /// such a trigger refused, never the common path. Statements `body` runs compile without trigger
    /// code, so they are prepared afresh and not kept.
    ///
    /// ```swift
    /// try database.withoutTriggers { try database.execute("DELETE FROM main.\"notes\" WHERE id = ?", [key]) }
    /// ```
    func withoutTriggers<T>(_ body: () throws -> T) throws -> T {
        guard concord_sqlite3_enable_triggers(handle, 0) == 0 else {
            throw SQLiteError(connection: handle, code: SQLITE_ERROR, sql: "switching triggers off")
        }
        defer { _ = concord_sqlite3_enable_triggers(handle, 1) }
        return try body()
    }
}
