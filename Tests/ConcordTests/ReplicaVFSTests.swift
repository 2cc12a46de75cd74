import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// The VFS replicas open their files through: spilled statement journals, and its lifetime.
@Suite(.tags(.replica))
struct ReplicaVFSTests {
    @Test func aStatementThatFailsAfterItsJournalLeftMemoryIsUndoneWhole() throws {
        let directory = TemporaryDirectory()
        let replica = try makeReplica(directory, "a.sqlite", node: 1, clock: ManualClock(unixMilliseconds: epoch2026))
        let database = replica.database
        let openedBefore = MemoryJournalFile.opened.load(ordering: .relaxed)
        try database.execute("BEGIN")
        try database.execute(
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000)
            INSERT INTO reminders (id, title, done, notes)
            SELECT printf('r%05d', i), printf('title %d', i), 0, printf('%0200d', i) FROM n
            """)
        // Each statement below changes every page of the table (some 900 KiB): its journal leaves SQLite's memory.
        try database.execute("UPDATE reminders SET notes = notes || '!'")
        // This one fails on its last row, so SQLite undoes all it wrote from the journal.
        #expect(throws: SQLiteError.self) {
            try database.execute(
                """
                UPDATE reminders SET notes = notes || '?',
                    done = CASE WHEN rowid = (SELECT max(rowid) FROM reminders) THEN NULL ELSE done END
                """)
        }
        try database.execute("COMMIT")

        #expect(MemoryJournalFile.opened.load(ordering: .relaxed) > openedBefore)
        #expect(try database.scalar("SELECT count(*) FROM reminders WHERE notes LIKE '%!'") == .integer(4000))
        #expect(try database.scalar("SELECT count(*) FROM reminders WHERE notes LIKE '%?'") == .integer(0))
        #expect(try database.scalar("SELECT count(*) FROM \(Metadata.log)") == .integer(8000))
        #expect(try database.scalar("PRAGMA integrity_check") == .text("ok"))
        #expect(try replica.foldLocalWrites() == 8000)
    }

    @Test func aStatementThatOutlivesItsConnectionStillClosesItThroughTheVFS() throws {
        let directory = TemporaryDirectory()
        var outliving: [Statement] = []
        do {
            let replica = try makeReplica(
                directory, "a.sqlite", node: 1, clock: ManualClock(unixMilliseconds: epoch2026))
            try replica.database.execute("PRAGMA journal_mode = WAL")
            try replica.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'milk')")
            outliving.append(try replica.database.prepare("SELECT title FROM reminders"))
        }
        #expect(outliving.count == 1)
        // The replica is gone; finalizing the statement closes the connection, which checkpoints and deletes the WAL.
        outliving.removeAll()
        #expect(!FileManager.default.fileExists(atPath: directory.path("a.sqlite") + "-wal"))
        let reopened = try Database(path: directory.path("a.sqlite"))
        #expect(try reopened.scalar("SELECT title FROM reminders") == .text("milk"))
    }
}
