@_spi(Testing) import ConcordCore

/// What applying a changeset did.
///
/// ```swift
/// let changes = try laptop.changes(since: phone.peerVersion(laptop.nodeID))
/// print(try phone.apply(changes))   // "applied 3, ignored 0"
/// print(try phone.apply(changes))   // "applied 0, ignored 3": nothing new the second time
/// ```
public struct ApplyReport: Hashable, Sendable, CustomStringConvertible, Encodable {
    /// Rows whose registers changed.
    public var applied: Int
    /// Rows that held nothing new (already seen, or superseded here).
    public var ignored: Int
    /// Rows of tables this replica refuses for now (a destructive schema change, see
    /// ``Replica/schemaRefusals``): not merged, and the peer's read position did not move, so
    /// the next changeset from that peer brings them again. Concord keeps no held-back row: a
    /// transport with a position of its own (a record server's change token) fetches them again,
    /// from where it stood before them, until none is held back.
    public var heldBack: Int = 0
    /// Which shown rows changed, table by table: inserted, updated, deleted, hidden, shown again or parked.
    public var changes = MergeReport()

    /// A report with these counts (none of either by default).
    public init(applied: Int = 0, ignored: Int = 0, heldBack: Int = 0) {
        self.applied = applied
        self.ignored = ignored
        self.heldBack = heldBack
    }

    /// `applied N, ignored M` (and `, held back K` when rows were), as `concord import` prints it.
    public var description: String {
        "applied \(applied), ignored \(ignored)" + (heldBack > 0 ? ", held back \(heldBack)" : "")
    }
}

extension Replica {
    /// Merges a changeset into this replica, atomically and idempotently.
    ///
    /// Everything is checked before anything is written: the tables must be
    /// synced here under the same declaration, keys must be TEXT or BLOB, and
    /// no stamp may be more than `maxDrift` ahead of this replica's clock. Then
    /// one transaction merges every row; if no register changed, nothing is
    /// written at all, so applying a changeset twice, or one's own changes,
    /// leaves the file as it was.
    ///
    /// The changeset's header names its source, and how far it carries that
    /// device's changes; this replica then reads that device from there
    /// (``peerVersion(_:)``). A transport that knows which device sent it (a
    /// connection it authenticated) passes that device as `sender`: when the
    /// header names another, the rows merge as any rows do, but no read
    /// position moves. Why: the header is the sender's word, and a forged
    /// one ("from" another device, no further than that device has written)
    /// would make this replica skip what that device wrote before, for good.
    /// A changeset forwarded whole by another device merges the same way.
    ///
    /// ```swift
    /// try laptop.apply(received, from: phoneNodeID)   // the connection was the phone's
    /// ```
    @discardableResult
    public func apply(_ changeset: Changeset, from sender: NodeID? = nil) throws -> ApplyReport {
        try apply(
            source: changeset.source, since: changeset.since, upTo: changeset.upTo, tables: changeset.tables,
            batchSize: max(changeset.rows.count, 1), rows: { changeset.rows.makeIterator() },
            rereadRows: { try ApplySession.repeatedRows(in: changeset.rows.makeIterator()) },
            movesReadPosition: sender.map { $0 == changeset.source } ?? true)
    }

    /// Applies a stream of rows; `rows` is called twice, once to validate and once to apply.
    public func apply<Rows: ChangeIterator>(
        source: NodeID, since: Int64, upTo: Int64, tables: [TableSchema], rows: () throws -> Rows
    ) throws -> ApplyReport {
        try apply(source: source, since: since, upTo: upTo, tables: tables, batchSize: Self.applyBatch, rows: rows)
    }

    /// How many rows of a streamed changeset are held and put in key order at a time.
    static let applyBatch = 16_384

