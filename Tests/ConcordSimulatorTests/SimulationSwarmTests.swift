import ConcordTestSupport
import Foundation
import Testing

@testable import ConcordSimulator

/// Time-boxed sweeps: `--duration` values, and a swarm that runs seeds upward until the time is up.
@Suite("Simulation swarms", .tags(.simulation), .timeLimit(.hangGuard))
struct SimulationSwarmTests {
    @Test func durationsAreWholeSecondsMinutesOrHours() {
        #expect(TimeBudget(parsing: "90s")?.seconds == 90)
        #expect(TimeBudget(parsing: "10m")?.seconds == 600)
        #expect(TimeBudget(parsing: "1h")?.seconds == 3_600)
        #expect(TimeBudget(parsing: "120s")?.description == "2m")
        #expect(TimeBudget(parsing: "90s")?.description == "90s")
        #expect(TimeBudget(parsing: "10m")?.duration == .seconds(600))
        for bad in ["90", "0s", "-1m", "1d", "", "m", "1.5h", "10 m", "99999999999999999999h"] {
            #expect(TimeBudget(parsing: bad) == nil, "\(bad) was read")
        }
    }

    /// Runs alternate between the scenarios, seeds go up from the first, and each run is the seed's own.
    @Test func aSwarmRunsSeedsUpwardUntilTheTimeIsUp() throws {
        let scenarios = [Scenario(name: "a", devices: 2, steps: 10), Scenario(name: "b", devices: 2, steps: 10)]
        let swarm = SimulationSwarm(scenarios: scenarios, firstSeed: 5, jobs: 2)
        let started = ContinuousClock.now
        let results = try swarm.run(for: .seconds(1))
        #expect(ContinuousClock.now - started < .seconds(60))
        #expect(results.count >= 2)
        for (index, result) in results.enumerated() {
            #expect(result.scenario == (index % 2 == 0 ? "a" : "b"))
            #expect(result.seed == 5 + UInt64(index / 2))
        }
        #expect(results.prefix(2) == (try (0..<2).map { try swarm.simulation(at: $0).run() })[...])
    }
}
