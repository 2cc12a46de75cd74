import ConcordSimulator
import Foundation

/// The arguments of `concord simulate`.
struct SimulateOptions: ParsableOptions {
    @Positional(help: "Scenario JSON files to run.")
    var scenario: [String]
    @Option(valueName: "n", help: "Run this one seed.")
    var seed: UInt64?
    @Option(valueName: "a..b", help: "Run this range of seeds (default: the scenario's, 1..20).")
    var seeds: ClosedRange<UInt64>?
    @Option(
        valueName: "time",
        help: "Run seeds upward until this much time has passed (90s, 10m, 1h), from --seeds' low end (or --seed, "
            + "or 1; the high end is ignored), each scenario in turn, fault rates drawn per seed; stops at the first "
            + "failure.")
    var duration: TimeBudget?
    @Option(valueName: "k", help: "Devices per run, 2 or more (default: the scenario's, 3).")
    var devices: Int?
    @Option(valueName: "s", help: "Steps per run (default: the scenario's, 200).")
    var steps: Int?
    @Option(valueName: "kind", help: "How devices exchange changes (default: the scenario's, mesh).")
    var topology: Scenario.Topology?
    @Option(valueName: "j", help: "Runs in parallel (default: one per core).")
    var jobs: Int?
    @Option(
        valueName: "K/N",
        help: "Run only the K-th of N disjoint slices of the runs (every N-th, from the K-th), to spread a sweep "
            + "over machines.")
    var shard: SimulationShard?
    @Flag(
        help: "Stop at the first run that fails, in seed order (each scenario's in turn): later runs are not "
            + "started or reported, nor mustReach checked (--duration always stops so).")
    var failFast = false
    @Flag(help: "Print machine-readable JSON.")
    var json = false
    @Flag(short: "q", help: "No progress line (it is drawn on standard error only when that is a terminal).")
    var quiet = false

    func validate() throws(UsageError) {
        if duration != nil, shard != nil {
            throw UsageError("--duration and --shard cannot be combined; give each machine its own --seeds start")
        }
    }

    /// `--jobs`, else one run per core: runs are independent, and their results are reported in seed
    /// order whatever finishes first, so the output does not depend on it.
    var jobCount: Int { jobs ?? ProcessInfo.processInfo.activeProcessorCount }

    /// `--seed`, else `--seeds`, else `nil` for each scenario's own seeds.
    var seedRange: ClosedRange<UInt64>? { seed.map { $0...$0 } ?? seeds }

    /// Whether the scenarios' `mustReach` lists are checked: not for one seed (unless it starts a
    /// `--duration` sweep), nor for one shard of a sweep.
    var checksMustReach: Bool { (seed == nil || duration != nil) && shard == nil }

    /// The scenario files (the built-in reminders scenario when none is named) with the options' overrides.
    func loadScenarios() throws -> [Scenario] {
        var scenarios = try scenario.map { try Scenario.load(path: $0) }
        if scenarios.isEmpty { scenarios = [.default] }
        for index in scenarios.indices {
            if let devices { scenarios[index].devices = devices }
            if let steps { scenarios[index].steps = steps }
            if let topology { scenarios[index].topology = topology }
            do { try scenarios[index].validate() } catch let error as ScenarioError { throw UsageError(error.message) }
        }
        return scenarios
    }
}

extension Scenario.Topology: ArgumentValue {}

extension SimulationShard: ArgumentValue {
    init(argument: String) throws(InvalidArgument) {
        do { try self.init(parsing: argument) } catch { throw InvalidArgument(error.description) }
    }

    var argumentText: String { description }
}

extension TimeBudget: ArgumentValue {
    init(argument: String) throws(InvalidArgument) {
        guard let budget = TimeBudget(parsing: argument) else {
            throw InvalidArgument("expected a whole number of seconds, minutes or hours, such as 90s, 10m or 1h")
        }
        self = budget
    }

    var argumentText: String { description }
}

extension Subcommand {
    static let simulate = Subcommand(
        "simulate",
        abstract: "Replay many devices editing, syncing, crashing and skewing clocks, and check they converge.",
        discussion: """
            Runs each scenario (the built-in reminders scenario when none is given) over a range \
            of seeds. Devices exchange changes peer to peer (mesh) or through a record server \
            (cloud) while messages are delayed, duplicated and lost, links are cut, devices crash, \
            fork and skew their clocks, at rates drawn per seed. Every touched device is checked \
            after every step, fully (integrity and projection) every `checks.fullEvery` steps, 10 \
            by default; then everyone reconnects and all devices must end identical, equal \
            to an independent reference model, with every accepted write accounted for. The same \
            seed gives the same trace. Exits 1 on any failure and writes a reproducer for \
            `concord replay`. After the summary, a coverage table says how many runs reached each \
            interesting event (a torn write, a RESTRICT revival, a fork, ...) and how often; a \
            scenario's `mustReach` lists events its runs must reach, and a batch where no run \
            reached one exits 1 (not checked for one --seed, nor with --shard). With --duration, seeds run \
            until the time is up (a swarm) and the report adds seeds per second. Scenario files, \
            the events and mustReach are described in Simulations/README.md.
            """,
        options: SimulateOptions.self
    ) { options, output in
        output.quiet = options.quiet
        // A run that traps takes the process down with it: name the runs under way first.
        RunsInFlight.reportOnCrash()
        let scenarios = try options.loadScenarios()
        let started = ContinuousClock.now
        let runs: [Simulation]
        let results: [SimulationResult]
        var stoppedEarly = false
        let progress: ProgressLine
        if let duration = options.duration {
            let swarm = SimulationSwarm(
                scenarios: scenarios, firstSeed: options.seedRange?.lowerBound ?? 1, jobs: options.jobCount)
            // Time-boxed: the share done is the time spent; the runs and their rate are the count.
            progress = output.progressLine("simulate", unit: .items("runs"))
            let budget = duration.duration.seconds
            results = try swarm.run(for: duration.duration) { done in
                let left = max(budget - (ContinuousClock.now - started).seconds, 0)
                progress.update(done, detail: "\(ProgressMeter.clockTime(left)) left of \(duration)")
            }
            runs = results.indices.map(swarm.simulation(at:))
            // A swarm stops at its first failure: the scenarios after it ran little or not at all.
            stoppedEarly = results.contains { !$0.passed }
        } else {
            let batch = try SimulationBatch(
                scenarios: scenarios, seeds: options.seedRange, jobs: options.jobCount, shard: options.shard)
            progress = output.progressLine("simulate", total: batch.runs.count, unit: .items("runs"))
            progress.update(0)
            results = try batch.run(stoppingAtFirstFailure: options.failFast) { done in progress.update(done) }
            runs = Array(batch.runs.prefix(results.count))
            stoppedEarly = results.count < batch.runs.count
        }
        progress.clear()
        let summary = SimulationSummary(results: results, seconds: (ContinuousClock.now - started).seconds)
        if options.json {
            try output.printJSON(summary)
        } else {
            print(summary.table, terminator: "", to: &output)
            if options.duration != nil { print(summary.swarmTable, terminator: "", to: &output) }
            print("\n" + summary.coverageTable, terminator: "", to: &output)
        }
        let failed = try reportSimulationFailures(runs, results, &output)
        let unreached = options.checksMustReach && !stoppedEarly && reportUnreachedEvents(scenarios, results, &output)
        if failed || unreached { throw ExitCode.failure }
    }
}
