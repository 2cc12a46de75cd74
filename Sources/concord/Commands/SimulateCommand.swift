import ConcordSimulator
import Foundation

extension Subcommand {
    static let simulate = Subcommand(CommandSpec(
        name: "simulate",
        abstract: "Replay many devices editing, syncing, crashing and skewing clocks, and check they converge.",
        discussion: """
            Runs each scenario (the built-in reminders scenario when none is given) over a range \
            of seeds. Devices exchange changes peer to peer (mesh) or through a record server \
            (cloud) while messages are delayed, duplicated and lost, links are cut, devices crash, \
            fork and skew their clocks, at rates drawn per seed. Every touched device is checked \
            after every step; then everyone reconnects and all devices must end identical, equal \
            to an independent reference model, with every accepted write accounted for. The same \
            seed gives the same trace. Exits 1 on any failure and writes a reproducer for \
            `concord replay`. Scenario files are described in Simulations/README.md.
            """,
        arguments: [
            .positional("scenario", .repeating(minimum: 0), help: "Scenario JSON files to run."),
            .option("seed", valueName: "n", help: "Run this one seed."),
            .option("seeds", valueName: "a..b", help: "Run this range of seeds (default: the scenario's, 1..20)."),
            .option("devices", valueName: "k", help: "Devices per run, 2 or more (default: the scenario's, 3)."),
            .option("steps", valueName: "s", help: "Steps per run (default: the scenario's, 200)."),
            .option("topology", valueName: "kind", allowedValues: ["cloud", "mesh"],
                    help: "How devices exchange changes (default: the scenario's, mesh)."),
            .option("jobs", valueName: "j", default: "1", help: "Runs in parallel."),
            .flag("json", help: "Print machine-readable JSON."),
        ])
    ) { arguments, output in
        var scenarios = try arguments.positionals("scenario").map { try Scenario.load(path: $0) }
        if scenarios.isEmpty { scenarios = [.default] }
        for index in scenarios.indices {
            if arguments.option("devices") != nil { scenarios[index].devices = try arguments.integer("devices") }
            if arguments.option("steps") != nil { scenarios[index].steps = try arguments.integer("steps") }
            if let topology = arguments.option("topology") { scenarios[index].topology = Scenario.Topology(rawValue: topology)! }
            do { try scenarios[index].validate() } catch let error as ScenarioError { throw UsageError(error.message) }
        }
        let override: ClosedRange<UInt64>? = arguments.option("seed") != nil
            ? try arguments.integer("seed", as: UInt64.self)...arguments.integer("seed", as: UInt64.self)
            : arguments.option("seeds") != nil ? try arguments.range("seeds") : nil
        let runs = try scenarios.flatMap { scenario in
            try (override ?? scenario.seedRange).map { Simulation(scenario: scenario, seed: $0) }
        }
        let showProgress = output.standardError.isTerminal && !arguments.flag("json")
        let started = ContinuousClock.now
        let results = try SimulationBatch(runs: runs, jobs: max(1, try arguments.integer("jobs"))).run { done in
            guard showProgress else { return }
            let width = 30, filled = width * done / runs.count
            FileHandle.standardError.write(Data(("\r[" + String(repeating: "#", count: filled)
                + String(repeating: ".", count: width - filled) + "] \(done)/\(runs.count) runs").utf8))
        }
        if showProgress { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let summary = SimulationSummary(results: results, seconds: seconds)
        if arguments.flag("json") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(summary), as: UTF8.self), to: &output)
        } else {
            print(summary.table, terminator: "", to: &output)
        }
        let failed = zip(runs, results).filter { !$0.1.passed }
        guard !failed.isEmpty else { return }
        for (simulation, result) in failed {
            let file = "concord-reproducer-\(simulation.scenario.name)-\(simulation.seed).json"
            let failure = result.failure?.description ?? "did not converge"
            try Reproducer(scenario: simulation.scenario, seed: simulation.seed, choices: simulation.plan().choices,
                           failure: failure).write(to: file)
            print("Error: \(simulation.scenario.name) seed \(simulation.seed): \(failure)\n"
                  + "Reproducer written to \(file); run it again with `concord replay \(file)`, "
                  + "or shrink it with `concord replay \(file) --shrink`.", to: &output.standardError)
        }
        throw ExitCode.failure
    }
}
