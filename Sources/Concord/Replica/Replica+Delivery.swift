extension Replica {
    /// Records that `peer` has read this replica's changes up to `version` (the ``Changeset/upTo`` of a
    /// changeset it applied in full), now by this replica's clock; a version at or below the recorded
    /// one changes nothing.
    ///
    /// Only the transport knows that a changeset reached a peer and was
    /// applied (an upload acknowledged, a file imported); ``sync(_:)`` records
    /// it for each pair it exchanges. ``status()`` then shows, per peer, how
    /// many local changes it has not read yet and when it last read.
    ///
    /// ```swift
    /// let changes = try laptop.changes(since: phone.peerVersion(laptop.nodeID))
    /// try phone.apply(changes)
    /// try laptop.recordDelivery(to: phone.nodeID, upTo: changes.upTo)
    /// ```
    public func recordDelivery(to peer: NodeID, upTo version: Int64) throws {
        guard peer != nodeID, version > (try readVersion(of: peer) ?? .min) else { return }
        try database.execute(
            "INSERT OR REPLACE INTO \(Metadata.readers) (node, version, at) VALUES (?, ?, ?)",
            [.blob(peer.bytes), .integer(version), .integer(try physicalTime())])
    }

    /// How far `peer` has read this replica's changes, as recorded; `nil` when nothing was.
    func readVersion(of peer: NodeID) throws -> Int64? {
        try database.scalar("SELECT version FROM \(Metadata.readers) WHERE node = ?", [.blob(peer.bytes)])?
            .integerValue
    }

    /// The row changes stored here after `version`: what a peer that has read up to it would get next.
    func changeCount(after version: Int64) throws -> Int64 {
        var count: Int64 = 0
        for table in tables where !isRefused(table.name) {
            count +=
                try database.scalar("SELECT count(*) FROM \(table.rowsTable) WHERE ver > ?", [.integer(version)])?
                .integerValue ?? 0
        }
        count += try RelayStore(database: database).rowCount(after: version)
        return count
    }
}
