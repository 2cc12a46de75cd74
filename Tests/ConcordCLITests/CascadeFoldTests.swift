import ConcordTestSupport
import Foundation
import Testing

/// How the fold cascades an app's delete of a parent (`ON DELETE CASCADE`) to its children.
///
/// Found by the crash harness's app model (``AppWriter`` keeps its data clear of both cases, so
/// the harness measures crash safety rather than these): a cascade must delete the children the
/// delete reached when the app made it, stamped when the app made it.
@Suite("The fold's cascade of an app's delete", .tags(.cli), .timeLimit(.hangGuard))
struct CascadeFoldTests {
    /// A replica `c.db` holding item `p` with note `n1`, written at `time` (by default the shell's clock), and folded.
    private func replica(writtenAt time: Int64? = nil) throws -> TemporaryDirectory {
        let directory = TemporaryDirectory()
        try sqlite3Shell(directory.path("c.db"), AppSchema.createSQL)
        try concordOK(["enable", "c.db"] + AppSchema.enableArguments, in: directory)
        let insert = "INSERT INTO items (id, n) VALUES ('p', 1); INSERT INTO notes VALUES ('n1', 'p', 'old');"
        if let time {
            try sqlite3Shell(directory.path("c.db"), insert, writtenAt: time)
        } else {
            try sqlite3Shell(directory.path("c.db"), insert)
        }
        try concordOK("status", "c.db", in: directory)
        return directory
    }

    /// The app deletes `p`, inserts `p` again and adds a note to it; one fold sees all three.
    /// The note was written after the delete and must survive it, whether or not the app
    /// enforces foreign keys (with them on, SQLite already deleted `n1` itself).
    @Test("a child added after its parent was deleted and inserted again survives the fold", arguments: ["ON", "OFF"])
    func childOfAReinsertedParentSurvives(foreignKeys: String) throws {
        let directory = try replica()
        try sqlite3Shell(
            directory.path("c.db"),
            """
            PRAGMA foreign_keys = \(foreignKeys);
            DELETE FROM items WHERE id = 'p';
            INSERT INTO items (id, n) VALUES ('p', 2);
            INSERT INTO notes VALUES ('n2', 'p', 'new');
            """)
        try concordOK("check", "c.db", in: directory)
        let notes = try sqlite3Shell(directory.path("c.db"), "SELECT id, item, body FROM notes ORDER BY id;")
        #expect(
            notes == "n2|p|new\n", "foreign keys \(foreignKeys): the notes after the fold are \(notes.debugDescription)"
        )
    }

    /// With foreign keys off (the `sqlite3` shell's default) the fold deletes `p`'s notes itself.
    /// Those deletes belong to the app's delete of `p`: stamped in write order, before a write
    /// the app made afterwards, not when Concord next looked — or the same log folded twice
    /// (a re-run after a crash, a copy of the file) gives different stamps.
    ///
    /// Every write is given a time two minutes before the fold that stamps it (the shell's
    /// clock plays no part), so the fold's own time is always later than all of them.
    @Test("a cascaded delete is stamped in write order, not when the fold runs")
    func cascadedDeleteIsStampedWhenTheAppDeleted() throws {
        let start = unixMillisecondsNow() - 120_000
        let directory = try replica(writtenAt: start)
        try sqlite3Shell(directory.path("c.db"), "INSERT INTO items (id, n) VALUES ('q', 1);", writtenAt: start + 1000)
        try concordOK("status", "c.db", in: directory)
        try sqlite3Shell(directory.path("c.db"), "DELETE FROM items WHERE id = 'p';", writtenAt: start + 2000)
        try sqlite3Shell(directory.path("c.db"), "UPDATE items SET n = 2 WHERE id = 'q';", writtenAt: start + 3000)
        let json = try concordOK("export", "c.db", "--format", "json", in: directory).output
        let rows = try #require(
            (try JSONSerialization.jsonObject(with: json) as? [String: Any])?["rows"] as? [[String: Any]])
        func row(_ table: String, _ key: String) -> [String: Any]? {
            rows.first { $0["table"] as? String == table && ($0["key"] as? [String: Any])?["text"] as? String == key }
        }
        func hlc(_ stamp: Any?) -> UInt64? { ((stamp as? [String: Any])?["hlc"] as? NSNumber)?.uint64Value }
        let parentDelete = try #require(hlc((row("items", "p")?["liveness"] as? [String: Any])?["stamp"]))
        let childDelete = try #require(hlc((row("notes", "n1")?["liveness"] as? [String: Any])?["stamp"]))
        let laterUpdate = try #require(
            hlc((row("items", "q")?["columns"] as? [Any])?.first.flatMap { ($0 as? [String: Any])?["stamp"] }))
        let stamps =
            "p deleted at \(parentDelete >> 16) ms, its note's cascaded delete stamped at \(childDelete >> 16) ms, "
            + "q updated afterwards at \(laterUpdate >> 16) ms"
        #expect(parentDelete < childDelete && childDelete < laterUpdate, "\(stamps)")
        #expect(
            childDelete >> 16 == parentDelete >> 16,
            "the cascade carries the time of the delete it belongs to: \(stamps)")
    }
}
