import ConcordTestSupport
import Foundation
import Testing

/// `concord changed` lists the rows changed after a version by any writer, for an app or script that polls.
@Suite("concord changed", .tags(.cli), .timeLimit(.hangGuard))
struct ChangedCommandCLITests {
    @Test func itListsWhatAnyWriterChangedAndWhereToStartNextTime() throws {
        let directory = TemporaryDirectory()
        for name in ["a.db", "b.db"] {
            try sqlite3Shell(directory.path(name), "CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT);")
            try concordOK("enable", name, "--table", "notes", in: directory)
        }
        try sqlite3Shell(directory.path("b.db"), "INSERT INTO notes VALUES ('n1', 'x');")
        let first = try concordOK("changed", "b.db", "--json", in: directory).text
        let printed = try #require(JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        let upTo = try #require(printed["upTo"] as? Int)
        #expect((printed["rows"] as? [[String: Any]])?.map { $0["key"] as? String } == ["n1"])
        // A peer's insert and the shell's delete, both after that version.
        try sqlite3Shell(directory.path("a.db"), "INSERT INTO notes VALUES ('n2', 'y');")
        try concordOK("sync", "a.db", "b.db", in: directory)
        try sqlite3Shell(directory.path("b.db"), "DELETE FROM notes WHERE id = 'n1';")
        let text = try concordOK("changed", "b.db", "--since", String(upTo), in: directory).text
        #expect(text.contains("notes/n2\n") && text.contains("notes/n1  (not shown)"), "\(text)")
        #expect(!text.contains("notes/n1\n"))
    }

    @Test func aNegativeVersionIsAUsageError() throws {
        let directory = TemporaryDirectory()
        let run = try concord(["changed", "x.db", "--since", "-1"], in: directory)
        #expect(run.status == 64 && run.errors.contains("Error: --since"))
    }
}
