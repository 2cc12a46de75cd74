import ConcordTestSupport
import Foundation
import Synchronization
import Testing

@testable import ConcordSimulator

@Suite("Simulation batches", .tags(.simulation), .timeLimit(.hangGuard))
struct SimulationBatchTests {
    static let scenario = Scenario(name: "batch", devices: 2, steps: 40)

    @Test func resultsComeBackInOrderAndMatchRunningOneByOne() throws {
        let batch = try SimulationBatch(scenarios: [Self.scenario], seeds: 1...4, jobs: 2)
        #expect(batch.runs.map(\.seed) == [1, 2, 3, 4])
        let reported = Mutex<[Int]>([])
        let results = try batch.run { done in reported.withLock { $0.append(done) } }
        #expect(results.map(\.seed) == [1, 2, 3, 4])
        let alone = try batch.runs.map { try $0.run() }
        #expect(results == alone, "a batch gives what the runs give one by one")
        #expect(reported.withLock { $0.last } == 4, "the last progress report counts every run")
    }

    @Test func withoutSeedsEachScenarioRunsItsOwn() throws {
        var other = Scenario(name: "other", devices: 2, steps: 10)
        other.seeds = "7..8"
        var first = Self.scenario
        first.seeds = "3"
        let batch = try SimulationBatch(scenarios: [first, other], jobs: 0)
        #expect(batch.runs.map { "\($0.scenario.name) \($0.seed)" } == ["batch 3", "other 7", "other 8"])
        #expect(batch.jobs == 1, "at least one thread runs")
    }

    @Test func summaryAddsUpEveryRun() throws {
        let results = try SimulationBatch(scenarios: [Self.scenario], seeds: 1...3, jobs: 1).run()
        var failing = results[1]
        failing.failure = SimulationResult.Failure(kind: .convergence, step: nil, message: "diverged")
        let summary = SimulationSummary(results: [results[0], failing, results[2]], seconds: 2)
        #expect(summary.total(\.writes) == results.reduce(0) { $0 + $1.writes })
        #expect(summary.failedRuns == 1)
        #expect(summary.scenarios.map { "\($0.name) \($0.passed)/\($0.runs)" } == ["batch 2/3"])
        #expect(summary.operationsPerSecond == Double(summary.total(\.steps)) / 2)
        let fates: Int = results.reduce(0) { sum, result in sum + result.fates.values.reduce(0, +) }
        #expect(summary.merged(\.fates).values.reduce(0, +) == fates)
        #expect(failing.failureDescription.contains("diverged"))
    }

    @Test func aReproducerOfAFailedRunNamesItsFileAndReplaysTheSeedsPlan() throws {
        let simulation = Simulation(scenario: Self.scenario, seed: 5)
        var result = try simulation.run()
        result.failure = SimulationResult.Failure(kind: .convergence, step: nil, message: "diverged")
        let reproducer = Reproducer(failed: simulation, result: result)
        #expect(reproducer.fileName == "concord-reproducer-batch-5.json")
        #expect(reproducer.plan == simulation.plan().plan)
        #expect(reproducer.failure == result.failureDescription)
        #expect(try reproducer.shrunk() == nil, "a plan that passes has nothing to shrink")
    }
}
