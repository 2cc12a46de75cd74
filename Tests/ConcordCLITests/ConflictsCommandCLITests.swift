import Concord
import ConcordTestSupport
import Foundation
import Testing

/// `concord conflicts` lists the values that lost to a concurrent write; `concord restore` brings one back.
@Suite("concord conflicts and restore", .tags(.cli), .timeLimit(.hangGuard))
struct ConflictsCommandCLITests {
    /// Two replicas, `a.db` and `b.db`, whose table `table` (a TEXT key and one TEXT column `column`) syncs.
    private func syncedPair(_ table: String, _ column: String) throws -> TemporaryDirectory {
        let directory = TemporaryDirectory()
        for name in ["a.db", "b.db"] {
            try sqlite3Shell(directory.path(name), "CREATE TABLE \(table) (id TEXT PRIMARY KEY, \(column) TEXT);")
            try concordOK("enable", name, "--table", table, in: directory)
        }
        return directory
    }

    @Test func aLostValueIsListedAndRestoredOnEveryDevice() throws {
        let directory = try syncedPair("notes", "body")
        try sqlite3Shell(directory.path("a.db"), "INSERT INTO notes VALUES ('n1', 'first');")
        try concordOK("sync", "a.db", "b.db", in: directory)
        // Both edit the body without seeing the other's edit; b's is the later write.
        try sqlite3Shell(directory.path("a.db"), "UPDATE notes SET body = 'from a' WHERE id = 'n1';")
        Thread.sleep(forTimeInterval: 0.01)
        try sqlite3Shell(directory.path("b.db"), "UPDATE notes SET body = 'from b' WHERE id = 'n1';")
        try concordOK("sync", "a.db", "b.db", in: directory)

        let json = try concordOK("conflicts", "b.db", "--table", "notes", "--key", "n1", "--json", in: directory).text
        let listed = try #require(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(listed.count == 1)
        let entry = try #require(listed.first)
        #expect(entry["lost"] as? String == "'from a'" && entry["winner"] as? String == "'from b'", "\(entry)")
        #expect(entry["column"] as? String == "body" && entry["kind"] as? String == "edit")
        let id = try #require(entry["id"] as? Int)
        let text = try concordOK("conflicts", "b.db", in: directory).text
        #expect(text.contains("1 conflict, newest first") && text.contains("\(id)  notes/n1 body: 'from a'"), "\(text)")
        // a lists the same loss in its own log: b's write says it never saw a's value.
        let there = try concordOK("conflicts", "a.db", in: directory).text
        #expect(there.contains("1 conflict, newest first") && there.contains("notes/n1 body: 'from a'"), "\(there)")

        let restored = try concordOK("restore", "b.db", String(id), in: directory).text
        #expect(restored.contains("restored conflict \(id): notes/n1 body = 'from a'"), "\(restored)")
        try concordOK("sync", "a.db", "b.db", in: directory)
        for name in ["a.db", "b.db"] {
            #expect(try sqlite3Shell(directory.path(name), "SELECT body FROM notes;") == "from a\n")
        }
    }

    @Test func anUnknownIdFailsWithWhatToDoAndAMalformedOneIsAUsageError() throws {
        let directory = TemporaryDirectory()
        try sqlite3Shell(directory.path("a.db"), "CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT);")
        try concordOK("enable", "a.db", "--table", "notes", in: directory)
        let unknown = try concord(["restore", "a.db", "7"], in: directory)
        #expect(unknown.status == 1 && unknown.errors.contains("no conflict 7"), "\(unknown.errors)")
        #expect(unknown.errors.contains("`concord conflicts DB`") && unknown.errors.contains("nothing was changed"))
        let malformed = try concord(["restore", "a.db", "seven"], in: directory)
        #expect(malformed.status == 64 && malformed.errors.contains("<conflict-id>"), "\(malformed.errors)")
        let table = try concord(["conflicts", "a.db", "--table", "nope"], in: directory)
        #expect(table.status == 1 && table.errors.contains("'nope' does not sync"), "\(table.errors)")
    }

