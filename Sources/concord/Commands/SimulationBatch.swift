import ConcordSimulator
import Foundation
import Synchronization

/// Runs simulations on `jobs` threads and returns their results in the order given.
struct SimulationBatch {
    let runs: [Simulation]
    let jobs: Int

    func run(progress: (Int) -> Void) throws -> [SimulationResult] {
        let slots = Mutex<[Result<SimulationResult, any Error>?]>(Array(repeating: nil, count: runs.count))
        let next = Mutex(0)
        let done = Mutex(0)
        let runs = self.runs
        let group = DispatchGroup()
        for _ in 0..<min(jobs, runs.count) {
            DispatchQueue.global().async(group: group) {
                while true {
                    let index = next.withLock { value -> Int in defer { value += 1 }; return value }
                    guard index < runs.count else { return }
                    let outcome = Result { try runs[index].run() }
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
        progress(runs.count)
        return try slots.withLock { $0 }.map { try $0!.get() }
    }
}

/// Totals over a batch of runs, as `concord simulate` prints them.
struct SimulationSummary: Encodable {
    let results: [SimulationResult]
    let seconds: Double

    private func total(_ value: (SimulationResult) -> Int) -> Int { results.reduce(0) { $0 + value($1) } }

    private func merged(_ counts: (SimulationResult) -> [String: Int]) -> [String: Int] {
        results.reduce(into: [:]) { sum, result in
            for (key, count) in counts(result) { sum[key, default: 0] += count }
        }
    }

    /// Plan steps run per second of wall time, over every run.
    var operationsPerSecond: Double { Double(total(\.steps)) / max(seconds, 0.001) }

    var table: String {
        var scenarios: [String] = []
        for result in results where !scenarios.contains(result.scenario) { scenarios.append(result.scenario) }
        let perScenario = scenarios.map { name -> String in
            let runs = results.filter { $0.scenario == name }
            return "\(name) \(runs.count - runs.filter { !$0.passed }.count)/\(runs.count)"
        }
        let conflicts = merged(\.conflicts), fates = merged(\.fates)
        var rows: [(String, String)] = [
            ("scenarios (runs passed)", perScenario.joined(separator: ", ")),
            ("runs x steps", "\(results.count) runs, \(total(\.steps)) steps"),
            ("writes accepted / refused", "\(total(\.writes)) / \(total(\.rejectedWrites))"),
            ("mesh changesets sent / duplicated / lost", "\(total(\.messagesSent)) / \(total(\.messagesDuplicated)) / \(total(\.messagesLost))"),
            ("cloud uploads / fetches / pushes lost", "\(total(\.uploads)) / \(total(\.fetches)) / \(total(\.pushesLost))"),
            ("server record changed (merged, retried)", "\(total(\.serverRecordChanged))"),
            ("rows merged", "\(total(\.rowsMerged))"),
        ]
        rows += conflicts.keys.sorted().map { ("conflicts resolved, \($0)", "\(conflicts[$0]!)") }
        rows += [
            ("cascaded deletes", "\(total(\.cascades))"),
            ("rows parked / unparked", "\(total(\.parked)) / \(total(\.unparked))"),
            ("crashes / partitions / forks", "\(total(\.crashes)) / \(total(\.partitions)) / \(total(\.forks))"),
            ("clock jumps / drift refusals", "\(total(\.clockJumps)) / \(total(\.driftRefusals))"),
            ("rounds to converge (max)", "\(results.map(\.roundsToConverge).max() ?? 0)"),
            ("writes visible / superseded / deleted / parked",
             ["visible", "superseded", "deleted", "parked"].map { "\(fates[$0] ?? 0)" }.joined(separator: " / ")),
            ("device operations per second", String(format: "%.0f", operationsPerSecond)),
            ("failed runs", "\(results.filter { !$0.passed }.count)"),
        ]
        return rows.map { $0.0.padding(toLength: 48, withPad: " ", startingAt: 0) + $0.1 }.joined(separator: "\n") + "\n"
    }

    enum CodingKeys: String, CodingKey { case results, seconds, operationsPerSecond }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(results, forKey: .results)
        try container.encode(seconds, forKey: .seconds)
        try container.encode(operationsPerSecond, forKey: .operationsPerSecond)
    }
}
