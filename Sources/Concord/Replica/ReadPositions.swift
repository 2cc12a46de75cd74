/// The versions a peer or a caller can hold as a read position — each version a transaction left the
/// replica at, and each changeset's ``Changeset/upTo`` — so that a position this file never handed out
/// tells it that it no longer holds the history it was read in.
///
/// Why: a peer reads a replica up to a version and asks for what is after it next time. A backup restored
/// over the same file goes back to an older version and issues versions again from there. Local versions
/// follow the physical clock, so they skip past what the peer read — unless the clock is now behind it (it
/// ran fast before the restore and was set right, or it was set back). Then what the replica stores next
/// lands at versions the peer has read past, and the peer never reads it, `check` content on both. Every
/// position of the history the peer read is above what the restored file recorded, and none is one it
/// hands out since: each transaction starts its versions past its floor by an amount drawn from its clock
/// reading (``Replica/versionFloor(after:)``), so two histories of one file that go back to the same
/// version hand out different ones. Asked for changes after such a position, the replica takes a new node
/// id, and every peer reads it again from its start.
///
/// The newest ``kept`` positions are kept; a position at or below the oldest kept (an older one, or one
/// handed out before this layout, whose floor the upgrade records) is taken at its word.
///
/// ```swift
/// let positions = ReadPositions(database: database)
/// try positions.record(changeset.upTo)      // as the header leaves
/// try positions.isKnown(peerReadUpTo)       // false: read from a history this file no longer holds
/// ```
struct ReadPositions {
    let database: Database

    static let createSQL = "CREATE TABLE IF NOT EXISTS \(Metadata.positions) (pos INTEGER PRIMARY KEY);"

    /// How many positions are kept: a restored file tells a lost position apart until it has handed out as
    /// many since.
    static let kept = 4_096

    /// Starts the record at `version`, the floor at or below which positions cannot be told apart.
    func start(at version: Int64) throws { try insert(version) }

    /// Records `position` as handed out; about one time in 512 (by the position's low bits, which the floor's
    /// offset makes vary), lets go of all but the newest ``kept``.
    func record(_ position: Int64) throws {
        try insert(position)
        guard position & 0x1FF == 0 else { return }
        try database.cached(
            "DELETE FROM \(Metadata.positions) WHERE pos < "
                + "(SELECT pos FROM \(Metadata.positions) ORDER BY pos DESC LIMIT 1 OFFSET \(Self.kept - 1))"
        ).run([])
    }

    private func insert(_ position: Int64) throws {
        try database.cached("INSERT OR IGNORE INTO \(Metadata.positions) (pos) VALUES (?)").run([.integer(position)])
    }

    /// Whether `position` is one this file handed out, or at or below the oldest kept (0 always is).
    func isKnown(_ position: Int64) throws -> Bool {
        guard position > 0 else { return true }
        return try database.scalar(
            "SELECT coalesce(?1 <= (SELECT min(pos) FROM \(Metadata.positions)), 1) "
                + "OR EXISTS (SELECT 1 FROM \(Metadata.positions) WHERE pos = ?1)", [.integer(position)])
            == .integer(1)
    }
}
