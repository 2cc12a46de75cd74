import Foundation

/// The arguments of `concord fuzz`.
struct FuzzOptions: ParsableOptions {
    /// `--timeout 2.5`: a finite number of seconds above 0.
    struct Seconds: ArgumentValue {
        var value: Double

        init(_ value: Double) {
            self.value = value
        }

        init(argument: String) throws(InvalidArgument) {
            guard let value = Double(argument), value > 0, value.isFinite else {
                throw InvalidArgument("expected a number of seconds above 0")
            }
            self.value = value
        }

        var argumentText: String { value == value.rounded() ? String(Int(value)) : String(value) }
    }

    /// `--skip 4,17`: input indices separated by commas.
    struct Indices: ArgumentValue {
        var values: [Int]

        init(argument: String) throws(InvalidArgument) {
            let parts = argument.split(separator: ",")
            values = parts.compactMap { Int($0) }
            guard values.count == parts.count else {
                throw InvalidArgument(message: "--skip takes input indices separated by commas")
            }
        }

        var argumentText: String { values.map(String.init).joined(separator: ",") }
    }

    @Option(valueName: "n", help: "How many inputs to run.")
    var inputs = 10_000
    @Option(valueName: "s", help: "The seed the inputs are drawn from.")
    var seed: UInt64 = 1
    @Option(valueName: "index", help: "The index of the first input (to resume or rerun a range).")
    var first = 0
    @Option(valueName: "seconds", help: "How long one input may run before the worker counts as hung.")
    var timeout = Seconds(10)
    @Option(
        valueName: "j",
        help:
            "Worker processes, each on a share of the inputs (default: one per processor); counts do not depend on it.")
    var jobs: Int?
    @Flag(help: "Go on after a failure (restarting a worker that trapped or hung); write reproducers for the first 20.")
    var keepGoing = false
    @Option(valueName: "file", help: "Run one reproducer against a fresh base replica through every route, and report.")
    var replay: String?
    @Flag(help: "Print machine-readable JSON.")
    var json = false
    @Flag(short: "q", help: "No progress line (it is drawn on standard error only when that is a terminal).")
    var quiet = false
    @Option(
        valueName: "dir",
        help: "Internal: run the inputs in this process as the supervisor's worker, with its files in DIR.")
    var worker: String?
    @Option(valueName: "indices", help: "Internal, with --worker: inputs not to run (they crashed a worker).")
    var skip: Indices?

    func validate() throws(UsageError) {
        guard inputs >= 0, first >= 0, first <= Int.max - inputs else {
            throw UsageError("--inputs and --first must be at least 0")
        }
        if let jobs, jobs < 1 { throw UsageError("--jobs must be at least 1") }
    }

    /// The indices of the inputs to run.
    var indices: Range<Int> { first..<first + inputs }
}

extension Subcommand {
    static let fuzz = Subcommand(
        "fuzz",
        abstract:
            "Apply hostile changesets to a scratch replica and check each is refused cleanly or merged consistently.",
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
        options: FuzzOptions.self
    ) { options, output in
        output.quiet = options.quiet
        if let file = options.replay {
            try FuzzReplay(path: file).run(json: options.json, output: &output)
        } else if let directory = options.worker {
            try runFuzzWorker(options, in: directory, &output)
        } else {
            try superviseFuzz(options, &output)
        }
    }

    /// `--worker`: runs the inputs in this process and prints their counts as one line of JSON for the supervisor.
    private static func runFuzzWorker(_ options: FuzzOptions, in directory: String, _ output: inout Output) throws {
        let report = try FuzzWorker(
            directory: directory, seed: options.seed, inputs: options.indices,
            skip: Set(options.skip?.values ?? []), keepGoing: options.keepGoing
        ).run()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        print(String(decoding: try encoder.encode(report), as: UTF8.self), to: &output)
    }

    /// Runs the inputs in supervised worker processes, prints the report, and exits 1 on any failure.
    private static func superviseFuzz(_ options: FuzzOptions, _ output: inout Output) throws {
        let run = FuzzSupervisor.scratchRoot() + "/concord-fuzz-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: run) }
        let supervisor = FuzzSupervisor(
            directory: run, executable: currentExecutablePath(), seed: options.seed, inputs: options.indices,
            jobs: options.jobs ?? ProcessInfo.processInfo.activeProcessorCount, keepGoing: options.keepGoing,
            timeout: options.timeout.value)
        let started = ContinuousClock.now
        let progress = output.progressLine("fuzz", total: options.inputs, unit: .items("inputs"))
        let outcome = try supervisor.run { done in progress.update(done) }
        progress.clear()
        var reproducers = FuzzReproducers(seed: options.seed, scratch: run + "/regenerate")
        let report = try FuzzRunReport(
            outcome, first: options.first, requested: options.inputs,
            seconds: (ContinuousClock.now - started).seconds, timeout: options.timeout.value,
            reproducers: &reproducers)
        if options.json {
            try output.printJSON(report)
        } else {
            print(report.text, terminator: "", to: &output)
        }
        guard !report.failures.isEmpty else { return }
        for message in report.errorMessages { print(message, to: &output.standardError) }
        throw ExitCode.failure
    }
}
