import ConcordTestSupport
import Foundation
import Testing

/// The merge policies through the command line, with the `sqlite3` shell as the writer.
@Suite("Merge policies on the command line", .tags(.cli), .timeLimit(.hangGuard))
struct MergePolicyCLITests {
    private func replicas(_ schema: String, _ enable: [String]) throws -> TemporaryDirectory {
        let directory = TemporaryDirectory()
        for name in ["a.db", "b.db"] {
            try sqlite3Shell(directory.path(name), schema)
            try concordOK(["enable", name] + enable, in: directory)
        }
        return directory
    }

    private func read(_ directory: TemporaryDirectory, _ name: String, _ sql: String) throws -> String {
        try sqlite3Shell(directory.path(name), sql)
    }

    @Test func concurrentIncrementsOfACounterAddUp() throws {
        let directory = try replicas(
            "CREATE TABLE counters (id TEXT PRIMARY KEY, count INTEGER NOT NULL DEFAULT 0);",
            ["--table", "counters", "--merge", "counters.count=counter"])
        try sqlite3Shell(directory.path("a.db"), "INSERT INTO counters VALUES ('c', 0);")
        try concordOK("sync", "a.db", "b.db", in: directory)
        try sqlite3Shell(
            directory.path("a.db"), String(repeating: "UPDATE counters SET count = count + 1;\n", count: 3))
        try sqlite3Shell(directory.path("b.db"), "UPDATE counters SET count = count + 2;")
        try concordOK("sync", "a.db", "b.db", in: directory)
        for name in ["a.db", "b.db"] {
            #expect(try read(directory, name, "SELECT count FROM counters;") == "5\n", "\(name)")
            try concordOK("check", name, in: directory)
        }
        // A decrement on one side and an increment on the other still add up.
        try sqlite3Shell(directory.path("a.db"), "UPDATE counters SET count = count - 4;")
        try sqlite3Shell(directory.path("b.db"), "UPDATE counters SET count = count + 10;")
        try concordOK("sync", "b.db", "a.db", in: directory)
        for name in ["a.db", "b.db"] {
            #expect(try read(directory, name, "SELECT count FROM counters;") == "11\n", "\(name)")
        }
    }