    @Test func helpGoesToStandardOutput() throws {
        let directory = TemporaryDirectory()
        for command in ["conflicts", "restore"] {
            let run = try concord([command, "--help"], in: directory)
            #expect(run.status == 0 && run.text.contains("USAGE: concord \(command)"), "\(run.text)")
        }
    }

    /// A peer's key holding a newline or an escape sequence once printed as it was: a forged line in
    /// `changed`, a colour change on the terminal. Listings print it escaped, and `--key` takes it back.
    @Test func aKeyHoldingControlCharactersIsListedEscaped() throws {
        let directory = try syncedPair("t", "v")
        try sqlite3Shell(directory.path("a.db"), "INSERT INTO t VALUES ('line1' || char(10) || '  t/forged', 'a');")
        try concordOK(["sync", "a.db", "b.db"], in: directory)
        let changed = try concordOK(["changed", "b.db"], in: directory).text
        #expect(changed.split(separator: "\n").count == 2, "\(changed)")
        #expect(changed.contains(#"t/U&'line1\000A  t/forged'"#), "\(changed)")
        let rows = try concordOK(["changed", "b.db", "--json"], in: directory).text
        #expect(rows.contains(#""key" : "line1\n  t\/forged""#), "JSON carries the key as it is")
    }

    /// A peer's value holding an escape sequence or a newline once reached the terminal as it was: the
    /// conflict listing prints such characters as `\u{…}`, in the lost value and in the winner.
    @Test func aValueHoldingControlCharactersIsListedEscaped() throws {
        let directory = try syncedPair("notes", "body")
        try sqlite3Shell(directory.path("a.db"), "INSERT INTO notes VALUES ('n1', 'first');")
        try concordOK("sync", "a.db", "b.db", in: directory)
        try sqlite3Shell(
            directory.path("a.db"), "UPDATE notes SET body = char(27) || '[31mred' || char(10) || '  forged';")
        Thread.sleep(forTimeInterval: 0.01)
        try sqlite3Shell(directory.path("b.db"), "UPDATE notes SET body = 'ok' || char(155) || char(8238) || 'x';")
        try concordOK("sync", "a.db", "b.db", in: directory)
        let text = try concordOK("conflicts", "b.db", in: directory).text
        #expect(text.split(separator: "\n").count == 2, "\(text)")
        #expect(!text.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{9B}" || $0 == "\u{202E}" }, "\(text)")
        #expect(text.contains(#"notes/n1 body: '\u{1B}[31mred\u{A}  forged' by "#), "\(text)")
        #expect(text.contains(#"lost to 'ok\u{9B}\u{202E}x' by "#), "\(text)")
    }

    @Test func aTextKeyThatReadsLikeABlobIsListedQuotedAndSelectedSo() throws {
        let directory = try syncedPair("t", "v")
        try sqlite3Shell(directory.path("a.db"), "INSERT INTO t VALUES ('X''61''', 'A');")
        try concordOK(["sync", "a.db", "b.db"], in: directory)
        try sqlite3Shell(directory.path("b.db"), "UPDATE t SET v = 'B';")
        try sqlite3Shell(directory.path("a.db"), "UPDATE t SET v = 'C';")
        try concordOK(["sync", "a.db", "b.db"], in: directory)
        // Whichever device's write lost lists it.
        let listed = try concordOK(["conflicts", "b.db"], in: directory).text.contains("1 conflict")
        let lister = listed ? "b.db" : "a.db"
        let run = try concordOK(["conflicts", lister, "--key", "'X''61'''"], in: directory)
        #expect(run.text.contains("1 conflict") && run.text.contains("t/'X''61''' v:"), "\(run.text)")
        #expect(try concordOK(["conflicts", lister, "--key", "X'61'"], in: directory).text.contains("0 conflicts"))
        let bad = try concord(["conflicts", lister, "--key", "X'6G'"], in: directory)
        #expect(bad.status == 64 && bad.errors.contains("quote it as SQL does: 'X''6G'''"))
    }
}
