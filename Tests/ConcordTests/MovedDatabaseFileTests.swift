import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// A database file deleted or moved while a replica has it open: SQLite refuses every write with
/// `SQLITE_READONLY_DBMOVED`, which Concord's hint called a read-only file or folder, sending users to
/// the wrong fix.
@Suite("A database file moved while open", .tags(.replica), .timeLimit(.hangGuard))
struct MovedDatabaseFileTests {
    @Test func aWriteToAFileDeletedWhileOpenSaysItWasMoved() throws {
        let directory = TemporaryDirectory()
        let replica = try makeReplica(
            directory, "a.db", node: 1, clock: ManualClock(unixMilliseconds: epoch2026))
        try FileManager.default.moveItem(atPath: directory.path("a.db"), toPath: directory.path("moved.db"))
        let error = #expect(throws: SQLiteError.self) {
            try replica.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'milk')")
        }
        #expect(error?.resultCode == .readOnlyDatabaseMoved)
        #expect(error?.description.contains("deleted, moved or replaced while it was open") == true)
        #expect(error?.description.contains("read-only") == false)
    }
}
