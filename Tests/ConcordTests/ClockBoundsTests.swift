import ConcordCore
import ConcordTestSupport
import ConcordTesting
import Foundation
import Testing

@testable import Concord

/// A clock that ran fast for a while, or reads an absurd time, never cuts a replica off or breaks it.
///
/// Before, a write dated a day ahead (the device's clock wrong while the app wrote, set right before the
/// fold) was stamped a day ahead, and the replica's clock stayed there: every peer refused all its changes,
/// older and newer, for that day. A command run while the clock read a year after 6429 left versions at
/// the top of the 63 bits, and the fold that took 65,536 more trapped on overflow, every time; a write
/// dated that far ahead pushed the stored clock past 2^63 (negative in the file) after 65,536 more.
@Suite(.tags(.replica))
struct ClockBoundsTests {
    private let clock = ManualClock(unixMilliseconds: epoch2026)
    private let day: Int64 = 86_400_000

    private func devices() throws -> [Replica] {
        try inMemoryReplicas(2, clock: clock) { replica, _ in
            try replica.database.execute("CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, body TEXT)")
            try replica.enableSync(on: "notes")
        }
    }

    @Test func aWriteDatedAheadOfTheFoldIsStampedAtTheFoldsClockAndSyncs() throws {
        let d = try devices()
        try d[0].database.execute("INSERT INTO notes VALUES ('before', 'x')")
        // The clock runs a day fast while the app writes, and is set right before Concord folds.
        clock.advance(by: day)
        try d[0].database.execute("INSERT INTO notes VALUES ('during', 'x')")
        clock.advance(by: -day)
        try d[0].database.execute("INSERT INTO notes VALUES ('after', 'x')")
        #expect(try d[0].foldLocalWrites() == 3)
        #expect(try d[0].clock.last.milliseconds <= UInt64(clock.unixMilliseconds()))
        try Replica.sync(d)
        #expect(try d[1].database.query("SELECT id FROM notes ORDER BY id") == [["after"], ["before"], ["during"]])
        for device in d { #expect(try device.check().isConsistent) }
    }

    @Test func aClockPastTheYear4000IsRefusedAndChangesNothing() throws {
        let d = try devices()
        try d[0].database.execute("INSERT INTO notes VALUES ('n1', 'x')")
        let late = Replica.latestClockReading + 1
        clock.set(late)
        let before = try d[0].database.query("SELECT * FROM _concord_state")
        #expect(throws: ReplicaError.clockOutOfRange(unixMilliseconds: late)) {
            try d[0].foldLocalWrites()
        }
        #expect(throws: ReplicaError.clockOutOfRange(unixMilliseconds: late)) {
            try d[1].apply(d[0].changes(since: 0))
        }
        #expect(try d[0].database.query("SELECT * FROM _concord_state") == before)
        #expect(try d[0].database.scalar("SELECT count(*) FROM _concord_log") == .integer(1))
        // Set right, it folds and syncs as if nothing happened.
        clock.set(epoch2026 + 1000)
        try Replica.sync(d)
        #expect(try d[1].database.query("SELECT id FROM notes") == [["n1"]])
        #expect(try d[0].clock.last.milliseconds < UInt64(epoch2026 + 2000))
    }

    @Test func aWriteDatedPastTheYear6429CannotPushTheClockPast2To63() throws {
        let d = try devices()
        clock.set(HybridLogicalClock.maxPhysical)
        try d[0].database.execute("INSERT INTO notes VALUES ('n1', 'x')")
        clock.set(epoch2026)
        try d[0].foldLocalWrites()
        #expect(try d[0].clock.last.milliseconds == UInt64(epoch2026))
        // The clock itself, at its last reading, stays there rather than wrap.
        var top = HybridLogicalClock(last: HLCTimestamp(rawValue: UInt64(Int64.max)))
        #expect(top.tick(physical: HybridLogicalClock.maxPhysical).rawValue == UInt64(Int64.max))
    }

    /// A replica that once folded under the latest clock it accepts, set right since, still folds: its
    /// versions keep room (near the year 6429, 65,536 more writes trapped on overflow, every fold after).
    @Test func aReplicaThatFoldedAtTheLatestClockKeepsFolding() throws {
        let d = try devices()
        clock.set(Replica.latestClockReading)
        try d[0].database.execute("INSERT INTO notes VALUES ('late', 'x')")
        try d[0].foldLocalWrites()
        clock.set(epoch2026)
        try d[0].database.execute(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 70000) "
                + "INSERT INTO notes SELECT 'n' || i, 'x' FROM n")
        #expect(try d[0].foldLocalWrites() == 70_000)
        #expect(try d[0].check().isConsistent)
    }

    /// A peer relaying a replica's own writes back is not "a device whose clock runs fast" to it, after
    /// its clock was set back: its own stamps are at or below its clock's last reading.
    @Test func aReplicasOwnStampsRelayedBackAreTakenAfterItsClockWasSetBack() throws {
        let d = try devices()
        try d[0].database.execute("INSERT INTO notes VALUES ('n1', 'x')")
        try Replica.sync(d)
        clock.advance(by: -3_600_000)
        #expect(try d[0].apply(d[1].changes(since: 0)).applied == 0)
        // A stamp of its own it never issued (above its clock's last reading) is held to the limit.
        var forged = try d[1].changes(since: 0)
        forged.rows[0].registers.liveness.stamp = Stamp(
            hlc: HLCTimestamp(milliseconds: UInt64(epoch2026 + day), counter: 0), node: d[0].nodeID)
        #expect(throws: ClockDriftError.self) { try d[0].apply(forged) }
    }

    @Test func aDriftRefusalSaysHowLongUntilTheChangesAreTaken() {
        let ahead = HLCTimestamp(rawValue: UInt64(epoch2026 + day + 5 * 60_000) << 16)
        #expect {
            try HybridLogicalClock().check(ahead, from: node(1), physical: epoch2026)
        } throws: { ($0 as? ClockDriftError)?.description.hasSuffix("within 300000 ms of them, in 1 d") == true }
        #expect(ClockDriftError.duration(90 * 60_000 + 30_000) == "1 h 30 min")
        #expect(ClockDriftError.duration(1_500) == "2 s")
    }
}
