import ConcordTestSupport
import Foundation
import Testing

/// Migrations made by the `sqlite3` shell as the app, with `concord` noticing them on its own.
@Suite("Migrations on the command line", .tags(.cli), .timeLimit(.hangGuard))
struct MigrationCLITests {
    static let schema = """
        CREATE TABLE r (id TEXT PRIMARY KEY, title TEXT, extra TEXT);
        CREATE TABLE l (id TEXT PRIMARY KEY, name TEXT);
        """

    /// `a.db` and `b.db` holding the schema with both tables synced and one row of `r` on both.
    private func replicas() throws -> TemporaryDirectory {
        let directory = TemporaryDirectory()
        for name in ["a.db", "b.db"] {
            try sqlite3Shell(directory.path(name), Self.schema)
            try concordOK("enable", name, "--table", "r", "--table", "l", in: directory)
        }
        try sqlite3Shell(directory.path("a.db"), "INSERT INTO r VALUES ('k1', 'one', 'x1'), ('k2', 'two', 'x2');")
        try concordOK("sync", "a.db", "b.db", in: directory)
        return directory
    }

    private func select(_ directory: TemporaryDirectory, _ name: String, _ sql: String) throws -> String {
        try sqlite3Shell(directory.path(name), sql)
    }

    /// `a.db`, `b.db` and `c.db` on the lists app, synced, with one list and one reminder.
    private func threeDevices() throws -> TemporaryDirectory {
        let directory = TemporaryDirectory()
        for name in ["a.db", "b.db", "c.db"] {
            try sqlite3Shell(
                directory.path(name),
                """
                PRAGMA foreign_keys = ON;
                CREATE TABLE lists (id TEXT PRIMARY KEY, name TEXT);
                CREATE TABLE reminders (id TEXT PRIMARY KEY, list TEXT REFERENCES lists(id) ON DELETE CASCADE,
                                        title TEXT);
                """)
            try concordOK("enable", name, "--table", "lists", "--table", "reminders", in: directory)
        }
        try sqlite3Shell(
            directory.path("a.db"),
            "INSERT INTO lists VALUES ('l1', 'home'); INSERT INTO reminders VALUES ('r1', 'l1', 'milk');")
        try concordOK("sync", "a.db", "b.db", "c.db", in: directory)
        return directory
    }

    @Test func aColumnANewerDeviceAddsReachesAThirdThroughAnOlderOneAndShowsWhenItUpgrades() throws {
        let directory = try threeDevices()
        let migration = "ALTER TABLE reminders ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;"
        try sqlite3Shell(directory.path("a.db"), migration + "UPDATE reminders SET priority = 4 WHERE id = 'r1';")
        try concordOK("sync", "a.db", "b.db", in: directory)
        // The older device edits another column of the row; it is the third device's only link.
        try sqlite3Shell(directory.path("b.db"), "UPDATE reminders SET title = 'oat milk' WHERE id = 'r1';")
        try concordOK("sync", "b.db", "c.db", in: directory)
        #expect(try select(directory, "c.db", "SELECT title FROM reminders;") == "oat milk\n")
        #expect(try concordOK("status", "c.db", in: directory).text.contains("  reminders  columns priority  rows 1\n"))
        // The third upgrades later: the value shows at Concord's next look, with no peer sending anything again.
        try sqlite3Shell(directory.path("c.db"), migration)
        try concordOK("status", "c.db", in: directory)
        #expect(try select(directory, "c.db", "SELECT title, priority FROM reminders;") == "oat milk|4\n")
        try sqlite3Shell(directory.path("b.db"), migration)
        try concordOK("sync", "a.db", "b.db", "c.db", in: directory)
        let rows = "SELECT id, list, title, priority FROM reminders;"
        for name in ["a.db", "b.db", "c.db"] {
            #expect(try select(directory, name, rows) == "r1|l1|oat milk|4\n", "\(name)")
            try concordOK("check", name, in: directory)
        }
    }

