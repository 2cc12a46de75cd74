import Concord
import ConcordSimulator
import Foundation
import Synchronization

extension Subcommand {
    static let simulate = Subcommand(CommandSpec(
        name: "simulate",
        abstract: "Replay many devices editing, syncing, crashing and skewing clocks, and check they converge.",
        discussion: """
            Runs the reminders app on several file-backed devices that exchange changesets \
            peer to peer through a network that delays, reorders, duplicates and loses them, \
            with partitions, crashes and clock skew drawn per seed. Every device is checked \
            after every step (foreign keys, tables equal to the projection of the registers); \
            then the network heals and all devices must end identical. The same seed gives \
            the same trace. Exits 1 on any failure, naming the seed to rerun.
            """,
        arguments: [
            .option("seed", valueName: "n", help: "Run this one seed."),
            .option("seeds", valueName: "a..b", default: "1..20", help: "Run this range of seeds."),
            .option("devices", valueName: "k", default: "3", help: "Devices per run (2 or more)."),
            .option("steps", valueName: "s", default: "200", help: "Steps per run."),
            .option("jobs", valueName: "j", default: "1", help: "Seeds run in parallel."),
            .flag("json", help: "Print machine-readable JSON."),
        ])
    ) { arguments, output in
        let seeds = arguments.option("seed") != nil
            ? [try arguments.integer("seed", as: UInt64.self)] : Array(try arguments.range("seeds"))
        let devices = try arguments.integer("devices"), steps = try arguments.integer("steps")
        let jobs = max(1, try arguments.integer("jobs"))
        guard devices >= 2 else { throw UsageError("--devices must be at least 2") }
        guard steps >= 1 else { throw UsageError("--steps must be at least 1") }
        let configuration = Simulation.Configuration(devices: devices, steps: steps)
        let showProgress = output.standardError.isTerminal && !arguments.flag("json")
        let started = ContinuousClock.now
        let results = try SimulationBatch(seeds: seeds, configuration: configuration, jobs: jobs).run { done in
            guard showProgress else { return }
            let width = 30, filled = width * done / seeds.count
            FileHandle.standardError.write(Data(("\r[" + String(repeating: "#", count: filled)
                + String(repeating: ".", count: width - filled) + "] \(done)/\(seeds.count) seeds").utf8))
        }
        if showProgress { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let summary = SimulationSummary(configuration: configuration, results: results, seconds: seconds)
        if arguments.flag("json") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(summary), as: UTF8.self), to: &output)
        } else {
            print(summary.table, terminator: "", to: &output)
        }
        let failed = results.filter { $0.failure != nil || !$0.converged }
        if !failed.isEmpty {
            for result in failed {
                let file = "concord-reproducer-\(result.seed).json"
                try Reproducer(seed: result.seed, configuration: configuration, failure: result.failure ?? "did not converge")
                    .write(to: file)
                print("Error: seed \(result.seed) failed: \(result.failure ?? "did not converge"); "
                      + "reproducer written to \(file); rerun it with `concord replay \(file)`", to: &output.standardError)
            }
            throw ExitCode.failure
        }
    }
}

/// Runs seeds on `jobs` threads and returns their results in seed order.
struct SimulationBatch {
    let seeds: [UInt64]
    let configuration: Simulation.Configuration
    let jobs: Int

    func run(progress: (Int) -> Void) throws -> [Simulation.Result] {
        let slots = Mutex<[Result<Simulation.Result, any Error>?]>(Array(repeating: nil, count: seeds.count))
        let next = Mutex(0)
        let done = Mutex(0)
        let (seeds, configuration) = (self.seeds, self.configuration)
        let group = DispatchGroup()
        for _ in 0..<min(jobs, seeds.count) {
            DispatchQueue.global().async(group: group) {
                while true {
                    let index = next.withLock { value -> Int in defer { value += 1 }; return value }
                    guard index < seeds.count else { return }
                    let outcome = Result { try Simulation(seed: seeds[index], configuration: configuration).run() }
                    slots.withLock { $0[index] = outcome }
                    done.withLock { $0 += 1 }
                }
            }
        }
        var reported = 0
        while group.wait(timeout: .now() + .milliseconds(200)) == .timedOut {
            let finished = done.withLock { $0 }
            if finished != reported { reported = finished; progress(finished) }
        }
        progress(seeds.count)
        return try slots.withLock { $0 }.map { try $0!.get() }
    }
}

/// Totals over a batch of runs, as `concord simulate` prints them.
struct SimulationSummary: Encodable {
    let configuration: Simulation.Configuration
    let results: [Simulation.Result]
    let seconds: Double

    var table: String {
        func total(_ value: (Simulation.Result) -> Int) -> Int { results.reduce(0) { $0 + value($1) } }
        let failures = results.filter { $0.failure != nil || !$0.converged }.count
        let operations = total { $0.writes + $0.rejectedWrites + $0.messagesSent }
        let rows: [(String, String)] = [
            ("seeds", "\(results.count) (\(results.first?.seed ?? 0)...\(results.last?.seed ?? 0))"),
            ("devices x steps", "\(configuration.devices) x \(configuration.steps)"),
            ("writes accepted / refused", "\(total(\.writes)) / \(total(\.rejectedWrites))"),
            ("changesets sent / duplicated / lost", "\(total(\.messagesSent)) / \(total(\.messagesDuplicated)) / \(total(\.messagesLost))"),
            ("rows merged", "\(total(\.rowsMerged))"),
            ("crashes / partitions / forks", "\(total(\.crashes)) / \(total(\.partitions)) / \(total(\.forks))"),
            ("clock jumps / drift refusals", "\(total(\.clockJumps)) / \(total(\.driftRefusals))"),
            ("most rows parked at once", "\(results.map(\.mostParked).max() ?? 0)"),
            ("rounds to converge (max)", "\(results.map(\.roundsToConverge).max() ?? 0)"),
            ("device operations per second", String(format: "%.0f", Double(operations) / max(seconds, 0.001))),
            ("failed seeds", "\(failures)"),
        ]
        return rows.map { $0.0.padding(toLength: 38, withPad: " ", startingAt: 0) + $0.1 }.joined(separator: "\n") + "\n"
    }

    enum CodingKeys: String, CodingKey { case configuration, results, seconds }
}
