import ConcordTestSupport
import Foundation
import Testing

/// The probe's reproductions, run as it ran them: the `sqlite3` shell is the app, `concord` the tool.
/// Each failed on the build the probe tried (set `CONCORD_EXECUTABLE` to run them against another build).
@Suite("Silent-loss regressions on the command line", .tags(.cli), .timeLimit(.hangGuard))
struct ProbeRegressionCLITests {
    /// `a.db` and `b.db` holding `schema`, with `tables` enabled on both.
    private func replicas(_ schema: String, tables: [String], names: [String] = ["a.db", "b.db"]) throws
        -> TemporaryDirectory
    {
        let directory = TemporaryDirectory()
        for name in names {
            try sqlite3Shell(directory.path(name), schema)
            try concordOK(["enable", name] + tables.flatMap { ["--table", $0] }, in: directory)
        }
        return directory
    }

    @discardableResult
    private func query(_ directory: TemporaryDirectory, _ name: String, _ sql: String) throws -> String {
        try sqlite3Shell(directory.path(name), sql)
    }

    @Test func aHugeCausalLengthFromAPeerIsRefusedAndCrashesNothing() throws {
        let directory = try replicas("CREATE TABLE v (id TEXT PRIMARY KEY, t TEXT);", tables: ["v"])
        try query(directory, "a.db", "INSERT INTO v VALUES ('k', 'x');")
        var json = try concordOK("export", "a.db", "--format", "json", in: directory).text
        json = json.replacingOccurrences(of: #""causalLength" : 1"#, with: #""causalLength" : 18446744073709551615"#)
            .replacingOccurrences(of: #""causalLength": 1"#, with: #""causalLength": 18446744073709551615"#)
        try Data(json.utf8).write(to: directory.url.appendingPathComponent("hostile.json"))
        let before = try fileBytes(directory.path("b.db"))
        let run = try concord(["import", "b.db", "hostile.json"], in: directory)
        #expect(run.status == 1)
        #expect(
            run.errors.contains("causal length 18446744073709551615 exceeds the limit") && run.errors.contains("byte"))
        #expect(try fileBytes(directory.path("b.db")) == before)
        try concordOK("sync", "a.db", "b.db", in: directory)
        try query(directory, "b.db", "DELETE FROM v WHERE id = 'k';")
        for command in ["status", "check"] { try concordOK(command, "b.db", in: directory) }
        try concordOK("sync", "a.db", "b.db", in: directory)
    }

    @Test func textWithNULOrBytesThatAreNotUTF8ArrivesUnchanged() throws {
        let directory = try replicas("CREATE TABLE v (id TEXT PRIMARY KEY, t);", tables: ["v"])
        try query(
            directory, "a.db",
            """
            INSERT INTO v VALUES ('nul', 'ab' || char(0) || 'cd'), ('utf', CAST(x'61ff62' AS TEXT)),
                (CAST(x'6b00ff' AS TEXT), 'key with NUL and FF');
            """)
        try concordOK("sync", "a.db", "b.db", in: directory)
        let select = "SELECT hex(id), typeof(id), hex(t), typeof(t) FROM v ORDER BY id;"
        #expect(try query(directory, "b.db", select) == query(directory, "a.db", select))
        #expect(try query(directory, "b.db", select).split(separator: "\n").count == 3)
        try concordOK("check", "a.db", in: directory)
        try concordOK("check", "b.db", in: directory)
    }

    @Test func anIntegerKeyIsRefusedAtTheWriteAndOtherTablesKeepSyncing() throws {
        let directory = try replicas(
            """
            CREATE TABLE things (id BLOB PRIMARY KEY, v); CREATE TABLE notes (id TEXT PRIMARY KEY, v);
            """, tables: ["things", "notes"])
        #expect(throws: ShellError.self) { try query(directory, "a.db", "INSERT INTO things VALUES (5, 'five');") }
        try query(
            directory, "a.db", "INSERT INTO notes VALUES ('n', 'syncs'); INSERT INTO things VALUES (x'05', 'ok');")
        try concordOK("sync", "a.db", "b.db", in: directory)
        #expect(try query(directory, "b.db", "SELECT v FROM notes UNION ALL SELECT v FROM things;") == "syncs\nok\n")
    }

    @Test func aCopiedDatabaseKeepsSyncingBothWays() throws {
        let directory = try replicas("CREATE TABLE r (id TEXT PRIMARY KEY, t TEXT);", tables: ["r"])
        try query(directory, "a.db", "INSERT INTO r VALUES ('r0', 'before');")
        try concordOK("sync", "a.db", "b.db", in: directory)
        try FileManager.default.copyItem(atPath: directory.path("a.db"), toPath: directory.path("c.db"))
        try query(directory, "a.db", "INSERT INTO r VALUES ('ra', 'on a');")
        try query(directory, "c.db", "INSERT INTO r VALUES ('rc', 'on c');")
        try concordOK("sync", "a.db", "b.db", "c.db", in: directory)
        for name in ["a.db", "b.db", "c.db"] {
            #expect(try query(directory, name, "SELECT id FROM r ORDER BY id;") == "r0\nra\nrc\n", "\(name)")
        }
    }

    @Test func aNoCaseKeyIsRefusedAtEnable() throws {
        let directory = TemporaryDirectory()
        try sqlite3Shell(directory.path("a.db"), "CREATE TABLE people (id TEXT COLLATE NOCASE PRIMARY KEY, name TEXT);")
        let run = try concord(["enable", "a.db", "--table", "people"], in: directory)
        #expect(run.status == 1)
        #expect(run.errors.contains("NOCASE collation"))
    }

    @Test func aColumnAddedOnOneDeviceIsAdoptedThereAndItsValuesArriveOnceThePeerMigrates() throws {
        let directory = try replicas("CREATE TABLE r (id TEXT PRIMARY KEY, t TEXT);", tables: ["r"])
        try query(directory, "a.db", "ALTER TABLE r ADD COLUMN extra TEXT; INSERT INTO r VALUES ('k', 't', 'e');")
        // The older peer keeps the column it lacks, and shows it once it migrates, with nothing sent again.
        try concordOK("sync", "a.db", "b.db", in: directory)
        #expect(try query(directory, "b.db", "SELECT id, t FROM r;") == "k|t\n")
        try query(directory, "b.db", "ALTER TABLE r ADD COLUMN extra TEXT;")
        try concordOK("status", "b.db", in: directory)
        #expect(try query(directory, "b.db", "SELECT id, t, extra FROM r;") == "k|t|e\n")
        try concordOK("sync", "a.db", "b.db", in: directory)
        #expect(try query(directory, "b.db", "SELECT id, t, extra FROM r;") == "k|t|e\n")
    }

    @Test func aColumnNamedPkSyncsAndAFailedEnableLeavesNothing() throws {
        let directory = try replicas(
            "CREATE TABLE a (id TEXT PRIMARY KEY, pk TEXT); CREATE TABLE a_key (id TEXT PRIMARY KEY, v);",
            tables: ["a", "a_key"])
        try query(directory, "a.db", "INSERT INTO a VALUES ('x', 'pk value'); INSERT INTO a_key VALUES ('y', 1);")
        try concordOK("sync", "a.db", "b.db", in: directory)
        #expect(try query(directory, "b.db", "SELECT pk FROM a;") == "pk value\n")

        try sqlite3Shell(
            directory.path("fresh.db"),
            "CREATE TABLE ok (id TEXT PRIMARY KEY, v); CREATE TABLE bad (id INTEGER PRIMARY KEY, v);")
        let run = try concord(["enable", "fresh.db", "--table", "ok", "--table", "bad"], in: directory)
        #expect(run.status == 1)
        #expect(!run.errors.contains("CREATE"), "no SQL script in the message: \(run.errors)")
        #expect(
            try query(
                directory, "fresh.db", "SELECT count(*) FROM sqlite_schema WHERE name LIKE '\\_concord%' ESCAPE '\\';")
                == "0\n")
    }

