import Concord

/// Totals over a batch of simulation runs: how many passed, and what happened in them.
///
/// A batch over many seeds is judged by its sums (writes, merges, conflicts,
/// crashes, drift refusals) and by which runs failed; keeping the results
/// whole lets a report add any count up, and `--json` output carries them all.
///
/// ```swift
/// let results = try SimulationBatch(scenarios: [.default], seeds: 1...20, jobs: 2).run()
/// let summary = SimulationSummary(results: results, seconds: 12.5)
/// summary.total(\.crashes)   // crashes over all 20 runs
/// summary.failedRuns         // 0
/// ```
public struct SimulationSummary: Encodable, Sendable {
    /// Every run's result, in the batch's order.
    public let results: [SimulationResult]
    /// Wall time the batch took.
    public let seconds: Double

    /// The summary of `results`, which took `seconds` of wall time.
    public init(results: [SimulationResult], seconds: Double) {
        self.results = results
        self.seconds = seconds
    }

    /// The sum of one count over every run.
    public func total(_ count: (SimulationResult) -> Int) -> Int { results.reduce(0) { $0 + count($1) } }

    /// Counts kept by name (conflicts per merge, fates of writes), summed name by name over every run.
    public func merged(_ counts: (SimulationResult) -> [String: Int]) -> [String: Int] {
        results.reduce(into: [:]) { sum, result in
            for (key, count) in counts(result) { sum[key, default: 0] += count }
        }
    }

    /// Plan steps run per second of wall time, over every run.
    public var operationsPerSecond: Double { Double(total(\.steps)) / max(seconds, 0.001) }

    /// Runs that did not pass.
    public var failedRuns: Int { results.filter { !$0.passed }.count }

    /// Each scenario, in the order it first appears, with its runs and how many of them passed.
    public var scenarios: [(name: String, passed: Int, runs: Int)] {
        var names: [String] = []
        for result in results where !names.contains(result.scenario) { names.append(result.scenario) }
        return names.map { name in
            let runs = results.filter { $0.scenario == name }
            return (name, runs.filter(\.passed).count, runs.count)
        }
    }

    /// Runs (a seed of one scenario each) finished per second of wall time.
    public var runsPerSecond: Double { Double(results.count) / max(seconds, 0.001) }

    /// Each ``CoverageEvent`` over every run, in declaration order, unreached ones with 0.
    public var coverage: [CoverageTally] { CoverageTally.over(results) }

    /// The SQLite library the runs used (its version): what Concord installs and how SQLite answers depend
    /// on it, so a batch's result is about that library.
    public var sqliteVersion: String { Database.libraryVersion }

    enum CodingKeys: String, CodingKey { case results, seconds, operationsPerSecond, runsPerSecond, coverage, sqlite }

    /// Encodes the results, the seconds, and what a reader of the JSON could not easily recompute:
    /// ``operationsPerSecond``, ``runsPerSecond``, ``coverage`` and the SQLite library's version.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(results, forKey: .results)
        try container.encode(seconds, forKey: .seconds)
        try container.encode(operationsPerSecond, forKey: .operationsPerSecond)
        try container.encode(runsPerSecond, forKey: .runsPerSecond)
        try container.encode(coverage, forKey: .coverage)
        try container.encode(sqliteVersion, forKey: .sqlite)
    }
}
