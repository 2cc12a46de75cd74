import ConcordTestSupport
import Testing

@testable import Concord

/// Rows on a cycle of foreign keys are parked as on a cycle, whichever of them arrived last and in whatever
/// order a device learned of them.
///
/// Before, a device that held two rows of a cycle waiting for a missing third kept, once the third arrived,
/// the reason it had given the row below the first ("parent not visible"): only rows whose shown state changed
/// put their children up again, and none of these showed. Other devices, which got the rows in another order,
/// said "on a cycle" (`wide` seed 9004).
@Suite(.tags(.replica))
struct CycleReasonTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    /// Two devices syncing a table of folders, each under its parent (`ON DELETE CASCADE`).
    private func folders() throws -> [Replica] {
        try inMemoryReplicas(2, clock: clock) { replica, _ in
            try replica.database.execute(
                "CREATE TABLE folders (id TEXT PRIMARY KEY NOT NULL, "
                    + "parent TEXT REFERENCES folders(id) ON DELETE CASCADE)")
            try replica.enableSync(on: "folders")
        }
    }

    @Test func aCycleClosedByTheLastRowToArriveParksEveryRowOnItAsOnACycle() throws {
        let devices = try folders()
        // The app keeps foreign keys off: 4 → 2 → 3 → 4, the last link written after the first two synced.
        try devices[0].database.execute("INSERT INTO folders VALUES ('4', '2'), ('3', '4')")
        try Replica.sync(devices)
        clock.advance(by: 10)
        try devices[0].database.execute("INSERT INTO folders VALUES ('2', '3')")
        try Replica.sync(devices)
        try expectParked(
            devices,
            [
                "2: on a cycle through folders/3", "3: on a cycle through folders/4",
                "4: on a cycle through folders/2",
            ])
    }

    /// A row that moves onto a cycle may close a new one through rows of an old one: the row below them is
    /// on it now, though the reasons of the rows between read as before (`batched-wide` seed 70374).
    @Test func aMoveThatClosesANewCycleThroughAnOldOneParksTheRowBelowAsOnIt() throws {
        let devices = try folders()
        // 2 and 3 on a cycle, 1 below 3 (foreign keys off in the app); the other device wrote 2 under 1, later.
        try devices[0].database.execute("INSERT INTO folders VALUES ('3', '2'), ('2', '3'), ('1', '3')")
        try devices[0].foldLocalWrites()
        #expect(try devices[0].parked().map(\.reason).contains("parent folders/3 is not visible"))
        clock.advance(by: 10)
        try devices[1].database.execute("INSERT INTO folders VALUES ('2', '1')")
        try Replica.sync(devices)
        try expectParked(
            devices,
            [
                "1: on a cycle through folders/3", "2: on a cycle through folders/1",
                "3: on a cycle through folders/2",
            ])
    }

    /// Every device parks exactly `reasons` ("key: reason", in key order) and is consistent.
    private func expectParked(_ devices: [Replica], _ reasons: [String]) throws {
        for device in devices {
            let parked = try device.parked().map { "\($0.key): \($0.reason)" }
            #expect(parked == reasons, "\(parked)")
            #expect(try device.check().isConsistent)
        }
    }
}
