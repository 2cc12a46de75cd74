import Concord
import ConcordTestSupport
import Foundation
import Testing

@testable import ConcordSimulator

/// Settings an app leaves on the connection it shares with its replica (``ConnectionQuirks``).
@Suite(.tags(.simulation))
struct ConnectionQuirksTests {
    /// Each device's draw depends on the seed and the device alone, and every setting comes up.
    @Test func drawsAreFixedBySeedAndDeviceAndReachEverySetting() {
        let draws = (1...64 as ClosedRange<UInt64>).flatMap { seed in
            (0..<3).map { ConnectionQuirks.draw(seed: seed, device: $0, shadows: true) }
        }
        #expect(
            draws
                == (1...64 as ClosedRange<UInt64>).flatMap { seed in
                    (0..<3).map { ConnectionQuirks.draw(seed: seed, device: $0, shadows: true) }
                })
        #expect(draws.contains { $0.shadowTables } && draws.contains { !$0.shadowTables })
        #expect(draws.contains { $0.reverseUnorderedSelects } && draws.contains { $0.caseSensitiveLike })
        #expect(draws.contains { $0.recursiveTriggers } && draws.contains { $0.appRecursiveTriggers })
        #expect(draws.contains { $0.secondProcess } && draws.contains { !$0.secondProcess })
        #expect(draws.contains { $0.rollsBackApplies } && draws.contains { !$0.rollsBackApplies })
        #expect(!ConnectionQuirks.draw(seed: 7, device: 0, shadows: false).shadowTables)
    }

    /// The TEMP table gets the synced table's own column names, even `true`, which `CREATE TABLE … AS
    /// SELECT *` would have named `column1` (a swarm seed's wide app failed to start on it).
    @Test func shadowTablesTakeEveryColumnName() throws {
        let replica = try Replica.inMemory(
            configuration: configuration(node: 1, clock: ManualClock(unixMilliseconds: epoch2026)))
        try replica.database.execute(#"CREATE TABLE "order" ("true" TEXT PRIMARY KEY NOT NULL, "false", x)"#)
        try replica.enableSync(on: "order")
        try ConnectionQuirks(shadowTables: true).apply(to: replica, app: replica.database)
        #expect(
            try replica.database.pragma("table_info", of: "order").map { $0.text("name") ?? "" } == [
                "true", "false", "x",
            ],
            "main's")
        #expect(
            try replica.database.query(#"SELECT "true", "false", x FROM temp."order""#) == [["shadow", .null, .null]])
    }

    /// A device with a second process syncs through another replica on its file on some steps; one that
    /// takes over after the other migrated the schema reads the tables as they are now (a rebuilt table's
    /// new column once crashed the simulator's recording of the next write).
    @Test func aSecondProcessSyncsOnTheSameFileAndSeesTheOthersMigration() throws {
        let seed = try #require(
            (1...200 as ClosedRange<UInt64>).first { seed in
                (0..<4).contains { ConnectionQuirks.draw(seed: seed, device: $0, shadows: false).secondProcess }
            })
        let scenario = try Scenario.load(
            path: ScenarioFileTests.root.appendingPathComponent("table-rebuild.json").path)
        let result = try Simulation(scenario: scenario, seed: seed, keepsTrace: true).run()
        #expect(result.failure == nil, "seed \(seed): \(result.failure.map { "\($0)" } ?? "")")
        #expect(result.trace?.contains { $0.contains("a second process syncing on some steps") } == true)
        #expect(result.upgrades > 0)
    }
}
