import Concord
import Foundation

extension Subcommand {
    static let bench = Subcommand(CommandSpec(
        name: "bench",
        abstract: "Measure Concord against plain SQLite on the same machine, in one run.",
        discussion: """
            Inserts, updates, exports and applies, reads by key and measures file size for a \
            plain table and a synced one with the same schema (file-backed, WAL), and prints \
            each median with its ratio to plain SQLite. Meant for a release build: \
            swift run -c release concord bench.
            """,
        arguments: [
            .option("rows", valueName: "n", default: "100000", help: "Rows per phase."),
            .option("runs", valueName: "r", default: "3", help: "Runs per phase; medians are reported."),
            .option("seed", valueName: "n", default: "1", help: "Seed of the generated rows."),
            .flag("json", help: "Print machine-readable JSON."),
        ])
    ) { arguments, output in
        let rows = try arguments.integer("rows"), runs = try arguments.integer("runs")
        let seed = try arguments.integer("seed", as: UInt64.self)
        guard rows > 0 else { throw UsageError("--rows must be at least 1") }
        guard runs > 0 else { throw UsageError("--runs must be at least 1") }
        let showProgress = output.standardError.isTerminal
        let report = try BenchmarkRunner(rows: rows, runs: runs, seed: seed).run { step in
            if showProgress { print("\u{1B}[2K\r\(step)…", terminator: "", to: &output.standardError) }
        }
        if showProgress { print("\u{1B}[2K\r", terminator: "", to: &output.standardError) }
        if arguments.flag("json") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self), to: &output)
        } else {
            print(report.table, terminator: "", to: &output)
        }
    }
}
