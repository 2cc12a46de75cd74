import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// A replica opened over a write-ahead log that a power loss kept beside a header it never switched to WAL
/// leaves the file writable by the app's other connections.
///
/// SQLite opens a file in WAL mode whenever a non-empty `-wal` lies beside it, whatever its header says;
/// the replica's checkpoint at open then empties that log, so connections opened next see a rollback
/// header and no log, and use a rollback journal, whose commits wait for ever on the SHARED lock a WAL
/// connection keeps (in the power-loss simulation, seed 23000109: the app's writes failed with "database
/// is locked"). Opening sets the journal mode again, which writes the WAL header.
@Suite(.tags(.replica), .timeLimit(.hangGuard))
struct KeptLogOverRollbackHeaderTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    @Test func anAppConnectionWritesWhileTheReplicaIsOpen() throws {
        let directory = TemporaryDirectory()
        let path = directory.path("app.sqlite")
        do {
            let app = try Database(path: path)
            try app.execute("PRAGMA journal_mode = DELETE")
            try app.execute(remindersSchema)
            try app.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'milk')")
            try Replica(path: path, configuration: configuration(node: 1, clock: clock)).enableSync(on: "reminders")
        }
        // What the power loss kept: a log with no valid frame, beside a header that still says rollback.
        try Data(repeating: 0, count: 4096).write(to: URL(fileURLWithPath: path + "-wal"))
        try #require(try Data(contentsOf: URL(fileURLWithPath: path))[18] == 1)

        let replica = try Replica(path: path, configuration: configuration(node: 1, clock: clock))
        #expect(replica.database.fileHeader().map { [$0[18], $0[19]] } == [2, 2], "the header says WAL")

        // Opened before anything lands in the emptied log, as the app's connection is at launch.
        let app = try Database(path: path)
        try app.execute("PRAGMA busy_timeout = 200")
        #expect(throws: Never.self) { try app.execute("INSERT INTO reminders (id, title) VALUES ('r2', 'bread')") }
        #expect(try replica.changes(since: 0).rows.map(\.key) == ["r1", "r2"])
    }
}
