import ConcordCore

/// Every write the devices' apps made, each with what its device knew of the row when it wrote.
///
/// The reference model derives everything from this — causal lengths, which
/// write wins, what shows — and nothing from an engine's records: a delete
/// makes a row dead and an insert of a dead row makes it alive, whatever a
/// replica stored. A write's `seen` set says which earlier writes of the same
/// row had reached its device; that is all the causality the semantics need.
///
/// ```swift
/// var ledger = Ledger()
/// let id = ledger.record(node: phone, stamp: stamp, row: RowRef(table: "t", key: "k"),
///                        kind: .insert, values: [0: "milk"], seen: [])
/// ```
public struct Ledger: Sendable {
    /// What an app did to a row.
    public enum Kind: String, Hashable, Sendable {
        case insert, update, delete
    }

    /// One write.
    public struct Operation: Hashable, Sendable {
        /// Its position in the ledger.
        public let id: Int
        /// The device that made it.
        public let node: NodeID
        /// The stamp that device gave it.
        public let stamp: Stamp
        /// The row it wrote.
        public let row: RowRef
        /// Whether it inserted, updated or deleted the row.
        public let kind: Kind
        /// Column position → the value written; for a `counter` column, the change it made
        /// (``Ledger/counterChange(_:)``). An insert lists every column, and so does any write to a
        /// row-policy table (it supplies the whole row).
        public let values: [Int: SQLiteValue]
        /// The ids of the earlier writes of this row its device knew of when it wrote.
        public let seen: Set<Int>
    }

    /// Every write recorded, in the order recorded; an operation's `id` is its index here.
    public private(set) var operations: [Operation] = []

    /// An empty ledger.
    public init() {}

    /// Records a write; returns its id.
    @discardableResult
    public mutating func record(
        node: NodeID, stamp: Stamp, row: RowRef, kind: Kind, values: [Int: SQLiteValue],
        seen: Set<Int>
    ) -> Int {
        let id = operations.count
        operations.append(Operation(id: id, node: node, stamp: stamp, row: row, kind: kind, values: values, seen: seen))
        return id
    }

    /// A counter's change as an operation records it: an integer, or its digits as text when it is past the
    /// 64-bit range (one write from -9e18 to 9e18 changes it by 1.8e19).
    ///
    /// ```swift
    /// Ledger.counterChange(3)                          // .integer(3)
    /// Ledger.counterChange(Int128(Int64.max) + 1)      // .text("9223372036854775808")
    /// ```
    public static func counterChange(_ change: Int128) -> SQLiteValue {
        Int64(exactly: change).map { .integer($0) } ?? .text(String(change))
    }

    /// The change a counter's recorded value stands for (``counterChange(_:)``); NULL and anything else is 0.
    public static func counterChange(of value: SQLiteValue?) -> Int128 {
        switch value {
        case .integer(let change)?: Int128(change)
        case .text(let digits)?: digits.string.flatMap { Int128($0) } ?? 0
        default: 0
        }
    }
}
