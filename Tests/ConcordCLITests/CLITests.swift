import ConcordTestSupport
import Foundation
import Testing

/// Black-box tests of the `concord` tool, with the real `sqlite3` shell as the only writer.
@Suite("concord command line")
struct CLITests {
    /// Two replicas `a.db` and `b.db` of one reminders table, synced, both holding r1.
    private func twoReplicas() throws -> TemporaryDirectory {
        let directory = TemporaryDirectory()
        for name in ["a.db", "b.db"] {
            try sqlite3Shell(directory.path(name), "CREATE TABLE reminders (id TEXT PRIMARY KEY, title TEXT, done INTEGER);")
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
    private func expectBoth(_ directory: TemporaryDirectory, _ expected: String,
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
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
        try sqlite3Shell(directory.path("b.db"), "UPDATE reminders SET title = 'earlier' WHERE id = 'r1';", writtenAt: now + 1000)
        try sqlite3Shell(directory.path("a.db"), "UPDATE reminders SET title = 'later' WHERE id = 'r1';", writtenAt: now + 2000)
        let changes = try concordOK("export", order[0], in: directory).output
        try concordOK("import", order[1], input: changes, in: directory)
        try concordOK("sync", "a.db", "b.db", in: directory)
        try expectBoth(directory, "r1|later|0\n")
    }

    @Test func aDeleteBeatsAConcurrentUpdateAndAReinsertComesBack() throws {
        let directory = try twoReplicas()
        let now = unixMillisecondsNow()
        try sqlite3Shell(directory.path("a.db"), "DELETE FROM reminders WHERE id = 'r1';", writtenAt: now + 1000)
        try sqlite3Shell(directory.path("b.db"), "UPDATE reminders SET title = 'edited after' WHERE id = 'r1';", writtenAt: now + 2000)
        try concordOK("sync", "a.db", "b.db", in: directory)
        try expectBoth(directory, "")
        try sqlite3Shell(directory.path("b.db"), "INSERT INTO reminders VALUES ('r1', 'again', 0);")
        try concordOK("sync", "b.db", "a.db", in: directory)
        try expectBoth(directory, "r1|again|0\n")
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
        #expect(try concord(["--version"], in: directory).text == "0.1.0\n")
    }

    @Test func theDemoConverges() throws {
        let run = try concordOK("demo", in: TemporaryDirectory())
        #expect(run.text.contains("pass `concord check`: yes"))
    }
}

/// Foreign keys through the command line: a child imported before its parent waits, visibly.
@Suite("Parked rows on the command line")
struct ParkedRowsCLITests {
    @Test func statusListsAParkedChildAndImportingTheParentShowsIt() throws {
        let directory = TemporaryDirectory()
        let schema = """
            CREATE TABLE lists (id TEXT PRIMARY KEY, name TEXT);
            CREATE TABLE reminders (id TEXT PRIMARY KEY, list_id TEXT REFERENCES lists(id) ON DELETE CASCADE, title TEXT);
            """
        for name in ["a.db", "b.db"] {
            try sqlite3Shell(directory.path(name), schema)
            try concordOK("enable", name, "--table", "lists", "--table", "reminders", in: directory)
        }
        try sqlite3Shell(directory.path("a.db"), "INSERT INTO lists VALUES ('L', 'Home');")
        let parent = try concordOK("export", "a.db", in: directory).output
        let version = try JSONSerialization.jsonObject(
            with: try concordOK("status", "a.db", "--json", in: directory).output) as? [String: Any]
        try sqlite3Shell(directory.path("a.db"), "PRAGMA foreign_keys = ON; INSERT INTO reminders VALUES ('R', 'L', 'call');")
        let child = try concordOK("export", "a.db", "--since", "\((version?["version"] as? Int) ?? 0)", in: directory).output

        try concordOK("import", "b.db", input: child, in: directory)
        #expect(try sqlite3Shell(directory.path("b.db"), "SELECT count(*) FROM reminders;") == "0\n")
        #expect(try concordOK("status", "b.db", in: directory).text.contains("reminders/R  missing parent lists/L"))
        try concordOK("check", "b.db", in: directory)

        try concordOK("import", "b.db", input: parent, in: directory)
        #expect(try sqlite3Shell(directory.path("b.db"), "SELECT id FROM reminders;") == "R\n")
        #expect(!(try concordOK("status", "b.db", in: directory).text.contains("parked")))
        #expect(try sqlite3Shell(directory.path("b.db"), "PRAGMA foreign_key_check;") == "")
        try concordOK("check", "b.db", in: directory)
    }

    @Test func enablingAChildBeforeItsParentIsRefusedWithTheFix() throws {
        let directory = TemporaryDirectory()
        try sqlite3Shell(directory.path("a.db"), """
            CREATE TABLE lists (id TEXT PRIMARY KEY, name TEXT);
            CREATE TABLE reminders (id TEXT PRIMARY KEY, list_id TEXT REFERENCES lists(id), title TEXT);
            """)
        let run = try concord(["enable", "a.db", "--table", "reminders"], in: directory)
        #expect(run.status == 1)
        #expect(run.errors.contains("references lists, which does not sync"), "\(run.errors)")
    }
}

@Suite("concord simulate")
struct SimulateCLITests {
    @Test func aSmallSweepConvergesAndReportsJSON() throws {
        let run = try concordOK("simulate", "--seeds", "1..3", "--steps", "60", "--json", in: TemporaryDirectory())
        let decoded = try JSONSerialization.jsonObject(with: run.output) as? [String: Any]
        let results = decoded?["results"] as? [[String: Any]]
        #expect(results?.count == 3)
        #expect(results?.allSatisfy { $0["converged"] as? Bool == true } == true)
    }

    @Test func theSameSeedPrintsTheSameTrace() throws {
        let directory = TemporaryDirectory()
        let hashes = try (0..<2).map { _ in
            let run = try concordOK("simulate", "--seed", "9", "--steps", "80", "--json", in: directory)
            let results = (try JSONSerialization.jsonObject(with: run.output) as? [String: Any])?["results"] as? [[String: Any]]
            return results?.first?["traceHash"] as? String
        }
        #expect(hashes[0] != nil && hashes[0] == hashes[1])
    }
}

@Suite("concord replay")
struct ReplayCLITests {
    static let regression = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Simulations/regressions/local-delete-kept-counter-value.json").path

    @Test func aReproducerReplaysItsPlanWithTheFullTrace() throws {
        let directory = TemporaryDirectory()
        let original = try String(contentsOfFile: Self.regression, encoding: .utf8)
        try original.write(toFile: directory.path("r.json"), atomically: true, encoding: .utf8)
        let run = try concordOK("replay", "r.json", "--shrink", in: directory)
        #expect(run.text.hasPrefix("step 0: +0 ms device 2 writes: INSERT INTO counters"))
        #expect(run.text.contains("device 2 wrote: DELETE FROM counters WHERE id = 'c3'"))
        #expect(run.text.hasSuffix("counter-app seed 3 passes now (it failed with: safety failure at step 2: device 2: "
                                   + "counters 'c3'.taps: counter holds -1 but its contributions add up to 0)\n"))
        // A passing plan has nothing to shrink: the file stays as it was.
        #expect(try String(contentsOfFile: directory.path("r.json"), encoding: .utf8) == original)
        let again = try concordOK("replay", "r.json", in: directory)
        #expect(again.text == run.text, "a replay is deterministic")
    }

