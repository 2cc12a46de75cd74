extension Replica {
    /// Removes the capture triggers of every synced table, so that the writes
    /// Concord makes while merging are not captured as local writes.
    ///
    /// Only inside a transaction, and always paired with ``resumeCapture()``
    /// before it commits: other connections never see the triggers gone, and
    /// a rollback puts them back by itself. Dropping them, rather than a flag
    /// every trigger reads, keeps the app's own writes from paying for a
    /// table read each.
    func suspendCapture() throws {
        precondition(database.inTransaction, "capture is suspended only inside a transaction")
        try database.execute(captureTriggers.map(\.dropCaptureSQL).joined(separator: "\n"))
    }

    /// Makes the capture triggers again, as ``enableSync(on:policy:merges:)`` made them.
    func resumeCapture() throws {
        try database.execute(captureTriggers.map(\.captureSQL).joined(separator: "\n"))
    }

    private var captureTriggers: [CaptureTriggers] {
        // A refused table's triggers are the app's to keep or lose until the change is undone.
        tableNames.sorted { $0.key < $1.key }.filter { !isRefused($0.value) }.compactMap { _, name in
            syncedTables[name].map { table in
                CaptureTriggers(
                    table: table,
                    facts: captureFacts[name]
                        ?? TableInspector.CaptureFacts(comparesTypes: table.columns.map { _ in true }, guardsKey: true))
            }
        }
    }
}
