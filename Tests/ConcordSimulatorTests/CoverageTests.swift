import ConcordTestSupport
import Foundation
import Testing

@testable import ConcordSimulator

/// What a run reached: its coverage is observed, deterministic, and agrees with the result's counts.
@Suite("Coverage of a run", .tags(.simulation, .slow), .timeLimit(.hangGuard))
struct CoverageTests {
    static let powerLoss = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Simulations/power-loss.json").path

    /// Seed 1 of `power-loss.json` tears writes, forks and loses power; run twice, it reaches the same events.
    @Test func aSeedReportsTheEventsItReachedAndTheSameSeedTheSameOnes() throws {
        let scenario = try Scenario.load(path: Self.powerLoss)
        let first = try Simulation(scenario: scenario, seed: 1).run()
        #expect(first.passed, "\(first.failureDescription)")
        for event in [CoverageEvent.powerLoss, .tornWrite, .fork] {
            #expect(first.coverage[event] > 0, "\(event.rawValue) not reached")
        }
        #expect(first.coverage[.powerLoss] == first.powerLosses)
        #expect(first.coverage[.fork] == first.forks)
        let midOperation: [CoverageEvent] = [.crashMidWrite, .crashMidApply, .crashMidFoldOrExport]
        #expect(midOperation.reduce(0) { $0 + first.coverage[$1] } == first.midOperationCrashes)
        #expect(first.coverage[.hostileRefused] == 0, "power-loss.json sends no hostile changesets")
        let again = try Simulation(scenario: scenario, seed: 1).run()
        #expect(again.coverage == first.coverage)
        #expect(again.traceHash == first.traceHash)
    }

    /// Two devices that rarely sync, tapping one counter, increment the same cell concurrently.
    @Test func concurrentCounterIncrementsAreSeenInTheLedger() throws {
        let taps = Workload(
            schema: "CREATE TABLE counters (id TEXT PRIMARY KEY NOT NULL, taps INTEGER NOT NULL DEFAULT 0);",
            tables: [.init(name: "counters", merges: ["taps": "counter"])],
            operations: [
                "INSERT OR IGNORE INTO counters (id) VALUES ('c1')",
                "UPDATE counters SET taps = taps + {1..2} WHERE id = 'c1'",
            ])
        var scenario = Scenario(name: "counters", devices: 2, steps: 60, workload: taps)
        scenario.mix.sync = 10
        let results = try (1...3 as ClosedRange<UInt64>).map { try Simulation(scenario: scenario, seed: $0).run() }
        #expect(results.allSatisfy { $0.passed })
        #expect(results.contains { $0.coverage[.concurrentCounterIncrements] > 0 })
    }

    /// Names are stable kebab-case, every event has one, and the JSON of a run's coverage uses them.
    @Test func eventsAreNamedInKebabCaseAndCoverageEncodesByName() throws {
        #expect(CoverageEvent.allCases.allSatisfy { $0.rawValue.allSatisfy { $0.isLowercase || $0 == "-" } })
        #expect(try CoverageEvent(named: "torn-write") == .tornWrite)
        var coverage = Coverage()
        coverage.record(.tornWrite, times: 2)
        coverage.record(.fork)
        #expect(coverage.reached == [.tornWrite, .fork])
        let json = String(decoding: try JSONEncoder().encode(coverage), as: UTF8.self)
        #expect(json.contains("\"torn-write\":2") && json.contains("\"fork\":1"))
        #expect(try JSONDecoder().decode(Coverage.self, from: Data(json.utf8)) == coverage)
    }

    /// A tally lists every event in declaration order, with runs that reached it and occurrences.
    @Test func aTallyCountsRunsAndOccurrencesOfEveryEvent() {
        var one = SimulationResult(seed: 1, scenario: "s", steps: 1)
        one.coverage.record(.fork, times: 3)
        var two = SimulationResult(seed: 2, scenario: "s", steps: 1)
        two.coverage.record(.fork)
        let tallies = CoverageTally.over([one, two])
        #expect(tallies.map(\.event) == CoverageEvent.allCases)
        #expect(tallies.first { $0.event == .fork } == CoverageTally(event: .fork, runs: 2, occurrences: 4))
        #expect(tallies.first { $0.event == .restore } == CoverageTally(event: .restore, runs: 0, occurrences: 0))
    }
}
