import Testing

@testable import ConcordSimulator

/// What a crash of `concord simulate` prints first: the runs under way, each with its seed.
@Suite("Runs in flight", .tags(.simulation))
struct RunsInFlightTests {
    @Test func aRunIsNotedWhileItRunsAndForgottenAfter() {
        let simulation = Simulation(scenario: Scenario(name: "noted-run", devices: 2, steps: 1), seed: 42)
        // The last slot: batches in other tests running meanwhile use the first ones.
        let inside = RunsInFlight.running(simulation, job: RunsInFlight.slotCount - 1) { RunsInFlight.noted }
        #expect(
            inside.contains(
                "concord: crashed while running scenario 'noted-run' seed 42 (run it alone with --seeds 42..42)\n"))
        #expect(!RunsInFlight.noted.contains { $0.contains("'noted-run'") })
    }

    @Test func aLongScenarioNameIsCutToFitItsSlotWithTheSeedKept() {
        let name = String(repeating: "n", count: 2_000)
        let simulation = Simulation(scenario: Scenario(name: name, devices: 2, steps: 1), seed: 7)
        let inside = RunsInFlight.running(simulation, job: RunsInFlight.slotCount - 1) { RunsInFlight.noted }
        let line = inside.first { $0.contains("nnnn") }
        #expect(line?.hasSuffix("(run it alone with --seeds 7..7)\n") == true)
        #expect((line?.utf8.count ?? .max) < RunsInFlight.slotSize)
    }
}
