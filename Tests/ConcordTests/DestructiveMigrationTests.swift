import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// Destructive schema changes stop the changed table only; undoing them resumes it with every write.
@Suite("Destructive migrations", .tags(.replica), .timeLimit(.hangGuard))
struct DestructiveMigrationTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)
    static let schema = """
        CREATE TABLE reminders (id TEXT PRIMARY KEY NOT NULL, title TEXT, done INTEGER NOT NULL DEFAULT 0, notes TEXT);
        CREATE TABLE lists (id TEXT PRIMARY KEY NOT NULL, name TEXT);
        """

    private func pair() throws -> (Replica, Replica) {
        let a = try Replica.inMemory(configuration: configuration(node: 1, clock: clock))
        let b = try Replica.inMemory(configuration: configuration(node: 2, clock: clock))
        for replica in [a, b] {
            try replica.database.execute(Self.schema)
            try replica.enableSync(on: "reminders")
            try replica.enableSync(on: "lists")
        }
        try a.database.execute("INSERT INTO reminders (id, title, notes) VALUES ('r1', 'milk', 'n')")
        try Replica.sync([a, b])
        return (a, b)
    }

    /// The one refusal of `replica`, for `reminders`, as its change text.
    private func refusal(_ replica: Replica) throws -> (change: String, fix: String) {
        let refusals = replica.schemaRefusals
        guard refusals.count == 1, case .schemaChanged(let table, let change, let fix) = refusals[0],
            table == "reminders"
        else {
            Issue.record("expected one refusal of reminders, got \(refusals)")
            return ("", "")
        }
        return (change, fix)
    }

    /// Writes to both tables while `reminders` is refused; the other table keeps syncing.
    private func writeWhileRefused(_ a: Replica, _ b: Replica, column: String = "title") throws {
        try a.database.execute("UPDATE reminders SET \(column) = 'kept' WHERE id = 'r1'")
        try a.database.execute("INSERT INTO lists VALUES ('l1', 'groceries')")
        try Replica.sync([a, b])
        #expect(try b.database.scalar("SELECT name FROM lists") == .text("groceries"), "other tables keep syncing")
        #expect(try b.database.scalar("SELECT title FROM reminders") == .text("milk"))
    }

    /// Rebuilds `reminders` with `key` as its key column's declaration (and `done` declared `done`).
    private func rebuild(_ replica: Replica, key: String, done: String = "INTEGER NOT NULL DEFAULT 0") throws {
        try replica.database.execute(
            rebuildSQL("reminders", columns: "id \(key), title TEXT, done \(done), notes TEXT"))
    }

    /// A rebuild that gives the key a type or a collation enabling refuses is refused too. Taken up, a NOCASE
    /// key let another device's row `a` overwrite this one's row `A`, and an INT key made `'007'` the row 7,
    /// which a delete of `'007'` then took everywhere; `sync` exit 0, `check` ok.
    @Test(arguments: [
        ("TEXT PRIMARY KEY NOT NULL COLLATE NOCASE", "collation"), ("INT PRIMARY KEY NOT NULL", "INTEGER"),
        ("NUMERIC PRIMARY KEY NOT NULL", "not TEXT or BLOB"),
    ])
    func aRebuildThatMakesTheKeyUnmergeableIsRefused(key: String, reason: String) throws {
        let (a, b) = try pair()
        try b.database.execute("INSERT INTO reminders (id, title) VALUES ('007', 'seven'), ('R2', 'upper')")
        try Replica.sync([a, b])
        try rebuild(a, key: key)
        try b.database.execute("INSERT INTO reminders (id, title) VALUES ('r2', 'lower')")
        try b.database.execute("DELETE FROM reminders WHERE id = '007'")
        try writeWhileRefused(a, b)
        let change = try refusal(a).change
        #expect(change.contains(reason), "\(change)")
        #expect(try a.database.query("SELECT title FROM reminders ORDER BY title") == [["kept"], ["seven"], ["upper"]])
        // Declared as before, it syncs every write made meanwhile. (The app's own copy into an INT or NUMERIC
        // key made '007' the number 7, which comes back as the key '7': a new row, as the app wrote it.)
        try rebuild(a, key: "TEXT PRIMARY KEY NOT NULL")
        try Replica.sync([a, b])
        #expect(a.schemaRefusals.isEmpty)
        let renumbered: [[SQLiteValue]] = reason == "collation" ? [] : [["7", "seven"]]
        for replica in [a, b] {
            let rows = try replica.database.query("SELECT id, title FROM reminders ORDER BY id")
            #expect(rows == renumbered + [["R2", "upper"], ["r1", "kept"], ["r2", "lower"]], "\(rows)")
            #expect(try replica.check().isConsistent)
        }
    }

    /// A counter column rebuilt REAL or TEXT would store its integers converted, and the counter's guard then
    /// refused Concord's own writes: every table of the file stopped with a bare SQLite error. It is refused,
    /// for that table alone.
    @Test(arguments: ["REAL NOT NULL DEFAULT 0", "TEXT NOT NULL DEFAULT 0"])
    func aCounterColumnRebuiltToHoldOtherThanIntegersIsRefused(done: String) throws {
        let a = try Replica.inMemory(configuration: configuration(node: 1, clock: clock))
        let b = try Replica.inMemory(configuration: configuration(node: 2, clock: clock))
        for replica in [a, b] {
            try replica.database.execute(Self.schema)
            try replica.enableSync(on: "reminders", merges: ["done": .counter])
            try replica.enableSync(on: "lists")
        }
        try a.database.execute("INSERT INTO reminders (id, title, done, notes) VALUES ('r1', 'milk', 5, 'n')")
        try Replica.sync([a, b])
        try rebuild(a, key: "TEXT PRIMARY KEY NOT NULL", done: done)
        try writeWhileRefused(a, b)
        #expect(try refusal(a).change.contains("counter column done is now declared"))
        try rebuild(a, key: "TEXT PRIMARY KEY NOT NULL")
        try a.database.execute("UPDATE reminders SET done = done + 1")
        try Replica.sync([a, b])
        #expect(a.schemaRefusals.isEmpty)
        for replica in [a, b] {
            #expect(try replica.database.query("SELECT title, done FROM reminders") == [["kept", 6]])
            #expect(try replica.check().isConsistent)
        }
    }

    @Test func aRenamedColumnIsRefusedAndRenamingItBackResumes() throws {
        let (a, b) = try pair()
        try a.database.execute("ALTER TABLE reminders RENAME COLUMN title TO name")
        try writeWhileRefused(a, b, column: "name")
        let (change, fix) = try refusal(a)
        #expect(change == "column(s) title dropped or renamed")
        #expect(fix.contains("add a new column and copy the values instead"))
        #expect(fix.contains("concord disable DB --table reminders"))
        #expect("\(a.schemaRefusals[0])".hasPrefix("table 'reminders' changed since sync was enabled"))
        #expect(try a.database.scalar("SELECT count(*) FROM _concord_log") == .integer(1), "the write waits")
        try a.database.execute("ALTER TABLE reminders RENAME COLUMN name TO title")
        try Replica.sync([a, b])
        #expect(a.schemaRefusals.isEmpty)
        #expect(try b.database.scalar("SELECT title FROM reminders") == .text("kept"))
        #expect(try a.canonicalDump() == b.canonicalDump())
    }

    @Test func aColumnDroppedByARebuildIsRefusedAndRestoringItResumes() throws {
        let (a, b) = try pair()
        try a.database.execute(
            """
            CREATE TABLE saved AS SELECT id, notes FROM reminders;
            CREATE TABLE r2 (id TEXT PRIMARY KEY NOT NULL, title TEXT, done INTEGER NOT NULL DEFAULT 0);
            INSERT INTO r2 SELECT id, title, done FROM reminders;
            DROP TABLE reminders;
            ALTER TABLE r2 RENAME TO reminders;
            """)
        try writeWhileRefused(a, b)
        #expect(try refusal(a).change == "column(s) notes dropped or renamed")
        try a.database.execute(
            """
            CREATE TABLE r2 (id TEXT PRIMARY KEY NOT NULL, title TEXT, done INTEGER NOT NULL DEFAULT 0, notes TEXT);
            INSERT INTO r2 SELECT r.id, r.title, r.done, s.notes FROM reminders AS r LEFT JOIN saved AS s USING (id);
            DROP TABLE reminders;
            ALTER TABLE r2 RENAME TO reminders;
            """)
        try Replica.sync([a, b])
        #expect(a.schemaRefusals.isEmpty)
        #expect(try b.database.query("SELECT title, notes FROM reminders") == [["kept", "n"]])
        #expect(try a.canonicalDump() == b.canonicalDump())
        #expect(try a.check().isConsistent && b.check().isConsistent)
    }

    @Test func aDroppedTableIsRefusedAndItsPeersRowsAreHeldBack() throws {
        let (a, b) = try pair()
        try a.database.execute("ALTER TABLE reminders RENAME TO old_reminders")
        try b.database.execute("UPDATE reminders SET done = 1")
        try b.database.execute("INSERT INTO lists VALUES ('l1', 'groceries')")
        let read = try a.peerVersion(b.nodeID)
        let report = try a.apply(b.changes(since: a.peerVersion(b.nodeID)))
        #expect(report.heldBack == 1 && report.applied == 1)
        #expect(try a.peerVersion(b.nodeID) == read, "held-back rows come again next time")
        #expect(try refusal(a).change == "the table no longer exists (dropped or renamed)")
        try a.database.execute("ALTER TABLE old_reminders RENAME TO reminders")
        try Replica.sync([a, b])
        #expect(try a.database.scalar("SELECT done FROM reminders") == .integer(1))
        #expect(try a.canonicalDump() == b.canonicalDump())
    }

    /// The first schema check after opening may trust what another replica of the process found in the
    /// very same schema; a file changed while closed is a different schema, and is inspected.
    @Test func aChangeMadeWhileClosedIsRefusedThoughTheProcessFoundTheOldSchemaClean() throws {
        let directory = TemporaryDirectory()
        func open(_ name: String) throws -> Replica {
            try Replica(path: directory.path(name), configuration: configuration(node: 1, clock: clock))
        }
        for name in ["clean.sqlite", "changed.sqlite"] {
            let replica = try open(name)
            try replica.database.execute(Self.schema)
            try replica.enableSync(on: "reminders")
            try replica.foldLocalWrites()
            #expect(replica.schemaRefusals.isEmpty)
        }
        // Both files hold the same schema; the process has found it clean, and does again on reopening.
        #expect(try open("clean.sqlite").status().tables.count == 1)
        do {
            let plain = try Database(path: directory.path("changed.sqlite"))
            try plain.execute("ALTER TABLE reminders RENAME COLUMN title TO name")
        }
        let changed = try open("changed.sqlite")
        try changed.foldLocalWrites()
        #expect(try refusal(changed).change == "column(s) title dropped or renamed")
        do {
            let plain = try Database(path: directory.path("changed.sqlite"))
            try plain.execute("ALTER TABLE reminders RENAME COLUMN name TO title")
        }
        let restored = try open("changed.sqlite")
        try restored.foldLocalWrites()
        #expect(restored.schemaRefusals.isEmpty)
        #expect(try restored.check().isConsistent)
    }

    @Test func anotherKeyIsRefused() throws {
        let (a, _) = try pair()
        try a.database.execute(
            """
            CREATE TABLE r2 (id TEXT NOT NULL, title TEXT PRIMARY KEY, done INTEGER NOT NULL DEFAULT 0, notes TEXT);
            INSERT INTO r2 SELECT * FROM reminders; DROP TABLE reminders; ALTER TABLE r2 RENAME TO reminders;
            """)
        try a.foldLocalWrites()
        #expect(try refusal(a).change == "its primary key is now title, not id")
    }

    @Test func reorderedColumnsAreRefused() throws {
        let (a, _) = try pair()
        try a.database.execute(
            """
            CREATE TABLE r2 (id TEXT PRIMARY KEY NOT NULL, done INTEGER NOT NULL DEFAULT 0, title TEXT, notes TEXT);
            INSERT INTO r2 (id, title, done, notes) SELECT id, title, done, notes FROM reminders;
            DROP TABLE reminders; ALTER TABLE r2 RENAME TO reminders;
            """)
        _ = try a.changes(since: 0)
        #expect(try refusal(a).change == "its columns were reordered, or a column was inserted before existing ones")
    }

    /// Refused as another policy is: the message once said Concord stopped syncing the table, which it
    /// did not (found by a probe of the library API).
    @Test func aChangedMergeIsRefusedAndChangesNothing() throws {
        let (a, b) = try pair()
        let before = try a.canonicalDump()
        #expect {
            try a.enableSync(on: "reminders", merges: ["done": .max])
        } throws: { error in
            guard case ReplicaError.alreadyEnabled(_, let existing, let requested) = error else { return false }
            return existing == "column policy" && requested == "column policy, done=max"
                && !"\(error)".contains("stopped syncing")
        }
        #expect(try a.canonicalDump() == before)
        #expect(a.schemaRefusals.isEmpty)
        try a.database.execute("UPDATE reminders SET title = 'still syncing' WHERE id = 'r1'")
        try Replica.sync([a, b])
        #expect(try b.database.scalar("SELECT title FROM reminders WHERE id = 'r1'") == "still syncing")
    }

    /// The refusal says the table goes on syncing as declared and how to merge a column another way; a user
    /// told only that the declarations differ was left to guess whether sync had stopped.
    @Test func aCounterEnabledWithAnotherMergeSaysItGoesOnSyncingAndHowToMergeOtherwise() throws {
        let a = try Replica.inMemory(configuration: configuration(node: 1, clock: clock))
        try a.database.execute("CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL DEFAULT 0)")
        try a.enableSync(on: "t", merges: ["n": .counter])
        let merge = #expect(throws: ReplicaError.self) { try a.enableSync(on: "t", merges: ["n": .max]) }
        #expect(
            merge?.description
                == "table 't' already syncs as column policy, n=counter, not column policy, n=max, and goes on "
                + "syncing as column policy, n=counter; nothing was changed. Every replica of a table must use the "
                + "same declaration: keep each column's merge, and to merge a column's values another way, add a "
                + "new column declared with that merge and copy the values into it")
        let policy = #expect(throws: ReplicaError.self) { try a.enableSync(on: "t", policy: .row) }
        #expect(
            policy?.description.hasSuffix(
                "Every replica of a table must use the same declaration: "
                    + "enable it as column policy, n=counter") == true, "\(String(describing: policy))")
        #expect(a.schemaRefusals.isEmpty)
    }

    @Test func exportLeavesTheRefusedTableOutAndStopsShortOfItsChanges() throws {
        let (a, b) = try pair()
        try a.database.execute("UPDATE reminders SET title = 'unsent' WHERE id = 'r1'")
        try a.foldLocalWrites()
        try a.database.execute("ALTER TABLE reminders RENAME COLUMN notes TO comment")
        try a.database.execute("INSERT INTO lists VALUES ('l1', 'groceries')")
        let since = try b.peerVersion(a.nodeID)
        let changes = try a.changes(since: since)
        #expect(changes.tables.map(\.name) == ["lists"])
        #expect(changes.rows.map(\.table) == ["lists"])
        try b.apply(changes)
        #expect(try b.peerVersion(a.nodeID) < (try a.version), "the refused table's rows will be asked for again")
        try a.database.execute("ALTER TABLE reminders RENAME COLUMN comment TO notes")
        try Replica.sync([a, b])
        #expect(try b.database.scalar("SELECT title FROM reminders") == .text("unsent"))
        #expect(try a.canonicalDump() == b.canonicalDump())
    }
}
