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
            // One query for every table: the simulator asks after every step, and most tables park nothing.
            let names = Dictionary(uniqueKeysWithValues: tables.map { ($0.id, $0.name) })
            var reasons: [RowRef: String] = [:]
            for row in try database.query("SELECT tbl, pk, reason FROM \(Metadata.parked)") {
                guard let id = row[0].integerValue, let name = names[id] else { continue }
                reasons[RowRef(table: name, key: row[1])] = row[2].textValue ?? ""
            }
            return reasons
        }
    }
}