    /// Merges rows `batchSize` at a time, each batch in ``ApplyOrder/writeOrder(_:_:)``.
    ///
    /// Rows are merged one by one, but not in the order they arrive: a batch
    /// of rows of a table without foreign keys is written in key order, so the
    /// user table's key index (and the file's pages) grow at one end instead
    /// of at random places, which on a UUID key more than halves the cost of
    /// writing them. Merges commute, and a key met twice keeps its arrival
    /// order, so the registers, the rows shown and the report are the same.
    /// `rereadRows`, when given, finds the rows the changeset repeats by reading it once more, only if a
    /// conflict is to be recorded, from a source of its own (the merge pass is reading `rows()`'s); without
    /// it they are found while validating, so `rows` is still called just twice.
    func apply<Rows: ChangeIterator>(
        source: NodeID, since: Int64, upTo: Int64, tables: [TableSchema], batchSize: Int, rows: () throws -> Rows,
        rereadRows: (() throws -> Set<Int64>)? = nil, movesReadPosition: Bool = true
    ) throws -> ApplyReport {
        // Adopting an additive schema change takes a transaction of its own, before the changeset is checked
        // against the declarations; a table refused for a destructive change has its rows held back.
        try checkSchemas()
        let session = try ApplySession(
            replica: self, source: source, since: since, upTo: upTo, tables: tables,
            batchSize: batchSize)
        session.movesReadPosition = movesReadPosition
        try session.validate(rows(), findingRepeatedRows: rereadRows == nil)
        // A peer holding a stamp of this node newer than any it remembers: this file was rolled back.
        try adoptNewNodeIDIfRolledBack(newestOwnStamp: session.newestOwnStamp)
        defer { forgetNodeCache() }
        // Nothing changed (a changeset applied before, or one's own): the transaction is rolled back, the file untouched.
        do {
            try withoutActuallyEscaping(rows) { rows in
                // Read a third time only if a loss is to be recorded, to find the rows the changeset repeats.
                session.findRepeatedRows = rereadRows
                defer { session.findRepeatedRows = nil }
                try tentativelyWithoutForeignKeyEnforcement { try session.merge(rows()) ? .commit : .rollBack }
            }
        } catch {
            // A node id the merge took went back with its transaction: write under the one the file names.
            if session.heldLostWrite { try? refreshNodeID() }
            throw error
        }
        return session.report
    }

    /// How far this replica has read each peer's changes.
    public func peerVersion(_ node: NodeID) throws -> Int64 {
        try database.scalar("SELECT version FROM \(Metadata.peers) WHERE node = ?", [.blob(node.bytes)])?
            .integerValue ?? 0
    }

    /// Advances the recorded version of `source` when the changeset continues from it.
    /// `time` (Unix ms, this replica's clock) is recorded as when the peer was last read.
    func recordPeer(_ source: NodeID, since: Int64, upTo: Int64, at time: Int64) throws -> Bool {
        guard source != nodeID else { return false }
        let known = try peerVersion(source)
        guard since <= known, upTo > known else { return false }
        try database.execute(
            "INSERT OR REPLACE INTO \(Metadata.peers) (node, version, at) VALUES (?, ?, ?)",
            [.blob(source.bytes), .integer(upTo), .integer(time)])
        return true
    }
}

/// A stream of row changes, as a decoder or an array yields them.
///
/// It is what ``Replica/apply(source:since:upTo:tables:rows:)`` reads, so a
/// changeset larger than memory can be merged straight from a
/// ``ChangesetDecoder`` without holding its rows.
///
/// ```swift
/// let rows = [RowChange(table: "lists", key: "l1", registers: registers)]
/// try replica.apply(source: peer, since: 0, upTo: 1, tables: [schema]) { rows.makeIterator() }
/// ```
public protocol ChangeIterator {
    /// The next row, or `nil` once every row was read; throws when the bytes behind it are malformed.
    mutating func next() throws -> RowChange?
    /// A digest of every byte the rows came from, once they are all read (`nil` for rows held in memory).
    var checksum: UInt32? { get }
}

extension ChangeIterator {
    /// No digest: rows held in memory came from no bytes.
    public var checksum: UInt32? { nil }
}

extension IndexingIterator: ChangeIterator where Elements == [RowChange] {}
