import CSQLite

extension Database {
    /// Opens a TEXT or BLOB value of the main schema's `table` in place, as incremental BLOB I/O
    /// (`sqlite3_blob_open`) does, closes it at once, and throws SQLite's refusal when it has one.
    ///
    /// Why: an app that writes values in place goes around every trigger; tests check that a synced
    /// column refuses to open for writing (see `CaptureTriggers.inPlaceWriteGuardSQL`), while reading in
    /// place still works.
    ///
    /// ```swift
    /// try database.openInPlace(table: "files", column: "data", rowid: 1, forWriting: true)
    /// // SQLite error 1: cannot open indexed column for writing
    /// ```
    @_spi(Testing) public func openInPlace(table: String, column: String, rowid: Int64, forWriting: Bool) throws {
        var blob: OpaquePointer?
        let code = sqlite3_blob_open(handle, "main", table, column, rowid, forWriting ? 1 : 0, &blob)
        defer { sqlite3_blob_close(blob) }
        guard code == SQLITE_OK else {
            throw SQLiteError(connection: handle, code: code, sql: "sqlite3_blob_open \(table).\(column)")
        }
    }
}
