/// A user-defined merge for a column: a join of two values.
///
/// It must be commutative, associative and idempotent, or replicas that
/// receive changes in different orders will disagree; check it with
/// `ConcordTesting`'s `MergeLaws` before using it. Register it under the same
/// name in every replica's `Replica.Configuration` (in `Concord`).
///
/// ```swift
/// let longest = MergeFunction(name: "longest") { a, b in
///     let (x, y) = (a.textValue?.utf8.count ?? -1, b.textValue?.utf8.count ?? -1)
///     if x != y { return x > y ? a : b }
///     // A tie goes by an order that tells every two values apart (SQLite's holds 3 and 3.0 equal).
///     return SQLiteValue.totallyOrdered(a, before: b) ? b : a
/// }
/// let replica = try Replica(path: "notes.sqlite", configuration: .init(merges: [longest]))
/// try replica.enableSync(on: "notes", merges: ["title": .custom("longest")])
/// ```
public struct MergeFunction: Sendable {
    /// The name columns declare it by (`.custom(name)`), stored in the database and in changesets.
    public let name: String
    /// The join of two values: what a column holds after merging them.
    public let join: @Sendable (SQLiteValue, SQLiteValue) -> SQLiteValue

    /// A merge called `name` that joins two values with `join`.
    public init(name: String, join: @escaping @Sendable (SQLiteValue, SQLiteValue) -> SQLiteValue) {
        self.name = name
        self.join = join
    }
}
