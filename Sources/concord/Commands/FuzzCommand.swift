import ConcordSimulator
import Concord
import ConcordTesting
import Foundation

extension Subcommand {
    static let fuzz = Subcommand(CommandSpec(
        name: "fuzz",
        abstract: "Apply hostile changesets to a scratch replica and check each is refused cleanly or merged consistently.",
        discussion: """
            Builds a small replica (column and row policies, a counter, a union, a max column, \
            foreign keys, deleted rows) from a fixed clock, turns valid changesets of two peers \
            into hostile ones (truncated, bit-flipped, spliced; fields rewritten with extreme \
            values and the checksum fixed; decoded, edited and encoded again; JSON trees with \
            odd numbers, strings and keys) and applies each through memory, a file, or a stream. \
            Each must be refused with the database file byte-identical and no journal left, or \
            accepted with `check` consistent, a second apply changing no byte, and the app's own \
            updates and deletes on top still consistent. The same seed gives the same inputs and \
            counts, whatever --jobs.

            The inputs run in worker processes (their scratch files in /dev/shm when it exists); \
            a worker that traps, fails, or spends more than --timeout seconds on one input is \
            caught. A failure writes a reproducer concord-fuzz-SEED-INDEX.bin (or .json) with the \
            base replica beside it (concord-fuzz-SEED-INDEX.sqlite) and makes the run exit 1; \
            without --keep-going the first failure ends the run. Replay a reproducer with \
            `concord import` on a copy of that replica, or with --replay as the fuzzer ran it.
            """,
        arguments: [
            .option("inputs", valueName: "n", default: "10000", help: "How many inputs to run."),
            .option("seed", valueName: "s", default: "1", help: "The seed the inputs are drawn from."),
            .option("first", valueName: "index", default: "0", help: "The index of the first input (to resume or rerun a range)."),
            .option("timeout", valueName: "seconds", default: "10", help: "How long one input may run before the worker counts as hung."),
            .option("jobs", valueName: "j", help: "Worker processes, each on a share of the inputs (default: one per processor); counts do not depend on it."),
            .flag("keep-going", help: "Go on after a failure (restarting a worker that trapped or hung); write reproducers for the first 20."),
            .option("replay", valueName: "file", help: "Run one reproducer against a fresh base replica through every route, and report."),
            .flag("json", help: "Print machine-readable JSON."),
            .option("worker", valueName: "dir",
                    help: "Internal: run the inputs in this process as the supervisor's worker, with its files in DIR."),
            .option("skip", valueName: "indices", help: "Internal, with --worker: inputs not to run (they crashed a worker)."),
        ])
    ) { arguments, output in
        let seed = try arguments.integer("seed", as: UInt64.self)
        let count = try arguments.integer("inputs"), first = try arguments.integer("first")
        guard count >= 0, first >= 0, first <= Int.max - count else {
            throw UsageError("--inputs and --first must be at least 0")
        }
        let inputs = first..<first + count
        let json = arguments.flag("json")
        if let file = arguments.option("replay") {
            return try FuzzReplay(path: file).run(json: json, output: &output)
        }
        if let directory = arguments.option("worker") {
            let skipped = try (arguments.option("skip") ?? "").split(separator: ",").map { text -> Int in
                guard let index = Int(text) else { throw UsageError("--skip takes input indices separated by commas") }
                return index
            }
            let report = try FuzzWorker(directory: directory, seed: seed, inputs: inputs, skip: Set(skipped),
                                        keepGoing: arguments.flag("keep-going")).run()
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self), to: &output)
            return
        }
        guard let timeout = arguments.option("timeout").flatMap(Double.init), timeout > 0, timeout.isFinite else {
            throw UsageError("The value '\(arguments.option("timeout") ?? "")' is invalid for '--timeout <seconds>': "
                             + "expected a number of seconds above 0")
        }
        let jobs = try arguments.option("jobs") != nil ? arguments.integer("jobs") : ProcessInfo.processInfo.activeProcessorCount
        guard jobs >= 1 else { throw UsageError("--jobs must be at least 1") }

        let run = FuzzSupervisor.scratchRoot() + "/concord-fuzz-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: run) }
        let showProgress = output.standardError.isTerminal && !json
        let started = ContinuousClock.now
        let outcome = try FuzzSupervisor(directory: run, seed: seed, inputs: inputs, jobs: jobs,
                                         keepGoing: arguments.flag("keep-going"), timeout: timeout).run { done in
            guard showProgress else { return }
            let rate = Double(done) / max(seconds(since: started), 0.001)
            print("\u{1B}[2K\rfuzz: \(done)/\(count) inputs, \(Int(rate))/s", terminator: "", to: &output.standardError)
        }
        if showProgress { print("\u{1B}[2K\r", terminator: "", to: &output.standardError) }
        let elapsed = seconds(since: started)

        var reproducers = FuzzReproducers(seed: seed, scratch: run + "/regenerate")
        var report = FuzzRunReport(summary: outcome.report.summary, first: first, requested: count, seconds: elapsed,
                                   complete: outcome.complete, failures: [])
        for crash in outcome.crashes {
            var failure = FuzzRunReport.Failure(
                kind: crash.hung ? "hang" : "trap", index: crash.index,
                message: crash.hung ? "input \(crash.index) ran for more than \(timeout) s; its fuzz worker was stopped"
                    : "a fuzz worker \(crash.how) while running input \(crash.index)")
            report.summary.recordFinding(try reproducers.input(at: crash.index))
            if report.failures.count < FuzzReproducers.limit { try reproducers.save(crash.index, into: &failure) }
            if !crash.log.isEmpty { failure.message += "\n" + FuzzReproducers.tail(crash.log) }
            report.failures.append(failure)
        }
        for finding in outcome.report.findings.sorted(by: { $0.index < $1.index }) {
            var failure = FuzzRunReport.Failure(kind: "finding", index: finding.index, message: finding.description)
            if report.failures.count < FuzzReproducers.limit { try reproducers.save(finding.index, into: &failure) }
            report.failures.append(failure)
        }
        report.failures.sort { $0.index < $1.index }
        if json {
            print(try report.json(), to: &output)
        } else {
            print(report.text, terminator: "", to: &output)
        }
        guard !report.failures.isEmpty else { return }
        for failure in report.failures {
            var message = "Error: \(failure.message)"
            if let file = failure.reproducer, let database = failure.database {
                message += "\nReproducer written to \(file), with the base replica in \(database). Replay it with "
                    + "`cp \(database) scratch.db && concord import scratch.db \(file)`, or as the fuzzer ran it "
                    + "(fixed clock, every route, every check) with `concord fuzz --replay \(file)`."
            }
            print(message, to: &output.standardError)
        }
        throw ExitCode.failure
    }
}

/// The worker could not even start running inputs (its base replica failed, say).
struct FuzzSetupFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Seconds of wall time since `start`.
private func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}
