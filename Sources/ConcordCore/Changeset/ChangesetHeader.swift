/// Everything a changeset says before its rows: who exported it, which versions, which tables.
///
/// The binary form puts all of it first, so ``ChangesetDecoder`` reads it at
/// once and a receiver can check the tables against its own schema before
/// touching a single row. Like the rest of a stream, it is only trustworthy
/// once the decoder has verified the checksum at the end.
///
/// ```swift
/// let decoder = try ChangesetDecoder(source: FileByteSource(path: "changes.cncd"))
/// print(decoder.header.source, decoder.header.tables.map(\.name))
/// ```
public struct ChangesetHeader: Hashable, Sendable {
    /// The replica that exported the changeset.
    public var source: NodeID
    /// The changeset holds the source's changes with versions in `since + 1 ... upTo`.
    public var since: Int64
    /// The source's version when it exported; the receiver asks for changes since this next time.
    public var upTo: Int64
    /// The synced tables the rows may refer to.
    public var tables: [TableSchema]

    /// The header of a changeset of `source`'s changes with versions in `since + 1 ... upTo`.
    public init(source: NodeID, since: Int64, upTo: Int64, tables: [TableSchema]) {
        self.source = source
        self.since = since
        self.upTo = upTo
        self.tables = tables
    }
}

extension Changeset {
    /// The changeset without its rows.
    public var header: ChangesetHeader {
        ChangesetHeader(source: source, since: since, upTo: upTo, tables: tables)
    }

    /// A changeset from a header and its rows.
    public init(header: ChangesetHeader, rows: [RowChange]) {
        self.init(source: header.source, since: header.since, upTo: header.upTo, tables: header.tables, rows: rows)
    }
}
