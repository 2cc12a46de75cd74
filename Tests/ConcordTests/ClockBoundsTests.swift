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

    @Test func aClockPastTheYear6429IsRefusedAndChangesNothing() throws {
        let d = try devices()
        try d[0].database.execute("INSERT INTO notes VALUES ('n1', 'x')")
        clock.set(HybridLogicalClock.maxPhysical + 1)
        let before = try d[0].database.query("SELECT * FROM _concord_state")
        #expect(throws: ReplicaError.clockOutOfRange(unixMilliseconds: HybridLogicalClock.maxPhysical + 1)) {
            try d[0].foldLocalWrites()
        }
        #expect(throws: ReplicaError.clockOutOfRange(unixMilliseconds: HybridLogicalClock.maxPhysical + 1)) {
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

    @Test func aDriftRefusalSaysHowLongUntilTheChangesAreTaken() {
        let ahead = HLCTimestamp(rawValue: UInt64(epoch2026 + day + 5 * 60_000) << 16)
        #expect {
            try HybridLogicalClock().check(ahead, from: node(1), physical: epoch2026)
        } throws: { ($0 as? ClockDriftError)?.description.hasSuffix("within 300000 ms of them, in 1 d") == true }
        #expect(ClockDriftError.duration(90 * 60_000 + 30_000) == "1 h 30 min")
        #expect(ClockDriftError.duration(1_500) == "2 s")
    }
}
