import Concord
import ConcordTestSupport
import Foundation
import Testing

/// Black-box tests of the `concord` tool, with the real `sqlite3` shell as the only writer.
@Suite("concord command line", .tags(.cli), .timeLimit(.hangGuard))
struct CLITests {
    /// Two replicas `a.db` and `b.db` of one reminders table, synced, both holding r1.
    private func twoReplicas() throws -> TemporaryDirectory {
        let directory = TemporaryDirectory()
        for name in ["a.db", "b.db"] {
            try sqlite3Shell(
                directory.path(name), "CREATE TABLE reminders (id TEXT PRIMARY KEY, title TEXT, done INTEGER);")
        }
        try sqlite3Shell(directory.path("a.db"), "INSERT INTO reminders VALUES ('r1', 'milk', 0);")
        try concordOK("enable", "a.db", "--table", "reminders", in: directory)
        try concordOK("enable", "b.db", "--table", "reminders", in: directory)
        try concordOK("sync", "a.db", "b.db", in: directory)
        return directory
    }

    private func show(_ directory: TemporaryDirectory, _ name: String) throws -> String {
        try sqlite3Shell(directory.path(name), "SELECT * FROM reminders ORDER BY id;")
    }

    /// Both replicas show `expected` and pass `concord check`.
    private func expectBoth(
        _ directory: TemporaryDirectory, _ expected: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for name in ["a.db", "b.db"] {
            #expect(try show(directory, name) == expected, "\(name)", sourceLocation: sourceLocation)
            try concordOK("check", name, in: directory, sourceLocation: sourceLocation)
        }
    }

    @Test func editsOfDifferentColumnsBothSurvive() throws {
        let directory = try twoReplicas()
        try sqlite3Shell(directory.path("a.db"), "UPDATE reminders SET title = 'oat milk' WHERE id = 'r1';")
        try sqlite3Shell(directory.path("b.db"), "UPDATE reminders SET done = 1 WHERE id = 'r1';")
        try concordOK("sync", "a.db", "b.db", in: directory)
        try expectBoth(directory, "r1|oat milk|1\n")
    }

    @Test(arguments: [["a.db", "b.db"], ["b.db", "a.db"]])
    func theLaterWriteOfOneColumnWinsWhicheverSideSyncsFirst(order: [String]) throws {
        let directory = try twoReplicas()
        let now = unixMillisecondsNow()
        try sqlite3Shell(
            directory.path("b.db"), "UPDATE reminders SET title = 'earlier' WHERE id = 'r1';", writtenAt: now + 1000)
        try sqlite3Shell(
            directory.path("a.db"), "UPDATE reminders SET title = 'later' WHERE id = 'r1';", writtenAt: now + 2000)
        let changes = try concordOK("export", order[0], in: directory).output
        try concordOK("import", order[1], input: changes, in: directory)
        try concordOK("sync", "a.db", "b.db", in: directory)
        try expectBoth(directory, "r1|later|0\n")
    }

    @Test func aDeleteBeatsAConcurrentUpdateAndAReinsertComesBack() throws {
        let directory = try twoReplicas()
        let now = unixMillisecondsNow()
        try sqlite3Shell(directory.path("a.db"), "DELETE FROM reminders WHERE id = 'r1';", writtenAt: now + 1000)
        try sqlite3Shell(
            directory.path("b.db"), "UPDATE reminders SET title = 'edited after' WHERE id = 'r1';",
            writtenAt: now + 2000)
        try concordOK("sync", "a.db", "b.db", in: directory)
        try expectBoth(directory, "")
        try sqlite3Shell(directory.path("b.db"), "INSERT INTO reminders VALUES ('r1', 'again', 0);")
        try concordOK("sync", "b.db", "a.db", in: directory)
        try expectBoth(directory, "r1|again|0\n")
    }

    /// A named pipe (or a `<(...)`) can be read once, as standard input can: it is spooled as standard
    /// input is. Before, the import failed on "Cannot rewind", blaming the path and its permissions.
    @Test func aChangesetFromANamedPipeIsImported() throws {
        let directory = try twoReplicas()
        try sqlite3Shell(directory.path("a.db"), "INSERT INTO reminders VALUES ('r2', 'bread', 0);")
        try concordOK("export", "a.db", "--output", "changes.bin", in: directory)
        let changes = try Data(contentsOf: URL(fileURLWithPath: directory.path("changes.bin")))
        #expect(mkfifo(directory.path("pipe"), 0o644) == 0)
        let written = DispatchSemaphore(value: 0)
        let pipe = directory.path("pipe")
        Thread.detachNewThread {
            FileHandle(forWritingAtPath: pipe).map { handle in
                handle.write(changes)
                try? handle.close()
            }
            written.signal()
        }
        #expect(try concordOK("import", "b.db", "pipe", in: directory).text == "applied 1, ignored 1\n")
        written.wait()
        try expectBoth(directory, "r1|milk|0\nr2|bread|0\n")
    }