    @Test func aNewTableIsKeptAndRelayedByAnOlderDeviceAndCascadesOnceEveryoneHasIt() throws {
        let directory = try threeDevices()
        let notes = """
            CREATE TABLE notes (id TEXT PRIMARY KEY, reminder TEXT REFERENCES reminders(id) ON DELETE CASCADE,
                                body TEXT);
            """
        try sqlite3Shell(directory.path("a.db"), notes)
        try concordOK("enable", "a.db", "--table", "notes", in: directory)
        try sqlite3Shell(
            directory.path("a.db"), "INSERT INTO notes VALUES ('n1', 'r1', 'the oat one'), ('n2', 'r1', 'x');")
        try concordOK("sync", "a.db", "b.db", in: directory)
        try concordOK("sync", "b.db", "c.db", in: directory)
        #expect(try select(directory, "b.db", "SELECT count(*) FROM sqlite_schema WHERE name = 'notes';") == "0\n")
        #expect(try concordOK("status", "b.db", in: directory).text.contains("  notes  table  rows 2\n"))
        // The older device adds and enables the table: the rows it kept appear.
        try sqlite3Shell(directory.path("b.db"), notes)
        try concordOK("enable", "b.db", "--table", "notes", in: directory)
        #expect(
            try select(directory, "b.db", "SELECT id, reminder, body FROM notes ORDER BY id;")
                == "n1|r1|the oat one\nn2|r1|x\n")
        try sqlite3Shell(directory.path("c.db"), notes)
        try concordOK("enable", "c.db", "--table", "notes", in: directory)
        #expect(try select(directory, "c.db", "SELECT count(*) FROM notes;") == "2\n")
        // A later delete of the old grandparent, on one device, cascades on every device.
        try sqlite3Shell(directory.path("c.db"), "PRAGMA foreign_keys = ON; DELETE FROM lists WHERE id = 'l1';")
        try concordOK("sync", "c.db", "b.db", in: directory)
        try concordOK("sync", "b.db", "a.db", in: directory)
        for name in ["a.db", "b.db", "c.db"] {
            #expect(
                try select(directory, name, "SELECT (SELECT count(*) FROM reminders) + (SELECT count(*) FROM notes);")
                    == "0\n", "\(name)")
            try concordOK("check", name, in: directory)
        }
    }

    @Test func writesMadeBetweenARebuildAndConcordsNextLookAllArrive() throws {
        let directory = try replicas()
        try sqlite3Shell(
            directory.path("a.db"),
            """
            BEGIN;
            CREATE TABLE r_new (id TEXT PRIMARY KEY, title TEXT NOT NULL DEFAULT '', extra TEXT);
            INSERT INTO r_new SELECT id, coalesce(title, ''), extra FROM r;
            DROP TABLE r;
            ALTER TABLE r_new RENAME TO r;
            COMMIT;
            UPDATE r SET title = 'edited after the rebuild' WHERE id = 'k1';
            DELETE FROM r WHERE id = 'k2';
            INSERT INTO r VALUES ('k3', 'inserted after the rebuild', 'x3');
            """)
        try concordOK("sync", "a.db", "b.db", in: directory)
        let rows = "SELECT id, title, extra FROM r ORDER BY id;"
        #expect(
            try select(directory, "b.db", rows) == "k1|edited after the rebuild|x1\nk3|inserted after the rebuild|x3\n")
        #expect(try select(directory, "b.db", rows) == select(directory, "a.db", rows))
        try concordOK("check", "a.db", in: directory)
        try concordOK("check", "b.db", in: directory)
    }

    @Test func aDroppedAndARenamedColumnAreRefusedAndRevertingResumesWithEveryWrite() throws {
        let directory = try replicas()
        // The app renames `title` and drops `extra` (by a rebuild: SQLite will not drop a column a trigger reads),
        // keeping the dropped values, then writes both tables.
        try sqlite3Shell(
            directory.path("a.db"),
            """
            ALTER TABLE r RENAME COLUMN title TO name;
            UPDATE r SET name = 'written while renamed' WHERE id = 'k1';
            CREATE TABLE saved AS SELECT id, extra FROM r;
            CREATE TABLE r_new (id TEXT PRIMARY KEY, name TEXT);
            INSERT INTO r_new SELECT id, name FROM r;
            DROP TABLE r;
            ALTER TABLE r_new RENAME TO r;
            UPDATE r SET name = 'written while dropped' WHERE id = 'k2';
            INSERT INTO l VALUES ('l1', 'other tables keep syncing');
            """)
        let before = try fileBytes(directory.path("b.db"))
        let run = try concord(["sync", "a.db", "b.db"], in: directory)
        #expect(run.status == 1)
        #expect(
            run.errors.contains(
                "Error: a.db: table 'r' changed since sync was enabled: column(s) title, extra dropped or renamed"))
        #expect(run.errors.contains("add a new column and copy the values instead"))
        #expect(run.errors.contains("concord disable DB --table r"))
        #expect(try fileBytes(directory.path("b.db")) != before, "the rest was done")
        #expect(try select(directory, "b.db", "SELECT name FROM l;") == "other tables keep syncing\n")
        #expect(try select(directory, "b.db", "SELECT title FROM r ORDER BY id;") == "one\ntwo\n")
        let status = try concord(["status", "a.db"], in: directory)
        #expect(status.status == 1 && status.text.contains("NOT SYNCING"))
        // Revert: put the columns back as they were, with the kept values.
        try sqlite3Shell(
            directory.path("a.db"),
            """
            CREATE TABLE r_old (id TEXT PRIMARY KEY, title TEXT, extra TEXT);
            INSERT INTO r_old SELECT r.id, r.name, s.extra FROM r LEFT JOIN saved AS s USING (id);
            DROP TABLE r; DROP TABLE saved;
            ALTER TABLE r_old RENAME TO r;
            """)
        try concordOK("sync", "a.db", "b.db", in: directory)
        let rows = "SELECT id, title, extra FROM r ORDER BY id;"
        #expect(try select(directory, "b.db", rows) == "k1|written while renamed|x1\nk2|written while dropped|x2\n")
        try concordOK("check", "a.db", in: directory)
        try concordOK("check", "b.db", in: directory)
    }

    @Test func bothDevicesAddTheSameColumnWriteItAndConverge() throws {
        let directory = try replicas()
        for name in ["a.db", "b.db"] {
            try sqlite3Shell(directory.path(name), "ALTER TABLE r ADD COLUMN due TEXT;")
        }
        try sqlite3Shell(directory.path("a.db"), "UPDATE r SET due = 'monday' WHERE id = 'k1';")
        try sqlite3Shell(directory.path("b.db"), "UPDATE r SET due = 'friday' WHERE id = 'k2';")
        try concordOK("sync", "a.db", "b.db", in: directory)
        let rows = "SELECT id, title, extra, due FROM r ORDER BY id;"
        #expect(try select(directory, "a.db", rows) == "k1|one|x1|monday\nk2|two|x2|friday\n")
        #expect(try select(directory, "b.db", rows) == select(directory, "a.db", rows))
        try concordOK("check", "a.db", in: directory)
    }

    @Test func disableRemovesTheTablesTriggersAndKeepsItsRows() throws {
        let directory = try replicas()
        let run = try concordOK("disable", "a.db", "--table", "r", in: directory)
        #expect(run.text == "a.db: stopped syncing r; still syncing l\n")
        #expect(try select(directory, "a.db", "SELECT count(*) FROM r;") == "2\n")
        #expect(
            try select(directory, "a.db", "SELECT count(*) FROM sqlite_schema WHERE name LIKE '_concord_1_%';") == "0\n"
        )
        let again = try concord(["disable", "a.db", "--table", "r"], in: directory)
        #expect(again.status == 1 && again.errors.contains("table 'r' does not sync in this replica"))
        let usage = try concord(["disable", "a.db"], in: directory)
        #expect(usage.status == 64 && usage.errors.contains("Error: Missing expected argument '--table <name>'"))
        let help = try concordOK("disable", "--help", in: directory)
        #expect(help.text.contains("Stop syncing tables of a database."))
    }
}
