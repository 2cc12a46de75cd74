/// Reports at one or several row counts, as one benchmark run measured them.
///
/// Per-row costs at several sizes side by side make linear growth (or its
/// absence) visible; `concord bench --scaling` runs 10k, 100k and 1M rows.
///
/// ```swift
/// let scaling = try BenchmarkRunner(sizes: [10_000, 100_000, 1_000_000], runs: 3, largeRuns: 1, seed: 1).run()
/// scaling.reports.map(\.rows)   // [10000, 100000, 1000000]
/// ```
public struct BenchmarkScaling: Encodable, Sendable {
    /// The SQLite library version both sides ran on.
    public var sqlite: String
    /// One report per size, in the order the sizes were given.
    public var reports: [BenchmarkReport]
    /// Row counts at or above this run ``BenchmarkRunner/largeRuns`` times instead of ``BenchmarkRunner/runs``.
    public static let largeSize = 1_000_000
}