    @Test func importingTheSameChangesetTwiceChangesNothing() throws {
        let directory = try twoReplicas()
        try sqlite3Shell(directory.path("a.db"), "INSERT INTO reminders VALUES ('r2', 'bread', 0);")
        try concordOK("export", "a.db", "--output", "changes.bin", in: directory)
        #expect(try concordOK("import", "b.db", "changes.bin", in: directory).text == "applied 1, ignored 1\n")
        let before = try fileBytes(directory.path("b.db"))
        #expect(try concordOK("import", "b.db", "changes.bin", in: directory).text == "applied 0, ignored 2\n")
        #expect(try fileBytes(directory.path("b.db")) == before)
        try expectBoth(directory, "r1|milk|0\nr2|bread|0\n")
    }

    @Test func aDamagedChangesetIsRefusedAndTheDatabaseStaysByteIdentical() throws {
        let directory = try twoReplicas()
        try sqlite3Shell(directory.path("a.db"), "INSERT INTO reminders VALUES ('r2', 'bread', 0);")
        let changes = try concordOK("export", "a.db", in: directory).output
        let before = try fileBytes(directory.path("b.db"))
        var flipped = changes
        flipped[flipped.count / 2] ^= 0x10
        for damage in [changes.prefix(changes.count - 3), flipped] {
            let run = try concord(["import", "b.db"], input: Data(damage), in: directory)
            #expect(run.status == 1)
            #expect(run.errors.hasPrefix("Error: The changeset is "), "\(run.errors)")
            #expect(run.errors.contains("byte") && run.errors.contains("export it again"), "\(run.errors)")
            #expect(try fileBytes(directory.path("b.db")) == before)
        }
        try concordOK("check", "b.db", in: directory)
    }

    @Test func aChangesetInANewerFormatIsRefusedNamingTheReleaseItNeeds() throws {
        let directory = try twoReplicas()
        // What a format-4 build might write: the magic, the format number, the release that reads it, then
        // a layout this build does not know.
        let binary = Data("CNCD".utf8) + Data([4, 0, 5]) + Data("0.4.0".utf8) + Data((0..<64).map { UInt8($0) })
        try binary.write(to: URL(fileURLWithPath: directory.path("future.cncd")))
        let json = Data(#"{"format": 4, "needs": "0.4.0", "changes": {"reminders": []}}"#.utf8)
        let before = try fileBytes(directory.path("b.db"))
        for (arguments, input) in [(["import", "b.db", "future.cncd"], Data()), (["import", "b.db"], json)] {
            let run = try concord(arguments, input: input, in: directory)
            #expect(run.status == 1)
            #expect(run.text.isEmpty)
            #expect(run.errors.contains("needs Concord ≥ 0.4.0"), "\(run.errors)")
            #expect(
                run.errors.contains(
                    "(it is in format 4; this build, Concord \(ConcordRelease.current), reads formats 1–3)"),
                "\(run.errors)")
            #expect(run.errors.contains("update Concord on this device"), "\(run.errors)")
            #expect(try fileBytes(directory.path("b.db")) == before)
        }
        try concordOK("check", "b.db", in: directory)
    }

    @Test func jsonExportImportsLikeBinary() throws {
        let directory = try twoReplicas()
        try sqlite3Shell(directory.path("a.db"), "UPDATE reminders SET done = 1 WHERE id = 'r1';")
        let json = try concordOK("export", "a.db", "--format", "json", in: directory).output
        #expect(json.first == UInt8(ascii: "{"))
        try concordOK("import", "b.db", "-", input: json, in: directory)
        try expectBoth(directory, "r1|milk|1\n")
    }

    @Test func statusReportsTablesAndPeers() throws {
        let directory = try twoReplicas()
        let status = try concordOK("status", "b.db", "--json", in: directory).text
        let decoded = try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any]
        let tables = decoded?["tables"] as? [[String: Any]]
        #expect(tables?.first?["name"] as? String == "reminders")
        #expect(tables?.first?["rows"] as? Int == 1)
        #expect((decoded?["peers"] as? [Any])?.count == 1)
        #expect(try concordOK("status", "b.db", in: directory).text.contains("reminders  policy column  rows 1"))
    }

    @Test func usageErrorsExit64AndRuntimeFailuresExit1() throws {
        let directory = TemporaryDirectory()
        let missing = try concord(["export"], in: directory)
        #expect(missing.status == 64)
        #expect(missing.errors.hasPrefix("Error: Missing expected argument '<db>'\nUsage: concord export"))
        let help = try concord(["import", "--help"], in: directory)
        #expect(help.status == 0 && help.text.hasPrefix("OVERVIEW: Merge a changeset into a replica."))
        try sqlite3Shell(directory.path("plain.db"), "CREATE TABLE t (id INTEGER PRIMARY KEY);")
        let refused = try concord(["enable", "plain.db", "--table", "t"], in: directory)
        #expect(refused.status == 1)
        #expect(refused.errors.contains("cannot sync table 't'"))
        #expect(try sqlite3Shell(directory.path("plain.db"), ".tables") == "t\n", "a refused enable writes nothing")
        let notReplica = try concord(["status", "plain.db"], in: directory)
        #expect(notReplica.status == 1 && notReplica.errors.contains("not a Concord replica"))
        #expect(try concord(["--version"], in: directory).text == ConcordRelease.current + "\n")
    }

    @Test func theDemoConverges() throws {
        let run = try concordOK("demo", in: TemporaryDirectory())
        #expect(run.text.contains("pass `concord check`: yes"))
    }
}
