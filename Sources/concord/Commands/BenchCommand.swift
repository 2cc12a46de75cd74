import Concord
import Foundation

extension Subcommand {
    static let bench = Subcommand(CommandSpec(
        name: "bench",
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
        arguments: [
            .option("rows", valueName: "n[,n...]", default: "100000", help: "Rows per phase; a comma list runs each size."),
            .option("runs", valueName: "r", default: "3", help: "Runs per size; medians are reported."),
            .option("large-runs", valueName: "r", default: "1",
                    help: "Runs at 1,000,000 rows or more (at most --runs)."),
            .option("seed", valueName: "n", default: "1", help: "Seed of the generated rows."),
            .flag("scaling", help: "Run 10,000, 100,000 and 1,000,000 rows (overrides --rows)."),
            .flag("no-import-probe", help: "Skip the child-process import and its peak memory."),
            .flag("json", help: "Print machine-readable JSON."),
            .flag("markdown", help: "Print Markdown tables."),
            .option("json-file", valueName: "file", help: "Also write the JSON to this file, whatever is printed."),
        ])
    ) { arguments, output in
        let sizes = arguments.flag("scaling") ? [10_000, 100_000, 1_000_000] : try benchSizes(arguments.option("rows"))
        let runs = try arguments.integer("runs"), largeRuns = try arguments.integer("large-runs")
        let seed = try arguments.integer("seed", as: UInt64.self)
        guard runs > 0, largeRuns > 0 else { throw UsageError("--runs and --large-runs must be at least 1") }
        guard !(arguments.flag("json") && arguments.flag("markdown")) else {
            throw UsageError("--json and --markdown cannot be combined")
        }
        var runner = BenchmarkRunner(sizes: sizes, runs: runs, largeRuns: largeRuns, seed: seed)
        runner.probeImport = !arguments.flag("no-import-probe")
        let showProgress = output.standardError.isTerminal
        let scaling = try runner.run { step in
            if showProgress { print("\u{1B}[2K\r\(step)…", terminator: "", to: &output.standardError) }
        }
        if showProgress { print("\u{1B}[2K\r", terminator: "", to: &output.standardError) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        // One size encodes its report, as before; several encode every report in one object.
        let json = sizes.count == 1 ? try encoder.encode(scaling.reports[0]) : try encoder.encode(scaling)
        if let file = arguments.option("json-file") {
            try (json + Data("\n".utf8)).write(to: URL(fileURLWithPath: file))
        }
        if arguments.flag("json") {
            print(String(decoding: json, as: UTF8.self), to: &output)
        } else {
            print(arguments.flag("markdown") ? scaling.markdown : scaling.table, terminator: "", to: &output)
        }
    }

    /// Parses `--rows`: one count or a comma-separated list, each at least 1.
    private static func benchSizes(_ text: String?) throws(UsageError) -> [Int] {
        let parts = (text ?? "100000").split(separator: ",", omittingEmptySubsequences: false)
        let sizes = parts.compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard sizes.count == parts.count, sizes.allSatisfy({ $0 > 0 }) else {
            throw UsageError("--rows takes row counts of at least 1, such as 100000 or 10000,100000")
        }
        return sizes
    }
}
