import Concord
import ConcordTestSupport
import ConcordTesting
import Foundation
import Testing

@testable import ConcordSimulator

/// Rolling upgrades: plans that take each device through the app's releases in order, some only in the
/// liveness phase, meshes where a device still on an old release is the only link, and runs held to the
/// oracle over the newest schema.
@Suite("Rolling upgrades", .tags(.simulation, .slow), .timeLimit(.hangGuard))
struct RollingUpgradeTests {
    static func scenario(_ adjust: (inout Scenario) -> Void = { _ in }) throws -> Scenario {
        var scenario = try Scenario.load(
            path: ScenarioFileTests.root.appendingPathComponent("rolling-upgrade.json").path)
        adjust(&scenario)
        return scenario
    }

    /// The release an operation needs, from the columns and tables it names.
    static func release(needed sql: String) -> Int {
        sql.contains("rating") || sql.contains("earliest")
            ? 4 : sql.contains("notes") || sql.contains("views") ? 3 : sql.contains("priority") ? 2 : 1
    }

    @Test func plansTakeEachDeviceThroughTheReleasesInOrder() throws {
        let scenario = try Self.scenario()
        let last = scenario.workload.lastVersion
        var relays = 0
        var laggards = 0
        for seed in 1...40 as ClosedRange<UInt64> {
            let plan = Simulation(scenario: scenario, seed: seed).plan().plan
            var versions = Array(repeating: 1, count: scenario.devices)
            for step in plan.steps {
                switch step.action {
                case .upgrade(let version):
                    #expect(version == versions[step.device] + 1 && version <= last, "seed \(seed): \(step)")
                    versions[step.device] = version
                case .write(let sql):
                    #expect(versions[step.device] >= Self.release(needed: sql), "seed \(seed): \(step)")
                case .fork: versions.append(versions[step.device])
                default: break
                }
            }
            if versions.contains(where: { $0 < last }) { laggards += 1 }
            guard let sides = plan.sides else { continue }
            relays += 1
            let relay = try #require(sides.firstIndex(of: 0))
            #expect(sides.filter { $0 == 0 }.count == 1 && sides.contains(1) && sides.contains(2), "\(sides)")
            #expect(versions[relay] < last, "seed \(seed): the relay is still on an old release in the liveness phase")
        }
        #expect(relays >= 5 && relays <= 35, "\(relays) of 40 seeds have a relay")
        #expect(laggards >= 5 && laggards < 40, "\(laggards) of 40 seeds leave a device behind for the liveness phase")
    }

    /// An app with one release draws nothing about upgrades, so its plans stay what they were.
    @Test func anAppWithOneReleaseDrawsNothingAboutUpgrades() {
        for seed in 1...10 as ClosedRange<UInt64> {
            let plan = Simulation(scenario: Scenario(name: "plain", devices: 4), seed: seed).plan().plan
            #expect(plan.sides == nil && plan.rates.lag == nil && plan.rates.relay == nil)
            #expect(!plan.steps.contains { if case .upgrade = $0.action { true } else { false } })
        }
    }

    /// Devices on the two sides of a relay never exchange directly, in the plan or in the liveness phase:
    /// a write of device 1 reaches device 2 through device 0 alone, one round later than over every pair.
    @Test func devicesOnTheTwoSidesOfARelayNeverReachEachOther() throws {
        let scenario = try Self.scenario { $0.devices = 3 }
        func run(sides: [Int]?) throws -> SimulationResult {
            let plan = SimulationPlan(
                rates: .init(), skews: [0, 0, 0], drifts: [0, 0, 0], sides: sides,
                steps: [
                    SimulationStep(after: 5, device: 1, action: .write(sql: "INSERT INTO lists VALUES ('l1', 'milk')")),
                    SimulationStep(after: 5, device: 2, action: .pull(from: 1, copies: 1, delay: 0, pages: 1)),
                ], choicesAfterStep: [])
            return try Simulation(scenario: scenario, seed: 1, keepsTrace: true).run(plan)
        }
        let relayed = try run(sides: [0, 1, 2])
        let direct = try run(sides: nil)
        #expect(relayed.passed && direct.passed, "\(relayed.failureDescription); \(direct.failureDescription)")
        #expect(relayed.trace?.contains { $0.hasSuffix("device 2 cannot reach device 1") } == true)
        #expect(direct.messagesSent == 1 && relayed.messagesSent == 0)
        #expect(relayed.roundsToConverge == direct.roundsToConverge + 1)
        // Every device was on release 1 until the liveness phase upgraded all three.
        #expect(relayed.upgrades == 3)
    }

