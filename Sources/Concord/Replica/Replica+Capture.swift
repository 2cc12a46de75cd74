extension Replica {
    /// Runs `body` with the capture triggers silenced on this replica's connection, so that the writes
    /// Concord makes while merging are not captured as local writes.
    ///
    /// Every other connection goes on capturing, and so does this one outside
    /// `body`: the triggers stay in the schema, and the statements compiled
    /// while silencing simply leave their log writes out (see
    /// ``TriggerSilencer``). Nothing changes the schema, so no connection's
    /// statements need compiling again after a merge, and the app's writes
    /// test no condition.
    ///
    /// The app's own triggers still fire on what Concord writes, but their
    /// inserts and updates of synced tables are left out too: the merged row
    /// already holds what those triggers made on the device that wrote it
    /// (an `updated_at` it touched, a count it kept in another synced table,
    /// an activity row it added, each captured and synced there), and making
    /// them again here would change this device's rows alone, uncaptured — or,
    /// captured, send the change back to be made again there, without end.
    /// Their writes to tables that do not sync (an FTS index, an audit log)
    /// are made, so what the app derives locally follows merged rows. A
    /// trigger's delete of synced rows cannot be left out (SQLite codes a
    /// delete whatever its authorizer answers): once `body` is done, the
    /// tables such a delete ran on are looked at, in the same transaction, and
    /// each row it took is logged as this device's delete, for the next fold
    /// to stamp (see ``logRowsDeletedWhileSilencing()``).
    ///
    /// ```swift
    /// try replica.withoutCapture { try reprojection.reproject(rows) }
    /// ```
    func withoutCapture<T>(_ body: () throws -> T) throws -> T {
        precondition(database.inTransaction, "capture is silenced only inside a transaction")
        try requireForeignKeysOffForUserWrites()
        // Rows caught by a body that threw went with its writes.
        defer { forgetCaughtRows() }
        try prepareCatchTriggers()
        let result = try database.connection.silencer.silencing(body)
        try logRowsDeletedWhileSilencing()
        return result
    }
}
