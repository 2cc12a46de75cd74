import Concord

/// Measures Concord against plain SQLite at one or more row counts, in one process.
///
/// Both sides run the same workload on file-backed WAL databases in the same
/// run, so the ratios hold on whatever machine runs them. Each size is run
/// `runs` times on fresh files (`largeRuns` times from 1,000,000 rows, so a
/// scaling run stays within minutes on two cores) and the medians compared.
/// The child-process import probe runs in the first run of each size.
///
/// ```swift
/// let scaling = try BenchmarkRunner(sizes: [100_000], runs: 3, largeRuns: 1, seed: 1).run()
/// print(scaling.reports[0].table)
/// ```
struct BenchmarkRunner {
    let sizes: [Int]
    let runs: Int
    let largeRuns: Int
    let seed: UInt64
    var recentWrites = 100
    var probeImport = true

    /// How many runs a size gets.
    func runs(at rows: Int) -> Int { rows >= BenchmarkScaling.largeSize ? min(runs, largeRuns) : runs }

    func run(progress: (String) -> Void = { _ in }) throws -> BenchmarkScaling {
        var reports: [BenchmarkReport] = []
        for rows in sizes {
            progress("\(rows) rows: generating")
            let workload = BenchmarkWorkload(count: rows, seed: seed)
            let count = runs(at: rows)
            var outcomes: [BenchmarkTrial.Outcome] = []
            for run in 1...count {
                let trial = BenchmarkTrial(workload: workload, recentWrites: recentWrites,
                                           probeImport: probeImport && run == 1, plainFirst: run % 2 == 1)
                outcomes.append(try trial.run { step in progress("\(rows) rows, run \(run)/\(count): \(step)") })
            }
            reports.append(report(rows: rows, outcomes))
        }
        return BenchmarkScaling(sqlite: Database.libraryVersion, reports: reports)
    }

    private func report(rows: Int, _ outcomes: [BenchmarkTrial.Outcome]) -> BenchmarkReport {
        let median = { (values: [Double]) in Stopwatch.median(values) }
        let phases = BenchmarkPhaseKind.allCases.map { kind in
            BenchmarkPhase(kind: kind, plain: median(outcomes.compactMap { $0.samples[kind]?.plain }),
                           concord: median(outcomes.compactMap { $0.samples[kind]?.concord }),
                           operations: kind == .pointReads ? BenchmarkTrial.readPasses * min(rows, 100_000) : rows)
        }
        let recent = RecentExport(
            writes: recentWrites, changes: outcomes.first?.recentChanges ?? 0,
            seconds: median(outcomes.map(\.recentSeconds)), bytes: outcomes.first?.recentBytes ?? 0,
            fullExportSeconds: phases.first { $0.kind == .export }?.concord ?? 0, fullExportRows: rows)
        return BenchmarkReport(rows: rows, runs: outcomes.count, sqlite: Database.libraryVersion, phases: phases,
                               recentExport: recent, importProbe: outcomes.first?.probe)
    }
}
