import ConcordCore

extension Replica {
    /// Every parked row's reason, by the row's table and key as stored, once pending local writes are folded.
    ///
    /// Why: ``parked()`` words each key for people (TEXT as it is, anything else as a literal), so keys
    /// SQLite keeps apart can read alike — `'é'` composed and decomposed, the TEXT `X'31'` and a BLOB —
    /// and Swift's `String` even compares the first pair equal. A checker that must tell rows apart
    /// asks for the keys themselves.
    ///
    /// ```swift
    /// let reasons = try replica.parkedReasons()
    /// reasons[RowRef(table: "items", key: "i1")]   // "missing parent lists/l9"
    /// ```
    @_spi(Simulation) public func parkedReasons() throws -> [RowRef: String] {
        try withForeignKeyEnforcementOffIfWriting {
            try foldLocalWrites()
            var reasons: [RowRef: String] = [:]
            for table in tables {
                for row in try parkedRows(of: table) { reasons[RowRef(table: table.name, key: row.key)] = row.reason }
            }
            return reasons
        }
    }
}
