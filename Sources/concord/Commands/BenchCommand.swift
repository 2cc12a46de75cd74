import ConcordBenchmark
import Foundation

/// The arguments of `concord bench`.
struct BenchOptions: ParsableOptions {
    /// `--rows 10000,100000`: one row count or several, each at least 1.
    struct RowCounts: ArgumentValue {
        var sizes: [Int]

        init(_ sizes: [Int]) {
            self.sizes = sizes
        }

        init(argument: String) throws(InvalidArgument) {
            let parts = argument.split(separator: ",", omittingEmptySubsequences: false)
            sizes = parts.compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard sizes.count == parts.count, sizes.allSatisfy({ $0 > 0 }) else {
                throw InvalidArgument(message: "--rows takes row counts of at least 1, such as 100000 or 10000,100000")
            }
        }

        var argumentText: String { sizes.map(String.init).joined(separator: ",") }
    }

    @Option(valueName: "n[,n...]", help: "Rows per phase; a comma list runs each size.")
    var rows = RowCounts([100_000])
    @Option(valueName: "r", help: "Runs per size; medians are reported.")
    var runs = 3
    @Option(valueName: "r", help: "Runs at 1,000,000 rows or more (at most --runs).")
    var largeRuns = 1
    @Option(valueName: "n", help: "Seed of the generated rows.")
    var seed: UInt64 = 1
    @Flag(help: "Run 10,000, 100,000 and 1,000,000 rows (overrides --rows).")
    var scaling = false
    @Flag(help: "Skip the child-process import and its peak memory.")
    var noImportProbe = false
    @Flag(help: "Print machine-readable JSON.")
    var json = false
    @Flag(help: "Print Markdown tables.")
    var markdown = false
    @Option(valueName: "file", help: "Also write the JSON to this file, whatever is printed.")
    var jsonFile: String?
    @Flag(short: "q", help: "No progress line (it is drawn on standard error only when that is a terminal).")
    var quiet = false

    func validate() throws(UsageError) {
        guard runs > 0, largeRuns > 0 else { throw UsageError("--runs and --large-runs must be at least 1") }
        guard !(json && markdown) else { throw UsageError("--json and --markdown cannot be combined") }
    }

    /// The row counts to measure.
    var sizes: [Int] { scaling ? [10_000, 100_000, 1_000_000] : rows.sizes }
}

extension Subcommand {
    static let bench = Subcommand(
        "bench",
        abstract: "Measure Concord against plain SQLite on the same machine, in one run.",
        discussion: """
            Inserts, updates, exports and applies, reads by key and measures file size for a \
            plain table and a synced one with the same schema (file-backed, WAL), and prints \
            each median with its ratio to plain SQLite. Insert and update are timed with trigger \
            capture only; folding the capture log into the registers is its own phase, and sizes \
            are measured after the fold and a checkpoint. It also times exporting the changes \
            since a version taken before 100 more writes, and imports the full changeset with \
            'concord import' in a child process to read its peak memory. Meant for a release \
            build: swift run -c release concord bench.

            Several sizes (--rows 10000,100000 or --scaling for 10k, 100k and 1M) add a table \
            of per-row costs, so linear growth is visible.
            """,
        options: BenchOptions.self
    ) { options, output in
        output.quiet = options.quiet
        var runner = BenchmarkRunner(
            sizes: options.sizes, runs: options.runs, largeRuns: options.largeRuns,
            seed: options.seed)
        runner.importProbeExecutable = options.noImportProbe ? nil : currentExecutablePath()
        var work = BenchProgress(sizes: options.sizes, runs: { runner.runs(atSize: $0) })
        let progress = output.progressLine("bench", total: work.total, unit: .share)
        progress.startTicking()
        let scaling = try runner.run { step in progress.phase(step, done: work.done(atStep: step)) }
        progress.clear()
        // One size encodes its report, as before; several encode every report in one object.
        let json = scaling.reports.count == 1 ? try Output.json(scaling.reports[0]) : try Output.json(scaling)
        if let file = options.jsonFile {
            try (json + Data("\n".utf8)).write(to: URL(fileURLWithPath: file))
        }
        if options.json {
            print(String(decoding: json, as: UTF8.self), to: &output)
        } else {
            print(options.markdown ? scaling.markdown : scaling.table, terminator: "", to: &output)
        }
    }
}

extension BenchmarkRunner {
    /// How many runs a size gets: ``runs``, or ``largeRuns`` from ``BenchmarkScaling/largeSize`` rows.
    func runs(atSize rows: Int) -> Int { rows >= BenchmarkScaling.largeSize ? min(runs, largeRuns) : runs }
}

/// How far a `concord bench` run is, from the steps its runner announces.
///
/// A run's cost grows with its rows, so each run of each size weighs its row
/// count, and a size's generation one run more; the share done is the weight
/// of the runs started before the current one. The runner announces
/// `"100000 rows: generating"` and `"100000 rows, run 2/3: apply"`; a step
/// it announces otherwise leaves the share where it was.
///
/// ```swift
/// var work = BenchProgress(sizes: [10_000, 100_000], runs: { _ in 3 })
/// work.done(atStep: "100000 rows, run 2/3: apply")   // 40,000 of 440,000
/// ```
struct BenchProgress {
    /// Row counts in the order they run.
    let sizes: [Int]
    /// The runs at each size.
    let runs: (Int) -> Int
    private var lastDone = 0

    init(sizes: [Int], runs: @escaping (Int) -> Int) {
        self.sizes = sizes
        self.runs = runs
    }

    /// Every run of every size, weighted by its rows, plus a generation per size.
    var total: Int { sizes.reduce(0) { $0 + $1 * (runs($1) + 1) } }

    /// The weight finished when `step` starts.
    mutating func done(atStep step: Substring) -> Int {
        let head = step.prefix { $0 != ":" }
        let words = head.split(separator: " ")
        guard let rows = words.first.flatMap({ Int($0) }), let index = sizes.firstIndex(of: rows) else {
            return lastDone
        }
        var done = sizes[..<index].reduce(0) { $0 + $1 * (runs($1) + 1) }
        // "N rows, run r/c": generation and r - 1 runs of this size are done.
        if let run = words.last?.split(separator: "/").first.flatMap({ Int($0) }), words.count == 4 {
            done += rows * run
        }
        lastDone = done
        return done
    }

    mutating func done(atStep step: String) -> Int { done(atStep: step[...]) }
}
