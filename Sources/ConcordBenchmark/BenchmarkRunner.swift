import Concord

/// Measures Concord against plain SQLite at one or more row counts, in one process.
///
/// A ratio to plain SQLite measured on the same machine in the same run holds
/// wherever it runs, where absolute times do not. So both sides run the same
/// workload on file-backed WAL databases, each size is run `runs` times on
/// fresh files (`largeRuns` times from 1,000,000 rows, so a scaling run stays
/// within minutes on two cores), and the medians are compared. When
/// ``importProbeExecutable`` names a `concord` executable, the first run of each
/// size also imports the full changeset with it in a child process, to read
/// the import's own peak memory.
///
/// ```swift
/// var runner = BenchmarkRunner(sizes: [100_000], runs: 3, largeRuns: 1, seed: 1)
/// runner.importProbeExecutable = "/usr/local/bin/concord"
/// let scaling = try runner.run { step in print(step) }
/// scaling.reports[0].phase(.insert)?.ratio   // e.g. 1.5
/// ```
public struct BenchmarkRunner: Sendable {
    /// Row counts to measure, in order; each gets a report.
    public let sizes: [Int]
    /// Runs per size, below ``BenchmarkScaling/largeSize`` rows.
    public let runs: Int
    /// Runs per size from ``BenchmarkScaling/largeSize`` rows (at most ``runs``).
    public let largeRuns: Int
    /// Seed of the generated rows; the same seed writes the same bytes.
    public let seed: UInt64
    /// Writes made after the bulk phases, for the export since a recent version.
    public var recentWrites = 100
    /// The `concord` executable whose `import` the streamed-import probe runs; `nil` skips the probe.
    ///
    /// It is passed in rather than found, so a library caller decides which
    /// build is measured (the command-line tool passes itself).
    public var importProbeExecutable: String?

    public init(sizes: [Int], runs: Int, largeRuns: Int, seed: UInt64) {
        self.sizes = sizes
        self.runs = runs
        self.largeRuns = largeRuns
        self.seed = seed
    }

    /// How many runs a size gets.
    func runs(at rows: Int) -> Int { rows >= BenchmarkScaling.largeSize ? min(runs, largeRuns) : runs }

    /// Runs every size and returns a report for each.
    ///
    /// `progress` hears each step as it starts, such as
    /// `"100000 rows, run 2/3: apply"`, for a progress line.
    public func run(progress: (String) -> Void = { _ in }) throws -> BenchmarkScaling {
        var reports: [BenchmarkReport] = []
        for rows in sizes {
            progress("\(rows) rows: generating")
            let workload = BenchmarkWorkload(count: rows, seed: seed)
            let count = runs(at: rows)
            var outcomes: [BenchmarkTrial.Outcome] = []
            for run in 1...count {
                let trial = BenchmarkTrial(
                    workload: workload, recentWrites: recentWrites,
                    importProbeExecutable: run == 1 ? importProbeExecutable : nil,
                    plainFirst: run % 2 == 1)
                outcomes.append(try trial.run { step in progress("\(rows) rows, run \(run)/\(count): \(step)") })
            }
            reports.append(report(rows: rows, outcomes))
        }
        return BenchmarkScaling(sqlite: Database.libraryVersion, reports: reports)
    }

    private func report(rows: Int, _ outcomes: [BenchmarkTrial.Outcome]) -> BenchmarkReport {
        let median = { (values: [Double]) in Stopwatch.median(values) }
        let phases = BenchmarkPhaseKind.allCases.map { kind in
            BenchmarkPhase(
                kind: kind, plain: median(outcomes.compactMap { $0.samples[kind]?.plain }),
                concord: median(outcomes.compactMap { $0.samples[kind]?.concord }),
                operations: kind == .pointReads ? BenchmarkTrial.readPasses * min(rows, 100_000) : rows)
        }
        let recent = RecentExport(
            writes: recentWrites, changes: outcomes.first?.recentChanges ?? 0,
            seconds: median(outcomes.map(\.recentSeconds)), bytes: outcomes.first?.recentBytes ?? 0,
            fullExportSeconds: phases.first { $0.kind == .export }?.concord ?? 0, fullExportRows: rows)
        let rounds = (outcomes.map(\.updateRounds.count).min() ?? 0)
        return BenchmarkReport(
            rows: rows, runs: outcomes.count, sqlite: Database.libraryVersion, phases: phases,
            recentExport: recent, importProbe: outcomes.first?.probe,
            updateRounds: (0..<rounds).map { round in
                BenchmarkReport.UpdateRound(
                    round: round + 1, plain: median(outcomes.map { $0.updateRounds[round].plain }),
                    concord: median(outcomes.map { $0.updateRounds[round].concord }))
            })
    }
}