    @Test func aFileThatIsNotAReproducerIsRefused() throws {
        let directory = TemporaryDirectory()
        try "{}".write(toFile: directory.path("bad.json"), atomically: true, encoding: .utf8)
        let run = try concord(["replay", "bad.json"], in: directory)
        #expect(run.status == 1 && run.errors.contains("'bad.json' is not a simulation reproducer"))
        #expect(run.errors.contains("is missing \"scenario\""))
    }
}

@Suite("concord simulate with scenario files")
struct ScenarioCLITests {
    @Test func aScenarioFileRunsItsSeedsAndOptionsOverrideIt() throws {
        let directory = TemporaryDirectory()
        try #"{"name": "tiny", "devices": 2, "steps": 30, "seeds": "1..2", "workload": {"app": "counter"}}"#
            .write(toFile: directory.path("tiny.json"), atomically: true, encoding: .utf8)
        let run = try concordOK("simulate", "tiny.json", "--topology", "cloud", in: directory)
        #expect(run.text.hasPrefix("scenarios (runs passed)                         tiny 2/2\n"))
        #expect(run.text.contains("runs x steps                                    2 runs, 60 steps"))
        #expect(!run.text.contains("cloud uploads / fetches / pushes lost           0 / 0"))
    }

    @Test func aBadScenarioFileSaysWhatIsWrong() throws {
        let directory = TemporaryDirectory()
        try #"{"name": "x", "faults": {"crash": [9, 2]}}"#.write(toFile: directory.path("x.json"), atomically: true, encoding: .utf8)
        let run = try concord(["simulate", "x.json"], in: directory)
        #expect(run.status == 1)
        #expect(run.errors == "Error: scenario 'x.json': faults.crash is [9, 2]; give it as [low, high] with 0 <= low <= high\n")
    }
}