    @Test func negativeZeroReachesThePeer() throws {
        let directory = try replicas("CREATE TABLE m (id TEXT PRIMARY KEY, x);", tables: ["m"])
        try query(directory, "a.db", "INSERT INTO m VALUES ('k', 0.0);")
        try concordOK("sync", "a.db", "b.db", in: directory)
        try query(directory, "a.db", "UPDATE m SET x = -0.0;")
        try concordOK("sync", "a.db", "b.db", in: directory)
        #expect(
            try concordOK("export", "b.db", "--format", "json", in: directory).text.contains(#""real" : -0.0"#)
                || concordOK("export", "b.db", "--format", "json", in: directory).text.contains(#""real": -0.0"#))
    }

    // MARK: The minor ones

    @Test func exportSinceBeyondTheVersionGivesAChangesetThatImports() throws {
        let directory = try replicas("CREATE TABLE r (id TEXT PRIMARY KEY, t TEXT);", tables: ["r"])
        try query(directory, "a.db", "INSERT INTO r VALUES ('k', 'v');")
        for format in ["json", "binary"] {
            let run = try concordOK(
                "export", "a.db", "--since", "9223372036854775000", "--format", format,
                "-o", "far.\(format)", in: directory)
            #expect(run.errors.contains("note:"))
            try concordOK("import", "b.db", "far.\(format)", in: directory)
        }
        #expect(try query(directory, "b.db", "SELECT t FROM r;") == "v\n")
    }

    @Test func aFailedExportLeavesAnExistingFileAlone() throws {
        let directory = try replicas("CREATE TABLE r (id TEXT PRIMARY KEY, t TEXT);", tables: ["r"])
        try Data("precious".utf8).write(to: directory.url.appendingPathComponent("out.bin"))
        // A merge this build does not know makes the fold, and so the export, fail.
        try query(
            directory, "a.db",
            "UPDATE _concord_tables SET merges = '{\"t\":\"mystery\"}'; INSERT INTO r VALUES ('k', 'v');")
        let run = try concord(["export", "a.db", "-o", "out.bin"], in: directory)
        #expect(run.status == 1)
        #expect(try String(decoding: fileBytes(directory.path("out.bin")), as: UTF8.self) == "precious")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == [
                "a.db", "b.db", "out.bin",
            ])
    }

