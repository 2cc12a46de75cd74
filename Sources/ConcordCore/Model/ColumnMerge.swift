/// How one column of a column-policy table merges concurrent writes.
///
/// Every merge is a join — commutative, associative and idempotent — so the
/// result does not depend on the order changesets arrive in:
/// - `lww`: last writer wins, by stamp (the default);
/// - `max` / `min`: the largest / smallest value in SQLite's order, ties
///   settled by stamp;
/// - `counter`: concurrent increments add up; the app writes the column as
///   usual (`SET n = n + 1`) and Concord records the difference as this
///   node's contribution;
/// - `union`: a JSON array of strings and integers; the merged value is the
///   sorted union (grow-only: an element removed on one device comes back
///   from the others);
/// - `custom(name)`: a ``MergeFunction`` registered under `name` on every replica.
///
/// ```swift
/// try replica.enableSync(on: "counters", merges: ["count": .counter])
/// ```
public enum ColumnMerge: Hashable, Sendable, CustomStringConvertible {
    /// Last writer wins: the value with the highest stamp.
    case lww
    /// The largest value in SQLite's order; equal values are settled by stamp.
    case max
    /// The smallest value in SQLite's order, in which NULL is smallest of all; equal values are settled by stamp.
    case min
    /// The sum of every node's contribution: concurrent increments add up.
    case counter
    /// The sorted union of JSON arrays of strings and integers (see ``UnionValue``).
    case union
    /// The ``MergeFunction`` registered under this name.
    case custom(String)

    /// The built-in merges, by name.
    public static let builtIns: [ColumnMerge] = [.lww, .max, .min, .counter, .union]

    /// The name stored in the database and in changesets.
    public var name: String {
        switch self {
        case .lww: "lww"
        case .max: "max"
        case .min: "min"
        case .counter: "counter"
        case .union: "union"
        case .custom(let name): name
        }
    }

    /// The built-in merge called `name`, or a custom one by that name.
    public init(name: String) {
        self = Self.builtIns.first { $0.name == name } ?? .custom(name)
    }

    /// The merge's ``name``.
    public var description: String { name }

    /// Whether merging needs the written values (not just stamps) of local writes.
    package var joinsValues: Bool {
        switch self {
        case .lww: false
        default: true
        }
    }
}
