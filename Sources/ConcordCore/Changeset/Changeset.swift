/// A set of register changes one replica exports and others apply.
///
/// It is plain data: which tables it covers and, per row, the registers as
/// the source replica stores them. Applying it merges those registers into
/// the receiver's, so applying it twice, or applying one's own changes back,
/// changes nothing. ``ChangesetEncoder`` and ``ChangesetDecoder`` give its
/// binary form (versioned, checksummed, streamable); ``Changeset/jsonData()``
/// its JSON form for debugging.
///
/// ```swift
/// let changes = try laptop.changes(since: 0)
/// let bytes = try changes.encoded()
/// try phone.apply(try Changeset(decoding: bytes))
/// ```
public struct Changeset: Hashable, Sendable {
    /// The format this build writes, binary and JSON alike; it reads this one and every older one.
    ///
    /// Format 2 added, after the format number, the oldest Concord release that reads the format, so that
    /// a build given a newer format can say which release to update to (see ``ChangesetEncoder``). Format 3
    /// added what each last-writer-wins write saw (``RowChange/seen``), so that any replica holding both
    /// sides of a conflict can list it, not only the writer of the winning value.
    public static let formatVersion: UInt16 = 3

    /// The replica that exported it.
    public var source: NodeID
    /// It holds the source's changes with versions in `since + 1 ... upTo`.
    public var since: Int64
    /// The source's version when it exported; the receiver asks for changes since this next time.
    public var upTo: Int64
    /// The synced tables it covers, in name order.
    public var tables: [TableSchema]
    /// The changed rows, in the order the source stored them.
    public var rows: [RowChange]

    /// A changeset of `source`'s changes with versions in `since + 1 ... upTo`.
    public init(source: NodeID, since: Int64, upTo: Int64, tables: [TableSchema], rows: [RowChange]) {
        self.source = source
        self.since = since
        self.upTo = upTo
        self.tables = tables
        self.rows = rows
    }
}

/// What a changeset says about one synced table: its key, columns and policy.
///
/// The receiver checks it against its own declaration of the table before
/// applying anything, so a changeset from a replica with another policy or an
/// unknown column is refused whole.
///
/// ```swift
/// let reminders = TableSchema(name: "reminders", key: "id", columns: ["title", "done", "count"],
///                             policy: .column, merges: [.lww, .lww, .counter])
/// ```
public struct TableSchema: Hashable, Sendable {
    /// The table's name.
    public var name: String
    /// The primary-key column.
    public var key: String
    /// The synced columns besides the key, in declaration order.
    public var columns: [String]
    /// Whether columns merge one by one or the row as a whole.
    public var policy: TablePolicy
    /// How each column merges, lined up with ``columns``.
    public var merges: [ColumnMerge]

    /// A declaration; `merges` defaults to last-writer-wins for every column.
    public init(name: String, key: String, columns: [String], policy: TablePolicy, merges: [ColumnMerge]? = nil) {
        self.name = name
        self.key = key
        self.columns = columns
        self.policy = policy
        self.merges = merges ?? Array(repeating: .lww, count: columns.count)
    }
}

/// The registers of one row of one table, as the source stores them.
public struct RowChange: Hashable, Sendable {
    /// The table's name; one of the changeset's ``Changeset/tables``.
    public var table: String
    /// The primary-key value.
    public var key: SQLiteValue
    /// Registers; `columns` lines up with the table schema's ``TableSchema/columns``.
    public var registers: RowRegisters
    /// What the write of each last-writer-wins register had seen, lined up with the columns: the stamp of
    /// the value it replaced on its writer's device (see ``ConflictRule``), `nil` where it replaced nothing
    /// of another device or the column has no such register. The whole list is `nil` when unknown (a
    /// changeset of format 1 or 2, or rows relayed for a table the source does not sync), and then the
    /// receiver takes every write to have seen everything below it.
    ///
    /// It never changes what a merge makes; it only decides which values that lost are listed as conflicts.
    public var seen: [Stamp?]?

    /// The registers of the row of `table` whose key is `key`, with what their writes saw (`nil`: unknown).
    public init(table: String, key: SQLiteValue, registers: RowRegisters, seen: [Stamp?]? = nil) {
        self.table = table
        self.key = key
        self.registers = registers
        self.seen = seen
    }
}

extension RowChange {
    /// The row with its columns picked by `positions` — each an index into the current columns, or `nil`
    /// for a column without a register — moving what the writes saw with their registers.
    ///
    /// A peer that restricts a changeset to the columns another declaration knows, or widens it to one
    /// with more, keeps the row encodable: a seen stamp stays beside its register.
    ///
    /// ```swift
    /// let narrowed = row.selectingColumns([0, 2])      // the first and third columns
    /// let widened = row.selectingColumns([0, 1, nil])  // one more, without a register
    /// ```
    public func selectingColumns(_ positions: [Int?]) -> RowChange {
        let pick = { (index: Int?) in index.flatMap { $0 < registers.columns.count ? $0 : nil } }
        return RowChange(
            table: table, key: key,
            registers: RowRegisters(
                liveness: registers.liveness, columns: positions.map { pick($0).flatMap { registers.columns[$0] } }),
            seen: seen.map { seen in positions.map { pick($0).flatMap { seen[$0] } } })
    }
}
