/// A user-defined merge for a column: a join of two values.
///
/// It must be commutative, associative and idempotent, or replicas that
/// receive changes in different orders will disagree; check it with
/// `ConcordTesting`'s `MergeLaws` before using it. Register it under the same
/// name in every replica's `Replica.Configuration` (in `Concord`).
///
/// ```swift
/// let longest = MergeFunction(name: "longest") { a, b in
///     let (x, y) = (a.textValue ?? "", b.textValue ?? "")
///     return x.utf8.count != y.utf8.count ? (x.utf8.count > y.utf8.count ? a : b) : max(a, b)
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
