import Foundation
import Synchronization

/// Runs seeds upward, scenario by scenario in turn, on several threads, until time is up or a run fails.
///
/// A batch runs a fixed range of seeds; a swarm runs for a fixed time, so an
/// idle machine (or a night) can try as many seeds as it can. Each seed draws
/// its own fault rates from the scenario's ranges, as every run does, so a
/// long swarm explores many mixes of faults. Runs are numbered: run *i* is
/// scenario *i* mod *n* under seed `firstSeed + i / n`; threads take the next
/// number until the time is up or some run failed, and every run taken
/// finishes, so the results are always runs 0 to *k*, in that order, and the
/// same seed gives the same result as in any batch.
///
/// ```swift
/// let swarm = SimulationSwarm(scenarios: [.default], firstSeed: 1, jobs: 2)
/// let results = try swarm.run(for: .seconds(60))
/// results.last?.seed   // the highest seed reached
/// ```
public struct SimulationSwarm: Sendable {
    /// The scenarios, taken in turn for each seed.
    public let scenarios: [Scenario]
    /// The seed of the first run.
    public let firstSeed: UInt64
    /// Threads running simulations at once (at least 1).
    public let jobs: Int

    /// A swarm over `scenarios` (at least one) from `firstSeed` upward.
    public init(scenarios: [Scenario], firstSeed: UInt64 = 1, jobs: Int) {
        precondition(!scenarios.isEmpty, "a swarm needs a scenario")
        self.scenarios = scenarios
        self.firstSeed = firstSeed
        self.jobs = max(1, jobs)
    }

    /// Run number `index`: the scenario `index` mod their count, under seed `firstSeed + index / count`.
    public func simulation(at index: Int) -> Simulation {
        Simulation(
            scenario: scenarios[index % scenarios.count], seed: firstSeed &+ UInt64(index / scenarios.count))
    }

    /// Runs until `duration` has passed or a run failed; the first error a run throws is rethrown once every
    /// run taken has finished. `progress` is called on the calling thread with the runs finished, at most
    /// five times a second and once at the end.
    public func run(for duration: Duration, progress: (Int) -> Void = { _ in }) throws -> [SimulationResult] {
        let deadline = ContinuousClock.now + duration
        let outcomes = Mutex<[Int: Result<SimulationResult, any Error>]>([:])
        let next = Mutex(0)
        let stopped = Mutex(false)
        let group = DispatchGroup()
        let swarm = self
        for job in 0..<jobs {
            DispatchQueue.global().async(group: group) {
                while true {
                    let index = next.withLock { value -> Int? in
                        guard !stopped.withLock({ $0 }), ContinuousClock.now < deadline else { return nil }
                        defer { value += 1 }
                        return value
                    }
                    guard let index else { return }
                    let simulation = swarm.simulation(at: index)
                    let outcome = Result { try RunsInFlight.running(simulation, job: job) { try simulation.run() } }
                    if (try? outcome.get())?.passed != true { stopped.withLock { $0 = true } }
                    outcomes.withLock { $0[index] = outcome }
                }
            }
        }
        var reported = 0
        while group.wait(timeout: .now() + .milliseconds(200)) == .timedOut {
            let finished = outcomes.withLock { $0.count }
            if finished != reported {
                reported = finished
                progress(finished)
            }
        }
        let finished = outcomes.withLock { $0 }
        progress(finished.count)
        return try finished.keys.sorted().map { try finished[$0]!.get() }
    }
}
