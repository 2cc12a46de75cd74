import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// Additive schema changes of synced tables are picked up without a call, in the operation that notices them.
@Suite("Additive migrations", .tags(.replica), .timeLimit(.hangGuard))
struct AdditiveMigrationTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    private func pair(_ schema: String = remindersSchema, tables: [String] = ["reminders"]) throws -> (Replica, Replica)
    {
        let a = try Replica.inMemory(configuration: configuration(node: 1, clock: clock))
        let b = try Replica.inMemory(configuration: configuration(node: 2, clock: clock))
        for replica in [a, b] {
            try replica.database.execute(schema)
            for table in tables { try replica.enableSync(on: table) }
        }
        return (a, b)
    }

    private func declared(_ replica: Replica, _ table: String = "reminders") throws -> [String] {
        ColumnList.decode(
            try replica.database.scalar("SELECT columns FROM _concord_tables WHERE name = ?", [.text(table)])?
                .textValue ?? "")
    }

    @Test func aNullableColumnAddedOnBothDevicesSyncsItsWrites() throws {
        let (a, b) = try pair()
        try a.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'milk')")
        try Replica.sync([a, b])
        for replica in [a, b] { try replica.database.execute("ALTER TABLE reminders ADD COLUMN priority INTEGER") }
        try a.database.execute("UPDATE reminders SET priority = 3 WHERE id = 'r1'")
        try Replica.sync([a, b])
        #expect(try declared(a) == ["title", "done", "notes", "priority"])
        #expect(try b.database.scalar("SELECT priority FROM reminders WHERE id = 'r1'") == .integer(3))
        #expect(try a.canonicalDump() == b.canonicalDump())
        #expect(try a.check().isConsistent && b.check().isConsistent)
        #expect(a.schemaRefusals.isEmpty && b.schemaRefusals.isEmpty)
    }

    @Test func existingRowsAreNotRestampedAndShowTheDefault() throws {
        let (a, b) = try pair()
        try a.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'milk')")
        try Replica.sync([a, b])
        let version = try a.version
        try a.database.execute("ALTER TABLE reminders ADD COLUMN rank INTEGER NOT NULL DEFAULT 7")
        #expect(try a.foldLocalWrites() == 0)
        #expect(try a.version == version, "no row was re-stamped")
        let stored = try #require(try a.store(a.tables[0]).load(.text("r1")))
        #expect(stored.registers.columns[3] == nil, "the new column has no register until someone writes it")
        #expect(try a.database.scalar("SELECT rank FROM reminders") == .integer(7))
        // B, not migrated yet, edits the row: A shows the default, not NULL, and parks nothing.
        // (The other way, A's changeset names `rank`, which B refuses until unknown data is kept.)
        try b.database.execute("UPDATE reminders SET title = 'oat milk' WHERE id = 'r1'")
        try a.apply(b.changes(since: a.peerVersion(b.nodeID)))
        #expect(try a.database.query("SELECT title, rank FROM reminders") == [["oat milk", 7]])
        #expect(try a.status().parked.isEmpty)
        #expect(try a.check().isConsistent)
    }

    /// A `max` (or `min`) column added later starts each row at its DEFAULT, as a column declared from the
    /// start does: a lower write leaves it (a higher one, for `min`), on every device. An lww column's rows
    /// are not re-stamped (above).
    @Test(arguments: [ColumnMerge.max, .min])
    func aJoinedColumnAddedLaterStartsAtItsDefault(merge: ColumnMerge) throws {
        let (a, b) = try pair()
        try a.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'milk')")
        try Replica.sync([a, b])
        for replica in [a, b] {
            try replica.database.execute("ALTER TABLE reminders ADD COLUMN best INTEGER NOT NULL DEFAULT 5")
            try replica.enableSync(on: "reminders", merges: ["best": merge])
        }
        try a.database.execute("UPDATE reminders SET best = \(merge == .max ? 3 : 8) WHERE id = 'r1'")
        try Replica.sync([a, b])
        for replica in [a, b] {
            #expect(try replica.database.scalar("SELECT best FROM reminders") == .integer(5))
            #expect(try replica.check().isConsistent)
        }
        try b.database.execute("UPDATE reminders SET best = \(merge == .max ? 9 : 1) WHERE id = 'r1'")
        try Replica.sync([a, b])
        #expect(try a.database.scalar("SELECT best FROM reminders") == .integer(merge == .max ? 9 : 1))
    }

    /// A device that adds a `max` (or `min`) column after peers wrote it keeps their value: its rows start
    /// at the DEFAULT (above), joined with what it relayed, not written over it. The simulator's
    /// rolling-upgrade family found it: the device showed the DEFAULT, its peers the value, for good.
    @Test(arguments: [ColumnMerge.max, .min])
    func aJoinedColumnAddedLaterKeepsWhatPeersWroteThere(merge: ColumnMerge) throws {
        let (old, new) = try pair()
        let added = "ALTER TABLE reminders ADD COLUMN best INTEGER NOT NULL DEFAULT 5"
        try new.database.execute(added)
        try new.enableSync(on: "reminders", merges: ["best": merge])
        let peers = merge == .max ? 6 : 4
        try new.database.execute("INSERT INTO reminders (id, title, best) VALUES ('r1', 'milk', \(peers))")
        try Replica.sync([old, new])
        try old.database.execute(added)
        try old.enableSync(on: "reminders", merges: ["best": merge])
        try Replica.sync([old, new])
        for replica in [old, new] {
            #expect(try replica.database.scalar("SELECT best FROM reminders") == .integer(Int64(peers)))
            #expect(try replica.check().isConsistent)
        }
    }

    @Test func aValueWrittenBeforeConcordLookedIsCaptured() throws {
        let (a, b) = try pair()
        try a.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'milk'), ('r2', 'tea')")
        try Replica.sync([a, b])
        for replica in [a, b] { try replica.database.execute("ALTER TABLE reminders ADD COLUMN tag TEXT") }
        // The old triggers do not see `tag`: this write lands before Concord adopts the column.
        try a.database.execute("UPDATE reminders SET tag = 'home' WHERE id = 'r2'")
        try Replica.sync([a, b])
        #expect(try b.database.query("SELECT id, tag FROM reminders ORDER BY id") == [["r1", .null], ["r2", "home"]])
        #expect(try a.canonicalDump() == b.canonicalDump())
    }

    @Test func aNewTableWithAForeignKeyToAnOldOneSyncs() throws {
        let (a, b) = try pair()
        try a.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'milk')")
        let steps =
            "CREATE TABLE steps (id TEXT PRIMARY KEY NOT NULL, reminder TEXT REFERENCES reminders(id) ON DELETE CASCADE, what TEXT);"
        for replica in [a, b] {
            try replica.database.execute(steps)
            try replica.enableSync(on: "steps")
        }
        try a.database.execute("INSERT INTO steps VALUES ('s1', 'r1', 'go to the shop')")
        try Replica.sync([a, b])
        #expect(try b.database.scalar("SELECT what FROM steps") == .text("go to the shop"))
        #expect(try a.canonicalDump() == b.canonicalDump())
    }

    @Test func enableAgainIsIdempotentAndDeclaresAMergeOnANewColumn() throws {
        let (a, b) = try pair()
        try a.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'milk')")
        try Replica.sync([a, b])
        let bytes = try Data(a.canonicalDump().utf8)
        try a.enableSync(on: "reminders")
        #expect(try Data(a.canonicalDump().utf8) == bytes, "enabling again changes nothing")
        for replica in [a, b] {
            try replica.database.execute("ALTER TABLE reminders ADD COLUMN views INTEGER NOT NULL DEFAULT 0")
            try replica.enableSync(on: "reminders", merges: ["views": .counter])
        }
        #expect(a.tables[0].merges == [.lww, .lww, .lww, .counter])
        try a.database.execute("UPDATE reminders SET views = views + 2")
        try b.database.execute("UPDATE reminders SET views = views + 3")
        try Replica.sync([a, b])
        #expect(try a.database.scalar("SELECT views FROM reminders") == .integer(5))
        #expect(try b.database.scalar("SELECT views FROM reminders") == .integer(5))
        #expect(try a.check().isConsistent && b.check().isConsistent)
    }

    /// A counter added with DEFAULT 5 would show 5 that no device added: one increment on each of two devices
    /// converged to 2, not 7. Declaring it is refused with nothing changed; after the fix the error gives
    /// (add it again with DEFAULT 0, then add the starting amount on one device) the count is exact.
    @Test(arguments: ["5", "'5'", "-1.5", "X'05'"])
    func aCounterAddedWithADefaultOtherThanZeroIsRefused(defaultSQL: String) throws {
        let (a, b) = try pair()
        try a.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'milk')")
        try Replica.sync([a, b])
        try a.database.execute("ALTER TABLE reminders ADD COLUMN views INTEGER NOT NULL DEFAULT \(defaultSQL)")
        // Read raw: Concord's own reads would notice the column first and adopt it as lww.
        let metadata =
            "SELECT type, name, sql FROM sqlite_schema UNION ALL SELECT 'declared', name, columns || merges FROM _concord_tables ORDER BY 1, 2"
        let before = try a.database.query(metadata)
        let error = #expect(throws: ReplicaError.self) {
            try a.enableSync(on: "reminders", merges: ["views": .counter])
        }
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains("cannot sync table 'reminders': its new column views is declared a counter"))
        #expect(message.contains("To fix: drop the column and add it again with DEFAULT 0"))
        #expect(try a.database.query(metadata) == before, "a refused declaration changes nothing")
        // The fix: the column again with DEFAULT 0, and the starting amount added by one device.
        try a.database.execute("ALTER TABLE reminders DROP COLUMN views")
        for replica in [a, b] {
            try replica.database.execute("ALTER TABLE reminders ADD COLUMN views INTEGER NOT NULL DEFAULT 0")
            try replica.enableSync(on: "reminders", merges: ["views": .counter])
        }
        try a.database.execute("UPDATE reminders SET views = views + 5")
        try Replica.sync([a, b])
        try a.database.execute("UPDATE reminders SET views = views + 1")
        try b.database.execute("UPDATE reminders SET views = views + 1")
        try Replica.sync([a, b])
        for replica in [a, b] { #expect(try replica.database.scalar("SELECT views FROM reminders") == .integer(7)) }
        #expect(try a.check().isConsistent && b.check().isConsistent)
    }

    @Test(arguments: ["0", "NULL", "0.0", "-0"])
    func aCounterAddedWithDefaultZeroOrNullIsAccepted(defaultSQL: String) throws {
        let (a, _) = try pair()
        try a.database.execute("ALTER TABLE reminders ADD COLUMN views INTEGER DEFAULT \(defaultSQL)")
        try a.enableSync(on: "reminders", merges: ["views": .counter])
        #expect(a.tables[0].merges == [.lww, .lww, .lww, .counter])
    }

    @Test func aRebuiltTableIsReconciledAndEveryWriteMadeMeanwhileArrives() throws {
        let (a, b) = try pair()
        try a.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'one'), ('r2', 'two')")
        try Replica.sync([a, b])
        try b.database.execute("ALTER TABLE reminders ADD COLUMN due TEXT")
        try a.database.execute(
            """
            CREATE TABLE reminders_new (id TEXT PRIMARY KEY NOT NULL, title TEXT, done INTEGER NOT NULL DEFAULT 0,
                notes TEXT, due TEXT);
            INSERT INTO reminders_new (id, title, done, notes) SELECT id, title, done, notes FROM reminders;
            DROP TABLE reminders;
            ALTER TABLE reminders_new RENAME TO reminders;
            UPDATE reminders SET title = 'edited meanwhile', due = 'monday' WHERE id = 'r1';
            DELETE FROM reminders WHERE id = 'r2';
            INSERT INTO reminders (id, title) VALUES ('r3', 'added meanwhile');
            """)
        try Replica.sync([a, b])
        #expect(a.schemaRefusals.isEmpty)
        #expect(
            try b.database.query("SELECT id, title, due FROM reminders ORDER BY id")
                == [["r1", "edited meanwhile", "monday"], ["r3", "added meanwhile", .null]])
        #expect(try a.canonicalDump() == b.canonicalDump())
        #expect(try a.check().isConsistent && b.check().isConsistent)
        try a.database.execute("UPDATE reminders SET done = 1 WHERE id = 'r3'")
        try Replica.sync([a, b])
        #expect(try b.database.scalar("SELECT done FROM reminders WHERE id = 'r3'") == .integer(1), "capture is back")
    }
    @Test(arguments: [false, true])
    func aColumnReferencingATableThatDoesNotSyncWaitsForItAndHidesNothingItShouldNot(enableParent: Bool) throws {
        let schema = """
            CREATE TABLE lists (id TEXT PRIMARY KEY NOT NULL, name TEXT);
            CREATE TABLE reminders (id TEXT PRIMARY KEY NOT NULL, list TEXT REFERENCES lists(id) ON DELETE CASCADE);
            """
        let (a, b) = try pair(schema, tables: ["lists", "reminders"])
        try a.database.execute("INSERT INTO lists VALUES ('l1', 'home')")
        try Replica.sync([a, b])
        // A deletes the list; B, not knowing, adds a reminder to it: on A the reminder is hidden with its list.
        try a.database.execute("DELETE FROM lists WHERE id = 'l1'")
        try b.database.execute("INSERT INTO reminders VALUES ('r1', 'l1')")
        try Replica.sync([a, b])
        // A's migration adds a column referencing a table that does not sync (yet).
        try a.database.execute(
            "CREATE TABLE people (id TEXT PRIMARY KEY NOT NULL); "
                + "ALTER TABLE reminders ADD COLUMN assignee TEXT REFERENCES people(id) ON DELETE SET NULL")
        if enableParent { try a.enableSync(on: "people") }
        try a.foldLocalWrites()
        if enableParent {
            #expect(a.schemaRefusals.isEmpty, "enabling the parent lets the new column in")
        } else {
            let refusal = try #require(a.schemaRefusals.first { "\($0)".hasPrefix("table 'reminders'") })
            #expect("\(refusal)".contains("references people, which does not sync"))
            #expect(a.schemaRefusals.contains(.tiedToRefusedTable(table: "lists", refused: "reminders")))
        }
        // Either way the reminder's list still hides it.
        #expect(try a.database.scalar("SELECT count(*) FROM reminders") == 0)
        #expect(try a.check().isConsistent)
    }
}
