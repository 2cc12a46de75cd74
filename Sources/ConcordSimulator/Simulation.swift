@_spi(Testing) import Concord
import ConcordTesting
import Foundation

/// A deterministic run of several devices editing, syncing, crashing and
/// skewing clocks, with every invariant of DESIGN.md checked as it goes.
///
/// The seed decides everything: fault rates, node ids, clock skews, which
/// device does what and when, delays, losses and partitions. It is turned
/// into a ``SimulationPlan`` first, and the plan is then run: so the same
/// seed gives the same trace and byte-identical databases, a failure is
/// reproduced by running its plan again, and the shrinker makes a failing
/// plan smaller by replaying fewer, simpler choices.
///
/// ```swift
/// let result = try Simulation(scenario: .default, seed: 7).run()
/// print(result.failure ?? "converged in \(result.roundsToConverge) rounds")
/// ```
public struct Simulation: Sendable {
    /// What runs: the app, topology, devices, steps and fault ranges.
    public let scenario: Scenario
    /// The seed every choice of the run is drawn from.
    public let seed: UInt64
    /// Keep the event trace in the result (for `concord replay`).
    public var keepsTrace = false
    /// Bugs injected into every device's replica, to test the checks themselves.
    @_spi(Testing) public var injectedBugs: InjectedBugs = []

    /// The simulation of `scenario` under `seed`; nothing runs until ``run()``.
    public init(scenario: Scenario = .default, seed: UInt64, keepsTrace: Bool = false) {
        self.scenario = scenario
        self.seed = seed
        self.keepsTrace = keepsTrace
    }

    /// The plan the seed draws, and the choices it drew it from.
    public func plan() -> (plan: SimulationPlan, choices: [UInt64]) {
        var source = ChoiceSource(seed: seed, maxChoices: 1_000_000)
        let plan = SimulationPlan.draw(for: scenario, using: &source)
        return (plan, source.choices)
    }

    /// The plan that recorded `choices` replay to.
    public func plan(replaying choices: [UInt64]) -> SimulationPlan {
        var source = ChoiceSource(replaying: choices, maxChoices: 1_000_000)
        return SimulationPlan.draw(for: scenario, using: &source)
    }

    /// Draws the seed's plan and runs it in a fresh temporary folder, removed afterwards.
    public func run() throws -> SimulationResult {
        try run(plan().plan)
    }

    /// Runs `plan`, keeping no files: every database lives on its device's simulated disk, and the
    /// result still carries the hash of their final bytes.
    public func run(_ plan: SimulationPlan) throws -> SimulationResult {
        try run(plan, directory: nil)
    }

    /// Runs `plan` and writes each device's final database file to `directory`, to read afterwards.
    public func run(_ plan: SimulationPlan, in directory: URL) throws -> SimulationResult {
        try run(plan, directory: directory)
    }

    /// Runs `plan`; a failure to set the devices up (installing the app, opening a replica, the settings its
    /// app makes) is the run's failure, at step 0, so a batch reports it with a reproducer like any other
    /// rather than stopping (a swarm once stopped so, with no seed to replay).
    private func run(_ plan: SimulationPlan, directory: URL?) throws -> SimulationResult {
        let run: SimulationRun
        do {
            run = try SimulationRun(simulation: self, plan: plan, directory: directory)
        } catch {
            var result = SimulationResult(seed: seed, scenario: scenario.name, steps: plan.steps.count)
            result.failure = .init(kind: .error, step: 0, message: "setting the devices up: \(error)")
            return result
        }
        return try run.execute()
    }

    /// How far a clock jump sets a device ahead: twice the default drift limit.
    static let jump: Int64 = 2 * HybridLogicalClock.defaultMaxDrift

    /// Simulated time starts at 2026-01-01T00:00Z.
    static let start: Int64 = 1_767_225_600_000

    /// The node id of device `index` in this seed's run.
    func node(forDevice index: Int) -> NodeID {
        var generator = SeededGenerator(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(index))
        return NodeID.random(using: &generator)
    }
}
