import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// A database file with two names (hard links) is refused, naming the file, before anything is written.
///
/// SQLite keeps a database's journal or write-ahead log beside the name it was opened by: an app writing
/// through one name in WAL mode and `concord sync` opening the other missed every commit still in the app's
/// log, and those rows were lost (sent to peers with every value NULL); naming both in one command failed
/// with a disk I/O error and left a stray log.
@Suite("Files with two names", .tags(.replica), .timeLimit(.hangGuard))
struct HardLinkTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    @Test(arguments: ["WAL", "DELETE"])
    func aFileWithASecondNameIsRefusedAndLeftAlone(journalMode: String) throws {
        let directory = TemporaryDirectory()
        let path = directory.path("a.db")
        do {
            let replica = try Replica(path: path, configuration: configuration(node: 1, clock: clock))
            try replica.database.execute("PRAGMA journal_mode = \(journalMode)")
            try replica.database.execute("CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, v TEXT)")
            try replica.enableSync(on: "t")
        }
        try FileManager.default.linkItem(atPath: path, toPath: directory.path("b.db"))
        let before = try fileBytes(path)
        for name in ["a.db", "b.db"] {
            let error = #expect(throws: ReplicaError.self) {
                try Replica(path: directory.path(name), configuration: configuration(node: 1, clock: clock))
            }
            #expect(error == .hardLinked(path: directory.path(name), links: 2))
            #expect(error?.description.contains("has 2 names (hard links)") == true)
        }
        #expect(try fileBytes(path) == before)
        // One name again: it opens.
        try FileManager.default.removeItem(atPath: directory.path("b.db"))
        #expect(throws: Never.self) { try Replica(path: path, configuration: configuration(node: 1, clock: clock)) }
    }
}
