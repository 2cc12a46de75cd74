@_spi(Testing) import Concord
import ConcordTestSupport
import Foundation
import Synchronization
import Testing

@_spi(Testing) @testable import ConcordSimulator

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

    @Test func stoppingAtTheFirstFailureEndsTheResultsThereWhateverTheThreads() throws {
        let passing = Simulation(scenario: InjectedBugTests.scenario("capture"), seed: 1)
        var failing = passing
        failing.injectedBugs = .captureMergeWrites
        let runs = [passing, passing, failing, passing, failing, passing]
        for jobs in [1, 2, 3] {
            let batch = SimulationBatch(runs: runs, jobs: jobs)
            let stopped = try batch.run(stoppingAtFirstFailure: true)
            #expect(stopped.map(\.passed) == [true, true, false], "\(jobs) threads")
            #expect(try batch.run().count == runs.count, "without stopping, every run is reported")
        }
        #expect(try SimulationBatch(runs: [passing, passing], jobs: 2).run(stoppingAtFirstFailure: true).count == 2)
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

    @Test func shardsAreDisjointAndTogetherRunEverything() throws {
        var other = Scenario(name: "other", devices: 2, steps: 10)
        other.seeds = "1..4"
        let all = try SimulationBatch(scenarios: [Self.scenario, other], seeds: nil, jobs: 1).runs.map {
            "\($0.scenario.name) \($0.seed)"
        }
        let shards = try (1...3).map { index in
            try SimulationBatch(
                scenarios: [Self.scenario, other], jobs: 1, shard: SimulationShard(index, of: 3)
            ).runs.map { "\($0.scenario.name) \($0.seed)" }
        }
        #expect(shards[1] == all.enumerated().filter { $0.offset % 3 == 1 }.map(\.element))
        #expect(shards.flatMap { $0 }.sorted() == all.sorted(), "every run in exactly one shard")
        #expect(try SimulationBatch(scenarios: [other], jobs: 1, shard: SimulationShard(1, of: 1)).runs.count == 4)
    }

    @Test(arguments: [
        ("0/3", "shard 0 does not exist: with 3 shards, pick one from 1 to 3"),
        ("4/3", "shard 4 does not exist: with 3 shards, pick one from 1 to 3"),
        ("1/0", "the number of shards must be at least 1, not 0"),
        ("2", "expected K/N, for example 2/3 for the second of three shards"),
        ("a/b", "expected K/N, for example 2/3 for the second of three shards"),
    ])
    func aShardThatDoesNotExistIsRefused(text: String, message: String) {
        #expect(throws: ShardError(message)) { try SimulationShard(parsing: text) }
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
