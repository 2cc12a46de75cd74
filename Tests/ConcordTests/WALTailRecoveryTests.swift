import ConcordTestSupport
import Foundation
import Testing

@_spi(Simulation) @testable import Concord

/// A commit survives two power losses in a row in WAL mode, on a disk that promises no power-safe
/// overwrite (a torn write may garble the whole sector it was writing, bytes outside it too).
///
/// Under `synchronous = FULL` SQLite pads each commit in the WAL with copies of its last frame up to
/// a sector boundary, syncs up to that boundary and writes the rest of the last copy after the sync,
/// so the next transaction starts in a sector of its own. A power loss may lose that unsynced tail:
/// the relaunch's recovery then ends the WAL at the commit frame, mid-sector, and SQLite appends the
/// next transaction right there, in the sector that holds the commit frame's end. A second power loss
/// tearing that write garbled the commit frame, and recovery dropped the acknowledged commit (in the
/// power-loss simulation, seed 183: a device's whole `reminder_tags` table). A replica checkpoints
/// the WAL when it opens, so what survived a power loss is in the database file, synced, before
/// anything is appended to the WAL.
@Suite(.tags(.replica), .timeLimit(.hangGuard))
struct WALTailRecoveryTests {
    static let path = "/phone/app.sqlite"

    private func open(_ disk: SimulatedDisk, clock: ManualClock) throws -> Replica {
        var settings = configuration(node: 1, clock: clock)
        settings.disk = disk
        return try Replica(path: Self.path, configuration: settings)
    }

    @Test func aCommitSurvivesAPowerLossTearingTheNextTransactionAfterAPowerLossTookItsPadding() throws {
        var lost: [UInt64] = []
        for seed in UInt64(0)..<16 {
            let clock = ManualClock(unixMilliseconds: epoch2026)
            let disk = SimulatedDisk(name: "phone")
            var generator = SeededGenerator(seed: seed)
            var replica = try open(disk, clock: clock)
            try replica.database.execute("PRAGMA journal_mode = WAL")
            try replica.database.execute("PRAGMA synchronous = FULL")
            try replica.database.execute(remindersSchema)
            try replica.enableSync(on: "reminders")
            try replica.database.execute("INSERT INTO reminders (id, title, done, notes) VALUES ('r1', 'kept', 0, '')")
            // The commit is acknowledged; the power fails before the tail of its padding reached the disk.
            disk.crash(using: &generator, tornWriteRate: 1, reorderRate: 0)

            replica = try open(disk, clock: clock)
            try #require(
                try replica.database.scalar("SELECT title FROM reminders WHERE id = 'r1'") == .text("kept"),
                "seed \(seed)")
            try replica.database.execute("PRAGMA synchronous = FULL")
            clock.advance(by: 1_000)
            // The next transaction's first write lands; the power fails at the write after it, tearing it.
            disk.cutPower(afterOperations: 2)
            #expect(throws: SQLiteError.self) {
                try replica.database.execute("UPDATE reminders SET title = 'torn' WHERE id = 'r1'")
            }
            disk.crash(using: &generator, tornWriteRate: 1, reorderRate: 0)

            replica = try open(disk, clock: clock)
            #expect(try replica.database.scalar("PRAGMA integrity_check") == .text("ok"), "seed \(seed)")
            let title = try replica.database.scalar("SELECT title FROM reminders WHERE id = 'r1'")
            if title != .text("kept") { lost.append(seed) }
            #expect(try replica.check().isConsistent, "seed \(seed)")
        }
        #expect(lost.isEmpty, "seeds that lost the acknowledged commit: \(lost)")
    }
}