    @Test func theSameIncrementsUnderLastWriterWinsKeepOneSide() throws {
        let directory = try replicas(
            "CREATE TABLE counters (id TEXT PRIMARY KEY, count INTEGER NOT NULL DEFAULT 0);",
            ["--table", "counters"])
        try sqlite3Shell(directory.path("a.db"), "INSERT INTO counters VALUES ('c', 0);")
        try concordOK("sync", "a.db", "b.db", in: directory)
        let now = unixMillisecondsNow()
        try sqlite3Shell(
            directory.path("a.db"), String(repeating: "UPDATE counters SET count = count + 1;\n", count: 3),
            writtenAt: now + 1000)
        try sqlite3Shell(directory.path("b.db"), "UPDATE counters SET count = count + 2;", writtenAt: now + 2000)
        try concordOK("sync", "a.db", "b.db", in: directory)
        for name in ["a.db", "b.db"] {
            #expect(
                try read(directory, name, "SELECT count FROM counters;") == "2\n", "the later write wins on \(name)")
        }
    }

    @Test func rowPolicyTakesTheWholeRowFromTheLaterWriter() throws {
        let directory = try replicas(
            "CREATE TABLE settings (id TEXT PRIMARY KEY, theme TEXT, size INTEGER);",
            ["--table", "settings:row"])
        try sqlite3Shell(directory.path("a.db"), "INSERT INTO settings VALUES ('s', 'light', 12);")
        try concordOK("sync", "a.db", "b.db", in: directory)
        let now = unixMillisecondsNow()
        try sqlite3Shell(directory.path("a.db"), "UPDATE settings SET theme = 'dark';", writtenAt: now + 1000)
        try sqlite3Shell(directory.path("b.db"), "UPDATE settings SET size = 14;", writtenAt: now + 2000)
        try concordOK("sync", "a.db", "b.db", in: directory)
        for name in ["a.db", "b.db"] {
            #expect(try read(directory, name, "SELECT theme, size FROM settings;") == "light|14\n", "\(name)")
            try concordOK("check", name, in: directory)
        }
    }

    @Test func aChangesetUnderAnotherPolicyIsRefusedNamingBoth() throws {
        let directory = TemporaryDirectory()
        let schema = "CREATE TABLE counters (id TEXT PRIMARY KEY, count INTEGER NOT NULL DEFAULT 0);"
        try sqlite3Shell(directory.path("a.db"), schema)
        try sqlite3Shell(directory.path("b.db"), schema)
        try concordOK("enable", "a.db", "--table", "counters", "--merge", "counters.count=counter", in: directory)
        try concordOK("enable", "b.db", "--table", "counters", in: directory)
        try sqlite3Shell(directory.path("a.db"), "INSERT INTO counters VALUES ('c', 1);")
        let before = try fileBytes(directory.path("b.db"))
        let changes = try concordOK("export", "a.db", in: directory).output
        let run = try concord(["import", "b.db"], input: changes, in: directory)
        #expect(run.status == 1)
        #expect(run.errors.contains("count=counter") && run.errors.contains("count=lww"), "\(run.errors)")
        #expect(try fileBytes(directory.path("b.db")) == before)
    }

    @Test func badMergeDeclarationsAreUsageErrors() throws {
        let directory = try replicas("CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER);", ["--table", "t"])
        let unknownKind = try concord(["enable", "a.db", "--table", "t", "--merge", "t.n=sum"], in: directory)
        #expect(unknownKind.status == 64 && unknownKind.errors.contains("KIND one of lww, max, min, counter, union"))
        let rowPolicy = try concord(["enable", "a.db", "--table", "t:row", "--merge", "t.n=max"], in: directory)
        #expect(rowPolicy.status == 1 && rowPolicy.errors.contains("row policy"), "\(rowPolicy.errors)")
    }

    /// A merge cannot be changed once a table syncs: two for one column are a slip, refused as a usage error
    /// (the last one used to win, silently), and a merge on the key says it is the key.
    @Test func twoMergesForOneColumnOrOneForTheKeyAreRefused() throws {
        let directory = TemporaryDirectory()
        try sqlite3Shell(directory.path("a.db"), "CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER);")
        let twice = try concord(
            ["enable", "a.db", "--table", "t", "--merge", "t.n=counter", "--merge", "t.n=max"], in: directory)
        #expect(twice.status == 64)
        #expect(twice.errors.contains("two merges, counter and max"), "\(twice.errors)")
        let key = try concord(["enable", "a.db", "--table", "t", "--merge", "t.id=max"], in: directory)
        #expect(key.status == 1)
        #expect(key.errors.contains("it is the table's key"), "\(key.errors)")
        #expect(
            try sqlite3Shell(directory.path("a.db"), "SELECT count(*) FROM sqlite_schema WHERE name LIKE '_concord%';")
                == "0\n")
        // The same merge given twice is the same declaration.
        try concordOK(
            "enable", "a.db", "--table", "t", "--merge", "t.n=counter", "--merge", "t.n=counter", in: directory)
    }

    /// `status` shows how each column merges, so a column left last-writer-wins (sync enabled before the
    /// `--merge` was given) can be seen.
    @Test func statusShowsEachColumnsMerge() throws {
        let directory = try replicas(
            "CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER NOT NULL DEFAULT 0, title TEXT, tags TEXT);",
            ["--table", "t", "--merge", "t.n=counter", "--merge", "t.tags=union"])
        let text = try concordOK("status", "a.db", in: directory).text
        #expect(text.contains("merges n=counter, tags=union"), "\(text)")
        let json = try concordOK("status", "a.db", "--json", in: directory).text
        #expect(json.contains(#""merges" : ["#) && json.contains(#""n=counter""#), "\(json)")
    }
}
