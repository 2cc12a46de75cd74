import ConcordSimulator
import Foundation

extension SimulationSummary {
    /// The summary `concord simulate` prints: one labelled line per total.
    var table: String {
        let perScenario = scenarios.map { "\($0.name) \($0.passed)/\($0.runs)" }
        let conflicts = merged(\.conflicts)
        let fates = merged(\.fates)
        var rows: [(String, String)] = [
            ("scenarios (runs passed)", perScenario.joined(separator: ", ")),
            ("runs x steps", "\(results.count) runs, \(total(\.steps)) steps"),
            ("writes accepted / refused", "\(total(\.writes)) / \(total(\.rejectedWrites))"),
            (
                "mesh changesets sent / duplicated / lost",
                "\(total(\.messagesSent)) / \(total(\.messagesDuplicated)) / \(total(\.messagesLost))"
            ),
            (
                "cloud uploads / fetches / pushes lost",
                "\(total(\.uploads)) / \(total(\.fetches)) / \(total(\.pushesLost))"
            ),
            ("server record changed (merged, retried)", "\(total(\.serverRecordChanged))"),
            ("rows merged", "\(total(\.rowsMerged))"),
        ]
        rows += conflicts.keys.sorted().map { ("conflicts resolved, \($0)", "\(conflicts[$0]!)") }
        rows += [
            ("cascaded deletes", "\(total(\.cascades))"),
            ("rows parked / unparked", "\(total(\.parked)) / \(total(\.unparked))"),
            ("crashes / partitions / forks", "\(total(\.crashes)) / \(total(\.partitions)) / \(total(\.forks))"),
            ("backups restored", "\(total(\.restores))"),
            (
                "power losses / unsynced / mid-operation",
                "\(total(\.powerLosses)) / \(total(\.powerLossesWithUnsyncedWrites)) / \(total(\.midOperationCrashes))"
            ),
            ("app upgrades", "\(total(\.upgrades))"),
            ("clock jumps / drift refusals", "\(total(\.clockJumps)) / \(total(\.driftRefusals))"),
            ("hostile changesets refused / accepted", "\(total(\.hostileRefused)) / \(total(\.hostileAccepted))"),
            ("rounds to converge (max)", "\(results.map(\.roundsToConverge).max() ?? 0)"),
            (
                "writes visible / superseded / deleted / parked",
                ["visible", "superseded", "deleted", "parked"].map { "\(fates[$0] ?? 0)" }.joined(separator: " / ")
            ),
            ("device operations per second", String(format: "%.0f", operationsPerSecond)),
            ("SQLite library", sqliteVersion),
            ("failed runs", "\(failedRuns)"),
        ]
        return rows.map { $0.0.padding(toLength: 48, withPad: " ", startingAt: 0) + $0.1 }.joined(separator: "\n")
            + "\n"
    }
}