    /// Rows written before a release show its new column's default; a new column's writes, counter
    /// increments of two devices, and a new table's rows cascading with an old table's arrive everywhere.
    @Test func anUpgradedWorldConvergesOnTheNewestSchema() throws {
        let scenario = try Self.scenario { $0.devices = 3 }
        let writes: [(Int, String)] = [
            (0, "INSERT INTO lists (id, name) VALUES ('l1', 'home')"),
            (0, "INSERT INTO reminders (id, list_id, title) VALUES ('r1', 'l1', 'milk')"),
            (0, "INSERT INTO reminders (id, list_id, title) VALUES ('r2', 'l1', 'tea')"),
        ]
        let later: [(Int, String)] = [
            (1, "UPDATE reminders SET priority = 2 WHERE id = 'r1'"),
            (1, "UPDATE lists SET views = views + 1 WHERE id = 'l1'"),
            (2, "UPDATE lists SET views = views + 2 WHERE id = 'l1'"),
            (2, "INSERT INTO reminders (id, list_id, title, priority) VALUES ('r3', 'l1', 'read', 1)"),
            (2, "INSERT INTO notes (id, reminder, body) VALUES ('n1', 'r2', 'call')"),
            (1, "INSERT INTO notes (id, reminder, body) VALUES ('n2', 'r1', 'buy')"),
            // Device 0 has not seen n2: the note stays alive but cannot show under a deleted reminder.
            (0, "DELETE FROM reminders WHERE id = 'r1'"),
        ]
        func step(_ device: Int, _ action: SimulationStep.Action) -> SimulationStep {
            SimulationStep(after: 10, device: device, action: action)
        }
        let steps =
            writes.map { step($0.0, .write(sql: $0.1)) } + (0..<3).map { step($0, .upgrade(to: 3)) }
            + (1..<3).map { step($0, .pull(from: 0, copies: 1, delay: 0, pages: 1)) } + [step(0, .idle)]
            + later.map { step($0.0, .write(sql: $0.1)) }
        let plan = SimulationPlan(
            rates: .init(), skews: [0, 0, 0], drifts: [0, 0, 0], steps: steps, choicesAfterStep: [])
        let folder = TemporaryDirectory()
        let result = try Simulation(scenario: scenario, seed: 1).run(plan, in: folder.url)
        #expect(result.passed, "\(result.failureDescription)")
        #expect(result.writes == writes.count + later.count && result.rejectedWrites == 0)
        for device in 0..<3 {
            let database = try Database(path: folder.url.appendingPathComponent("device-\(device).sqlite").path)
            #expect(try database.query("SELECT id, priority FROM reminders ORDER BY id") == [["r2", 0], ["r3", 1]])
            #expect(try database.query("SELECT views FROM lists") == [[3]])
            #expect(try database.query("SELECT id FROM notes") == [["n1"]])
        }
        #expect(result.fates["parked"] == 1, "n2 waits for its reminder: \(result.fates)")
    }

    /// A power failure may stop an upgrade after a migration committed and before its tables were declared
    /// again (`regressions/power-loss-mid-upgrade-left-release-behind.json`); the relaunched app runs its
    /// migrator again, which skips the migration the database records and declares the tables, so the device
    /// ends on the release its file has been through, counter merge and all, instead of failing on a column
    /// it already added.
    @Test func anUpgradeRunAgainSkipsTheMigrationsThatLanded() throws {
        let workload = try Self.scenario().workload
        let replica = try Replica.inMemory(configuration: .init(merges: Workload.mergeFunctions))
        try workload.install(on: replica)
        try workload.upgrade(replica, from: 1, to: 2)
        // What the power failure left: version 3's migration, and nothing after it.
        try replica.database.transaction {
            try replica.database.execute(workload.versions![1].migration)
            try replica.database.execute("PRAGMA user_version = 3")
        }
        try workload.upgrade(replica, from: 2, to: 3)
        #expect(try OracleSchema(of: replica).tables == VersionSchemas(of: workload).schemas[2].tables)
        #expect(replica.schemaRefusals.isEmpty)
    }

    /// Seed 20000001 of the file: a device upgraded to release 2, which adds `priority`, with nothing for
    /// Concord to log, and its app inserted a reminder with a priority before any fold. Concord still knew
    /// the table without the column, so the run read the write's rows without it, and trapped recording
    /// the write with the column Concord had taken up by then. The app folds after every upgrade now.
    @Test func anAppWritesANewColumnRightAfterAnUpgradeThatLoggedNothing() throws {
        let result = try Simulation(scenario: try Self.scenario(), seed: 20_000_001).run()
        #expect(result.passed && result.upgrades > 0, "\(result.failureDescription)")
    }

    /// Through the record server, a device on an older release fetches, merges and saves back records
    /// that hold what it cannot show; saved again without it, a newer device's writes would be lost to
    /// every device that fetches them. (The mesh runs the scenario file's seeds in `ScenarioFileTests`.)
    @Test func seedsPassThroughTheRecordServer() throws {
        let scenario = try Self.scenario { $0.topology = .cloud }
        var refusedUploads = 0
        for seed in 1...3 as ClosedRange<UInt64> {
            let result = try Simulation(scenario: scenario, seed: seed).run()
            #expect(result.passed && result.upgrades > 0, "seed \(seed): \(result.failureDescription)")
            refusedUploads += result.serverRecordChanged
        }
        #expect(refusedUploads > 0, "no upload was refused, so no merged record was saved back")
    }
}
