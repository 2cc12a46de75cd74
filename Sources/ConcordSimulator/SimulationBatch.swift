import Foundation
import Synchronization

/// Runs many simulations on several threads and returns their results in the order given.
///
/// Every simulation is deterministic and independent of the others, so a
/// batch over many seeds can use every core and still give the same results
/// as running them one after the other. Threads take the next run from a
/// shared counter, so a long run does not hold up a whole share of others.
///
/// ```swift
/// let batch = SimulationBatch(scenarios: [.default], seeds: 1...20, jobs: 2)
/// let results = try batch.run { done in print("\(done)/\(batch.runs.count) runs") }
/// results.allSatisfy(\.passed)   // true when every seed converged with every check passing
/// ```
public struct SimulationBatch: Sendable {
    /// The simulations, in the order their results come back.
    public let runs: [Simulation]
    /// Threads running simulations at once (at least 1).
    public let jobs: Int

    /// A batch of the given simulations.
    public init(runs: [Simulation], jobs: Int) {
        self.runs = runs
        self.jobs = max(1, jobs)
    }

    /// Every scenario over `seeds`, or over its own ``Scenario/seedRange`` when `seeds` is `nil`; with
    /// `shard`, only that shard's slice of those runs (see ``SimulationShard``).
    public init(
        scenarios: [Scenario], seeds: ClosedRange<UInt64>? = nil, jobs: Int, shard: SimulationShard? = nil
    ) throws {
        let runs = try scenarios.flatMap { scenario in
            try (seeds ?? scenario.seedRange).map { Simulation(scenario: scenario, seed: $0) }
        }
        let kept = runs.indices.filter { shard?.contains(position: $0) ?? true }.map { runs[$0] }
        self.init(runs: kept, jobs: jobs)
    }

    /// Runs every simulation; the first error any of them throws is rethrown once all have finished.
    ///
    /// `progress` is called on the calling thread with the number of runs
    /// finished, at most five times a second and once at the end.
    ///
    /// With `stoppingAtFirstFailure`, the results end at the first run, in
    /// the batch's order, that fails or throws: no later run is started once
    /// one has failed, and any already running is left out. Every run before
    /// it still finishes, so which runs come back does not depend on timing.
    ///
    /// ```swift
    /// let results = try batch.run(stoppingAtFirstFailure: true)
    /// results.last?.passed   // false when some run failed: the first one, in seed order
    /// ```
    public func run(stoppingAtFirstFailure: Bool = false, progress: (Int) -> Void = { _ in }) throws
        -> [SimulationResult]
    {
        let slots = Mutex<[Result<SimulationResult, any Error>?]>(Array(repeating: nil, count: runs.count))
        let next = Mutex(0)
        let done = Mutex(0)
        // The lowest index of a run that failed, when stopping at the first failure.
        let firstFailure = Mutex(Int.max)
        let runs = self.runs
        let group = DispatchGroup()
        for job in 0..<min(jobs, runs.count) {
            DispatchQueue.global().async(group: group) {
                while true {
                    let index = next.withLock { value -> Int in
                        defer { value += 1 }
                        return value
                    }
                    guard index < runs.count, index < firstFailure.withLock({ $0 }) else { return }
                    let outcome = Result { try RunsInFlight.running(runs[index], job: job) { try runs[index].run() } }
                    slots.withLock { $0[index] = outcome }
                    done.withLock { $0 += 1 }
                    if stoppingAtFirstFailure, (try? outcome.get().passed) != true {
                        firstFailure.withLock { $0 = min($0, index) }
                    }
                }
            }
        }
        var reported = 0
        while group.wait(timeout: .now() + .milliseconds(200)) == .timedOut {
            let finished = done.withLock { $0 }
            if finished != reported {
                reported = finished
                progress(finished)
            }
        }
        progress(runs.count)
        // Up to and including the first failure; every run when none failed (Int.max).
        let kept = min(firstFailure.withLock { $0 }, runs.count - 1) + 1
        return try slots.withLock { $0 }.prefix(kept).map { try $0!.get() }
    }
}
