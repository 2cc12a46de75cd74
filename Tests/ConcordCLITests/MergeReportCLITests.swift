import ConcordTestSupport
import Foundation
import Testing

/// `concord import --json` and `concord sync --json` say which keys' shown rows changed, for an app to refresh.
@Suite("Changed rows on the command line", .tags(.cli), .timeLimit(.hangGuard))
struct MergeReportCLITests {
    private func replicas() throws -> TemporaryDirectory {
        let directory = TemporaryDirectory()
        for name in ["a.db", "b.db"] {
            try sqlite3Shell(directory.path(name), "CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT);")
            try concordOK("enable", name, "--table", "notes", in: directory)
        }
        return directory
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func importJSONListsTheChangedKeys() throws {
        let directory = try replicas()
        try sqlite3Shell(directory.path("a.db"), "INSERT INTO notes VALUES ('n1', 'x'), ('n2', 'y');")
        try concordOK("sync", "a.db", "b.db", in: directory)
        try sqlite3Shell(
            directory.path("a.db"), "UPDATE notes SET body = 'z' WHERE id = 'n1'; DELETE FROM notes WHERE id = 'n2';")
        try concordOK("export", "a.db", "--output", "changes.bin", in: directory)
        let printed = try json(try concordOK("import", "b.db", "changes.bin", "--json", in: directory).text)
        #expect(printed["applied"] as? Int == 2)
        let tables = try #require((printed["changes"] as? [String: Any])?["tables"] as? [[String: Any]])
        #expect(tables.count == 1)
        #expect(tables.first?["table"] as? String == "notes")
        #expect(tables.first?["updated"] as? [String] == ["n1"])
        #expect(tables.first?["deleted"] as? [String] == ["n2"])
    }

    @Test func syncJSONListsEachReplicasChangedKeys() throws {
        let directory = try replicas()
        try sqlite3Shell(directory.path("a.db"), "INSERT INTO notes VALUES ('n1', 'x');")
        try sqlite3Shell(directory.path("b.db"), "INSERT INTO notes VALUES ('n2', 'y');")
        let printed = try json(try concordOK("sync", "a.db", "b.db", "--json", in: directory).text)
        #expect(printed["applied"] as? Int == 2)
        let replicas = try #require(printed["replicas"] as? [[String: Any]])
        #expect(replicas.map { $0["db"] as? String } == ["a.db", "b.db"])
        let inserted = replicas.map { replica in
            ((replica["changes"] as? [String: Any])?["tables"] as? [[String: Any]])?.first?["inserted"] as? [String]
        }
        #expect(inserted == [["n2"], ["n1"]])
    }
}
