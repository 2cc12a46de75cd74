import ConcordTestSupport
import Foundation
import Testing

/// Foreign keys through the command line: a child imported before its parent waits, visibly.
@Suite("Parked rows on the command line", .tags(.cli), .timeLimit(.hangGuard))
struct ParkedRowsCLITests {
    /// Lists and their reminders, whose key has no `ON DELETE` action.
    static let listsAndReminders = """
        CREATE TABLE lists (id TEXT PRIMARY KEY, name TEXT);
        CREATE TABLE reminders (id TEXT PRIMARY KEY, list_id TEXT REFERENCES lists(id), title TEXT);
        """

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
        let version =
            try JSONSerialization.jsonObject(
                with: try concordOK("status", "a.db", "--json", in: directory).output) as? [String: Any]
        try sqlite3Shell(
            directory.path("a.db"), "PRAGMA foreign_keys = ON; INSERT INTO reminders VALUES ('R', 'L', 'call');")
        let child = try concordOK("export", "a.db", "--since", "\((version?["version"] as? Int) ?? 0)", in: directory)
            .output

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

    @Test func enableSaysHowManyRowsOfTheTableItParked() throws {
        let directory = TemporaryDirectory()
        try sqlite3Shell(
            directory.path("a.db"),
            Self.listsAndReminders + "INSERT INTO reminders VALUES ('R', 'gone', 'orphan');")
        let run = try concordOK("enable", "a.db", "--table", "lists", "--table", "reminders", in: directory)
        #expect(run.text.contains("a.db: 1 row(s) of these tables parked"), "\(run.text)")
        #expect(try concordOK("status", "a.db", in: directory).text.contains("reminders/R  missing parent lists/gone"))
        try concordOK("check", "a.db", in: directory)
    }

    @Test func enablingAChildBeforeItsParentIsRefusedWithTheFix() throws {
        let directory = TemporaryDirectory()
        try sqlite3Shell(
            directory.path("a.db"),
            Self.listsAndReminders)
        let run = try concord(["enable", "a.db", "--table", "reminders"], in: directory)
        #expect(run.status == 1)
        #expect(run.errors.contains("references lists, which does not sync"), "\(run.errors)")
    }
}
