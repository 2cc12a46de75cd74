import Concord
import ConcordTestSupport
import ConcordTesting
import Foundation
import Testing

@testable import ConcordSimulator

/// The reminders app keeps triggers of its own, as real apps do, and the ledger sees what they write.
///
/// Adding a subtask reopens its reminder (a trigger writing another synced table) and deleting a
/// reminder notes it in an `activity` table that does not sync. The oracle learns what a statement did
/// from the tables before and after it, so those snapshots must hold every table a trigger may write:
/// without that, seeds 4, 7, 18 and 31 of the default scenario fail the oracle on a reopened reminder.
@Suite(.tags(.simulation))
struct AppTriggerWorkloadTests {
    /// A statement on a table an app trigger fires on is given every table; others keep the tables their
    /// foreign keys reach.
    @Test func aTriggeredTableWidensTheWriteScope() throws {
        let replica = try Replica.inMemory()
        try Workload.reminders.install(on: replica)
        let scope = try WriteScope(of: replica)
        let every = replica.tables.map(\.name)
        #expect(scope.tables(writtenBy: "INSERT INTO subtasks VALUES ('s1', 'r1', 'x')").map(\.name) == every)
        #expect(scope.tables(writtenBy: "DELETE FROM lists WHERE id = 'l1'").map(\.name) == every)
        #expect(scope.tables(writtenBy: "DELETE FROM tags WHERE id = 't1'").map(\.name) == ["reminder_tags", "tags"])
    }

    /// Seeds of the default scenario pass with the triggers on, which ran both on the apps' writes and on
    /// the rows Concord merged or cascaded (each device's activity table holds deletions of its own).
    @Test func theDefaultScenarioRunsTheAppsTriggers() throws {
        var activity: Int64 = 0
        for seed in 1...4 as ClosedRange<UInt64> {
            let folder = TemporaryDirectory()
            let simulation = Simulation(scenario: .default, seed: seed)
            let result = try simulation.run(simulation.plan().plan, in: folder.url)
            #expect(result.passed, "seed \(seed): \(result.failure?.description ?? "did not converge")")
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
            where name.hasSuffix(".sqlite") {
                let database = try Database(path: folder.url.appendingPathComponent(name).path, mode: .readOnly)
                activity += try database.scalar("SELECT count(*) FROM activity")?.integerValue ?? 0
            }
        }
        #expect(activity > 0)
    }
}
