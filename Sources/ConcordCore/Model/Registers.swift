/// A column register: the value a column holds and the stamp of the write that set it.
///
/// ```swift
/// let title = ColumnRegister(value: "Buy milk", stamp: stamp)
/// ```
public struct ColumnRegister: Hashable, Sendable {
    /// The value the column holds.
    public var value: SQLiteValue
    /// The stamp of the write that set it; for a value-merged column, the highest of the writes merged into it.
    public var stamp: Stamp
    /// For a `counter` column, each node's contribution, in node order; empty otherwise.
    /// The value is then the sum of the contributions made in the row's current life.
    public var contributions: [CounterContribution]

    /// A register holding `value` as written at `stamp`; `contributions` only for a `counter` column.
    public init(value: SQLiteValue, stamp: Stamp, contributions: [CounterContribution] = []) {
        self.value = value
        self.stamp = stamp
        self.contributions = contributions
    }
}

/// One node's share of a `counter` column: its running total of increments.
///
/// Each node only ever changes its own entry, so merging keeps, per node,
/// the entry with the higher `(causalLength, stamp)`; concurrent increments on
/// different nodes therefore add up. Entries made under an earlier causal
/// length (before a delete and re-insert) no longer count.
///
/// ```swift
/// // This node added 3 in the row's first life.
/// let mine = CounterContribution(causalLength: 1, amount: 3, stamp: stamp)
/// ```
public struct CounterContribution: Hashable, Sendable {
    /// The row's causal length when the contribution was made.
    public var causalLength: UInt64
    /// The node's total change to the counter in that life of the row.
    public var amount: Int64
    /// The node's latest write to it; `stamp.node` is the contributing node.
    public var stamp: Stamp

    /// A contribution of `amount` by `stamp.node` in the life `causalLength`.
    public init(causalLength: UInt64, amount: Int64, stamp: Stamp) {
        self.causalLength = causalLength
        self.amount = amount
        self.stamp = stamp
    }
}

/// A row's liveness register: its causal length and the stamp that set it.
///
/// Odd lengths are alive, even ones deleted; an insert of a dead or unknown
/// row moves to the next odd number, a delete to the next even one, and a
/// merge keeps the larger. An update never changes it, so an update from a
/// device that missed a delete cannot bring the row back.
///
/// ```swift
/// let inserted = Liveness(causalLength: 1, stamp: stamp)   // alive
/// Liveness.afterDelete(inserted.causalLength)               // 2: deleted
/// ```
public struct Liveness: Hashable, Sendable {
    /// 0 means the row was never inserted anywhere this replica heard of.
    public var causalLength: UInt64
    /// The write that set this length; `nil` only for length 0.
    public var stamp: Stamp?

    /// A liveness register of `causalLength`, set by the write stamped `stamp`.
    public init(causalLength: UInt64, stamp: Stamp?) {
        self.causalLength = causalLength
        self.stamp = stamp
    }

    /// The liveness of a row no write has reached: length 0, no stamp.
    public static let unknown = Liveness(causalLength: 0, stamp: nil)

    /// Whether the row exists: its causal length is odd.
    public var isAlive: Bool { causalLength % 2 == 1 }

    /// The largest causal length a changeset may carry (2^62).
    ///
    /// Each delete or re-insert adds one or two, so no real history comes
    /// near it, while a length from a hostile peer could otherwise make the
    /// next local delete overflow. It also keeps every length a positive
    /// 64-bit integer in SQLite.
    public static let maxCausalLength: UInt64 = 1 << 62

    /// The causal length after an insert: the next odd number (unchanged when alive).
    public static func afterInsert(_ length: UInt64) -> UInt64 {
        length % 2 == 1 ? length : length.addingReportingOverflow(1).overflow ? length : length + 1
    }

    /// The causal length after a delete: the next even number above it.
    public static func afterDelete(_ length: UInt64) -> UInt64 {
        let step: UInt64 = length % 2 == 0 ? 2 : 1
        let (next, overflow) = length.addingReportingOverflow(step)
        return overflow ? length : next
    }
}

/// All registers of one row: liveness plus one column register per synced column.
///
/// `columns` lines up with the table's column list; `nil` is a column no
/// write has set yet (it reads as the column's default).
///
/// ```swift
/// let row = RowRegisters(liveness: Liveness(causalLength: 1, stamp: stamp),
///                        columns: [ColumnRegister(value: "Buy milk", stamp: stamp), nil])
/// ```
public struct RowRegisters: Hashable, Sendable {
    /// Whether the row exists, and since which write.
    public var liveness: Liveness
    /// One register per synced column, in the table's column order; `nil` where no write set the column.
    public var columns: [ColumnRegister?]

    /// The registers of a row.
    public init(liveness: Liveness, columns: [ColumnRegister?]) {
        self.liveness = liveness
        self.columns = columns
    }

    /// The highest stamp of any register in the row.
    public var latestStamp: Stamp? {
        ([liveness.stamp] + columns.map { $0?.stamp }).compactMap { $0 }.max()
    }
}
