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
    /// ```swift
    /// try replica.withoutCapture { try reprojection.reproject(rows) }
    /// ```
    func withoutCapture<T>(_ body: () throws -> T) throws -> T {
        precondition(database.inTransaction, "capture is silenced only inside a transaction")
        try requireForeignKeysOffForUserWrites()
        return try database.connection.silencer.silencing(body)
    }
}
