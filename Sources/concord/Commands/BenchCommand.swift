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
        var runner = BenchmarkRunner(
            sizes: options.sizes, runs: options.runs, largeRuns: options.largeRuns,
            seed: options.seed)
        runner.importProbeExecutable = options.noImportProbe ? nil : currentExecutablePath()
        let scaling = try runner.run { step in output.progress("\(step)…") }
        output.clearProgress()
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
