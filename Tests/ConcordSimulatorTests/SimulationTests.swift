import Concord
import ConcordTestSupport
import ConcordTesting
import Foundation
import Testing

@testable import ConcordSimulator

@Suite("Multi-device simulation", .tags(.simulation, .slow), .timeLimit(.hangGuard))
struct SimulationTests {
    /// Sweeps of seeds over both topologies: every invariant at every step, then convergence, the oracle and no loss.
    @Test(arguments: Scenario.Topology.allCases)
    func seedsPass(topology: Scenario.Topology) throws {
        var results: [SimulationResult] = []
        for seed in 1...10 as ClosedRange<UInt64> {
            let result = try Simulation(scenario: Scenario(name: "sweep", topology: topology, steps: 120), seed: seed)
                .run()
            #expect(result.passed, "seed \(seed): \(result.failure?.description ?? "did not converge")")
            #expect(result.writes > 0 && result.fates.values.reduce(0, +) > 0, "seed \(seed) accounted for no write")
            results.append(result)
        }
        // Some seeds partition a device for the whole run; across seeds, changes must have flowed.
        let exchanges = results.reduce(0) { $0 + $1.messagesSent + $1.uploads }
        let merged = results.reduce(0) { $0 + $1.rowsMerged }
        #expect(exchanges > 50 && merged > 100)
    }

    @Test(arguments: Scenario.Topology.allCases)
    func theSameSeedGivesTheSameTraceAndTheSameBytes(topology: Scenario.Topology) throws {
        let scenario = Scenario(name: "determinism", topology: topology, steps: 100)
        let first = TemporaryDirectory()
        let second = TemporaryDirectory()
        let simulation = Simulation(scenario: scenario, seed: 42)
        let a = try simulation.run(simulation.plan().plan, in: first.url)
        let b = try simulation.run(simulation.plan().plan, in: second.url)
        #expect(a == b)
        let files = try FileManager.default.contentsOfDirectory(atPath: first.url.path).filter {
            $0.hasSuffix(".sqlite")
        }.sorted()
        #expect(files.count >= 3)
        for name in files {
            #expect(
                try Data(contentsOf: first.url.appendingPathComponent(name))
                    == Data(contentsOf: second.url.appendingPathComponent(name)), "\(name) differs")
        }
        let other = try Simulation(scenario: scenario, seed: 43).run()
        #expect(other.traceHash != a.traceHash)
    }

    /// A plan is a pure function of its choices, so a reproducer's choices give back its plan.
    @Test func recordedChoicesReplayTheSamePlan() {
        let simulation = Simulation(scenario: .default, seed: 9)
        let (plan, choices) = simulation.plan()
        #expect(plan.steps.count == Scenario.default.steps)
        #expect(simulation.plan(replaying: choices) == plan)
        // A shorter sequence replays to a shorter plan rather than failing.
        #expect(simulation.plan(replaying: Array(choices.prefix(plan.choicesAfterStep[9]))).steps.count == 10)
    }

    /// Fault rates are drawn per seed: across seeds they differ, within the scenario's ranges.
    @Test func faultRatesAreDrawnPerSeed() {
        let rates = (1...20 as ClosedRange<UInt64>).map { Simulation(scenario: .default, seed: $0).plan().plan.rates }
        #expect(Set(rates.map(\.loss)).count > 5)
        #expect(rates.allSatisfy { (0...30).contains($0.loss) && (0...5).contains($0.crash) })
    }

    /// A run whose devices cannot be set up fails at step 0 with the reason, as any failing run does, so a
    /// batch reports it with its seed instead of stopping.
    @Test func aRunWhoseDevicesCannotBeSetUpFailsAtStepZero() throws {
        let broken = Workload(
            schema: "CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, body TEXT);",
            tables: [.init(name: "absent")],
            operations: ["INSERT INTO notes VALUES ('n{1..3}', '{word}')"])
        let result = try Simulation(scenario: Scenario(name: "broken", steps: 10, workload: broken), seed: 1).run()
        #expect(!result.passed)
        #expect(result.failure?.kind == .error)
        #expect(result.failure?.step == 0)
        #expect(result.failure?.message.contains("setting the devices up") == true, "\(result.failureDescription)")
    }
}