    /// `export -o` naming the database (or its journal) swapped the database for the changeset, exit 0.
    @Test(arguments: ["a.db", "./a.db", "a.db-wal", "link.db"])
    func anExportOverItsOwnDatabaseIsRefused(target: String) throws {
        let directory = try replicas("CREATE TABLE r (id TEXT PRIMARY KEY, t TEXT);", tables: ["r"])
        try query(directory, "a.db", "INSERT INTO r VALUES ('k1', 'v');")
        try FileManager.default.createSymbolicLink(
            atPath: directory.path("link.db"), withDestinationPath: directory.path("a.db"))
        let run = try concord(["export", "a.db", "-o", target], in: directory)
        #expect(run.status == 64)
        #expect(run.errors.contains("names the database itself or its journal"))
        #expect(try query(directory, "a.db", "SELECT id FROM r;") == "k1\n")
    }

    @Test func aNegativeSinceIsAUsageErrorThatSaysWhy() throws {
        let directory = try replicas("CREATE TABLE r (id TEXT PRIMARY KEY, t TEXT);", tables: ["r"])
        let run = try concord(["export", "a.db", "--since", "-1"], in: directory)
        #expect(run.status == 64)
        #expect(run.errors.contains("--since takes a version of at least 0"))
    }

    @Test func aClockRefusalStopsOnlyItsOwnDirection() throws {
        let directory = try replicas(
            "CREATE TABLE r (id TEXT PRIMARY KEY, t TEXT);", tables: ["r"], names: ["a.db", "b.db", "c.db"])
        // c's clock ran an hour ahead when it last stamped (its stored clock says so), so it stamps its
        // next write there.
        try query(
            directory, "c.db",
            """
            INSERT INTO r VALUES ('from-c', 'ahead');
            UPDATE _concord_state SET hlc = (CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) + 3600000) << 16;
            """)
        try query(directory, "a.db", "INSERT INTO r VALUES ('from-a', 'fine');")
        let run = try concord(["sync", "a.db", "b.db", "c.db"], in: directory)
        #expect(run.status == 1)
        #expect(
            run.errors.contains("a.db refused the changes of c.db") && run.errors.contains("Either that device's clock")
        )
        for name in ["b.db", "c.db"] {
            #expect(try query(directory, name, "SELECT id FROM r WHERE id = 'from-a';") == "from-a\n", "\(name)")
        }
    }

    @Test func aReplicaDeclaringATableOtherwiseStopsOnlyItsOwnDirections() throws {
        let directory = try replicas("CREATE TABLE t (id TEXT PRIMARY KEY, v TEXT);", tables: ["t"])
        try sqlite3Shell(directory.path("c.db"), "CREATE TABLE t (id TEXT PRIMARY KEY, v TEXT);")
        try concordOK(["enable", "c.db", "--table", "t:row"], in: directory)
        try query(directory, "a.db", "INSERT INTO t VALUES ('ka', 'a');")
        try query(directory, "b.db", "INSERT INTO t VALUES ('kb', 'b');")
        let run = try concord(["sync", "a.db", "b.db", "c.db", "--json"], in: directory)
        #expect(run.status == 1)
        #expect(run.errors.contains("Error: c.db refused the changes of a.db: the changeset merges table 't' with"))
        let report = try JSONSerialization.jsonObject(with: run.output) as? [String: Any]
        #expect((report?["refused"] as? [String])?.count == 4)
        #expect(try query(directory, "a.db", "SELECT id FROM t ORDER BY id;") == "ka\nkb\n")
    }

    @Test func aFileThatCannotBeOpenedIsNamed() throws {
        let directory = try replicas("CREATE TABLE t (id TEXT PRIMARY KEY, v TEXT);", tables: ["t"])
        try "not a database at all, but long enough to be read as one".write(
            toFile: directory.path("c.db"), atomically: true, encoding: .utf8)
        let run = try concord(["sync", "a.db", "b.db", "c.db"], in: directory)
        #expect(run.status == 1)
        #expect(run.errors.hasPrefix("Error: c.db: "), "\(run.errors)")
    }
}
