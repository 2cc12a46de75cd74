import ConcordTestSupport
import Foundation
import Testing

@testable import ConcordSimulator

/// Migrations that rebuild a synced table (create, copy, drop, rename), as SQLite documents for the
/// schema changes ALTER TABLE cannot make: the ledger records the copied rows as the device's writes,
/// and holds Concord to dating them when it last looked.
@Suite("Table rebuilds", .tags(.simulation, .slow), .timeLimit(.hangGuard))
struct TableRebuildScenarioTests {
    static func scenario() throws -> Scenario {
        try Scenario.load(path: ScenarioFileTests.root.appendingPathComponent("table-rebuild.json").path)
    }

    /// Every device rebuilds (during the plan or in the liveness phase), each rebuild is recorded, and
    /// the runs still end equal to the reference model.
    @Test func rebuildsAreRecordedAndRunsConverge() throws {
        let scenario = try Self.scenario()
        var rebuilds = 0
        for seed in 1...4 as ClosedRange<UInt64> {
            let result = try Simulation(scenario: scenario, seed: seed).run()
            #expect(result.passed, "seed \(seed): \(result.failure?.description ?? "did not converge")")
            #expect(result.coverage[.rebuild] >= scenario.devices, "seed \(seed): every device rebuilds")
            rebuilds += result.coverage[.rebuild]
        }
        #expect(rebuilds > 0)
    }

    /// An upgrade whose migration only adds a column keeps the table's b-tree: no rebuild is recorded,
    /// and an upgrade that stamped rows anyway would fail the run (`ownStamps`).
    @Test func anAddedColumnIsNoRebuild() throws {
        let scenario = try Scenario.load(
            path: ScenarioFileTests.root.appendingPathComponent("rolling-upgrade.json").path)
        for seed in 1...2 as ClosedRange<UInt64> {
            let result = try Simulation(scenario: scenario, seed: seed).run()
            #expect(result.passed, "seed \(seed): \(result.failure?.description ?? "did not converge")")
            #expect(result.upgrades > 0 && result.coverage[.rebuild] == 0, "seed \(seed)")
        }
    }
}
