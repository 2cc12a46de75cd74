import Concord

extension Workload {
    /// The user-defined merges a workload may declare by name (`"merges": {"x": "longest"}`): every
    /// simulated device registers them, and the oracle joins with them too.
    ///
    /// A custom merge is the engine's extension point, so it gets the same
    /// treatment as the built-ins: concurrent writes, deletes and re-inserts,
    /// the whole value space.
    ///
    /// ```swift
    /// let configuration = Replica.Configuration(clock: clock, merges: Workload.mergeFunctions)
    /// ```
    public static let mergeFunctions: [MergeFunction] = [longest]

    /// ``mergeFunctions`` by name.
    static let functionsByName = Dictionary(uniqueKeysWithValues: mergeFunctions.map { ($0.name, $0) })

    /// `longest`: the value with the most bytes (text and blobs by their length, any other value counting
    /// as none), ties going to the later value in SQLite's total order of values.
    ///
    /// The larger of two values in a total order is a join, whatever the values:
    /// commutative, associative and idempotent (checked by `ConcordTesting`'s
    /// `MergeLaws` in the tests).
    ///
    /// ```swift
    /// longest.join(.text("ab"), .blob([1, 2, 3]))   // X'010203'
    /// ```
    static let longest = MergeFunction(name: "longest") { a, b in
        func length(_ value: SQLiteValue) -> Int {
            switch value {
            case .text(let text): text.bytes.count
            case .blob(let bytes): bytes.count
            default: 0
            }
        }
        let (left, right) = (length(a), length(b))
        if left != right { return left < right ? b : a }
        return SQLiteValue.totallyOrdered(a, before: b) ? b : a
    }
}
