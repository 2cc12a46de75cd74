import ConcordTestSupport
import Foundation
import Testing

/// A replica copied by any of the ways people copy SQLite files goes on as a device of its own:
/// written on both sides and synced in every order with a third replica, every write reaches everyone.
@Suite("Copied and restored replicas", .tags(.cli), .timeLimit(.hangGuard))
struct CopiedReplicaTests {
    /// The ways a file gets copied, each as the shell would do it.
    enum Copy: String, CaseIterable, Sendable {
        case fileCopy = "cp"
        case vacuumInto = "VACUUM INTO"
        case backupCommand = ".backup"
        case restoredBackup = "restore"
    }

    /// Three orders of syncing the original `a`, the copy `c` and the third replica `b`.
    static let orders = [["a.db", "b.db", "c.db"], ["c.db", "b.db", "a.db"], ["b.db", "c.db", "a.db"]]

    @Test(arguments: Copy.allCases, orders)
    func everyWriteOfTheOriginalAndTheCopyReachesEveryone(copy: Copy, order: [String]) throws {
        let directory = TemporaryDirectory()
        for name in ["a.db", "b.db"] {
            try sqlite3Shell(directory.path(name), "CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT);")
            try concordOK("enable", name, "--table", "notes", in: directory)
        }
        try sqlite3Shell(directory.path("a.db"), "INSERT INTO notes VALUES ('n0', 'before the copy');")
        try concordOK("sync", "a.db", "b.db", in: directory)
        let a = directory.path("a.db")
        let c = directory.path("c.db")
        switch copy {
        case .fileCopy: try FileManager.default.copyItem(atPath: a, toPath: c)
        case .vacuumInto: try sqlite3Shell(a, "VACUUM INTO '\(c)';")
        case .backupCommand: try sqlite3Shell(a, ".backup '\(c)'")
        case .restoredBackup:
            // c is restored from an old backup of a, written back over an existing file (same inode as before).
            try FileManager.default.copyItem(atPath: a, toPath: directory.path("backup.db"))
            try FileManager.default.copyItem(atPath: a, toPath: c)
            try sqlite3Shell(a, "INSERT INTO notes VALUES ('n1', 'after the backup');")
            try concordOK("sync", "a.db", "b.db", in: directory)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: c))
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: try fileBytes(directory.path("backup.db")))
            try handle.close()
        }
        try sqlite3Shell(a, "INSERT INTO notes VALUES ('on-a', 'written on the original');")
        try sqlite3Shell(
            c,
            "INSERT INTO notes VALUES ('on-c', 'written on the copy'); UPDATE notes SET body = 'edited on c' WHERE id = 'n0';"
        )
        try concordOK(["sync"] + order, in: directory)
        let expected = try sqlite3Shell(directory.path(order[0]), "SELECT id, body FROM notes ORDER BY id;")
        #expect(expected.contains("on-a|written on the original") && expected.contains("on-c|written on the copy"))
        #expect(expected.contains("n0|edited on c"))
        for name in ["a.db", "b.db", "c.db"] {
            #expect(
                try sqlite3Shell(directory.path(name), "SELECT id, body FROM notes ORDER BY id;") == expected, "\(name)"
            )
            try concordOK("check", name, in: directory)
        }
        let nodes = try ["a.db", "c.db"].map {
            try concordOK("status", $0, "--json", in: directory).text.split(separator: "\n")
                .first { $0.contains("\"node\"") } ?? ""
        }
        #expect(nodes[0] != nodes[1], "the copy writes under a node id of its own")
    }
}
