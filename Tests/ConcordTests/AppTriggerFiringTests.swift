import ConcordTestSupport
import ConcordTesting
import Foundation
import Testing

@testable import Concord

/// Concord's writes of a merged or folded row fire the app's triggers only as the same change made by
/// the app would: an insert's triggers for a row the table lacks, UPDATE OF triggers for the columns
/// that change, and none at all for a row that already shows its values.
///
/// Before, every row Concord showed was written with one `INSERT … ON CONFLICT DO UPDATE` of every
/// column, which fires BEFORE INSERT triggers even when the row is there, and UPDATE OF triggers for
/// every column. A uniqueness or quota trigger then refused a row the app had written itself, at the
/// next fold of a parent table (the row was parked: gone from the table with its children, `check` ok);
/// a merged title edit was refused by a quota on inserts; unlocking a note on one device hid it on the
/// other, whose "a locked note keeps its title" trigger saw its title set.
@Suite(.tags(.replica))
struct AppTriggerFiringTests {
    private let clock = ManualClock(unixMilliseconds: epoch2026)

    /// Devices with `schema`, syncing `tables`.
    private func devices(_ count: Int, _ schema: String, tables: [String]) throws -> [Replica] {
        try inMemoryReplicas(count, clock: clock) { replica, _ in
            try replica.database.execute(schema)
            for table in tables { try replica.enableSync(on: table) }
        }
    }

    private func rows(_ device: Replica, _ sql: String) throws -> [[SQLiteValue]] {
        try device.database.query(sql)
    }

    @Test func aFoldOfAParentRowDoesNotRunTheAppsInsertTriggersAgain() throws {
        let d = try devices(
            1,
            """
            CREATE TABLE tags (id TEXT PRIMARY KEY NOT NULL, name TEXT);
            CREATE TRIGGER tag_unique BEFORE INSERT ON tags WHEN EXISTS (SELECT 1 FROM tags WHERE name = NEW.name)
                BEGIN SELECT RAISE(ABORT, 'tag name already used'); END;
            CREATE TABLE audit (what TEXT);
            CREATE TRIGGER tag_inserted AFTER INSERT ON tags BEGIN INSERT INTO audit VALUES ('insert ' || NEW.id); END;
            CREATE TRIGGER tag_updated AFTER UPDATE ON tags BEGIN INSERT INTO audit VALUES ('update ' || NEW.id); END;
            CREATE TABLE note_tags (id TEXT PRIMARY KEY NOT NULL, tag TEXT REFERENCES tags(id) ON DELETE CASCADE);
            """, tables: ["tags", "note_tags"])
        try d[0].database.execute("INSERT INTO tags VALUES ('t1', 'work'); INSERT INTO note_tags VALUES ('n1', 't1')")
        let report = try d[0].check()
        #expect(report.isConsistent)
        #expect(try rows(d[0], "SELECT id, name FROM tags") == [["t1", "work"]])
        #expect(try rows(d[0], "SELECT id, tag FROM note_tags") == [["n1", "t1"]])
        #expect(try d[0].parked().isEmpty)
        // The app's one insert, seen once by its triggers.
        #expect(try rows(d[0], "SELECT what FROM audit ORDER BY rowid") == [["insert t1"]])
    }

    @Test func aMergedUpdateDoesNotRunTheAppsInsertTriggers() throws {
        let d = try devices(
            2,
            """
            CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, title TEXT);
            CREATE TRIGGER quota BEFORE INSERT ON items WHEN (SELECT count(*) FROM items) >= 2
                BEGIN SELECT RAISE(ABORT, 'at most 2 items'); END;
            """, tables: ["items"])
        try d[0].database.execute("INSERT INTO items VALUES ('i1', 'milk'), ('i2', 'eggs')")
        try Replica.sync(d)
        clock.advance(by: 1000)
        try d[0].database.execute("UPDATE items SET title = 'oat milk' WHERE id = 'i1'")
        try Replica.sync(d)
        for device in d {
            #expect(
                try rows(device, "SELECT id, title FROM items ORDER BY id") == [["i1", "oat milk"], ["i2", "eggs"]])
            #expect(try device.parked().isEmpty)
            #expect(try device.check().isConsistent)
        }
    }

    @Test(arguments: ["ABORT, 'a locked note keeps its title'", "IGNORE"])
    func aMergedUpdateRunsUpdateOfTriggersOnlyForTheColumnsItChanges(raise: String) throws {
        let d = try devices(
            2,
            """
            CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, title TEXT, locked INTEGER);
            CREATE TRIGGER lock BEFORE UPDATE OF title ON notes WHEN OLD.locked = 1 BEGIN SELECT RAISE(\(raise)); END;
            CREATE TABLE audit (what TEXT);
            CREATE TRIGGER titled AFTER UPDATE OF title ON notes BEGIN INSERT INTO audit VALUES (NEW.title); END;
            """, tables: ["notes"])
        try d[0].database.execute("INSERT INTO notes VALUES ('n1', 'Title', 1)")
        try Replica.sync(d)
        clock.advance(by: 1000)
        try d[0].database.execute("UPDATE notes SET locked = 0 WHERE id = 'n1'")
        try Replica.sync(d)
        for device in d {
            #expect(try rows(device, "SELECT id, title, locked FROM notes") == [["n1", "Title", 0]])
            #expect(try device.parked().isEmpty)
            #expect(try device.check().isConsistent)
            #expect(try rows(device, "SELECT what FROM audit") == [])
        }
        // A title edit now merges as the app's own edit would: its UPDATE OF trigger runs once.
        clock.advance(by: 1000)
        try d[0].database.execute("UPDATE notes SET title = 'Renamed' WHERE id = 'n1'")
        try Replica.sync(d)
        #expect(try rows(d[1], "SELECT id, title, locked FROM notes") == [["n1", "Renamed", 0]])
        #expect(try rows(d[1], "SELECT what FROM audit") == [["Renamed"]])
    }

    /// A fold that joins a value-merged column writes it only where the row shows another value. Before,
    /// it wrote the column again after the app's own insert or update: an AFTER UPDATE trigger wrote its
    /// outbox twice, and a "locked rows stay as they are" trigger aborted the fold, so every command on the
    /// replica failed, every table, for good.
    @Test(arguments: [ColumnMerge.counter, .max, .min, .union])
    func aFoldWritesAMergedColumnOnlyWhereItChanges(merge: ColumnMerge) throws {
        let d = try inMemoryReplicas(2, clock: clock) { replica, _ in
            try replica.database.execute(
                """
                CREATE TABLE posts (id TEXT PRIMARY KEY NOT NULL, likes, locked INTEGER NOT NULL DEFAULT 0);
                CREATE TRIGGER posts_locked BEFORE UPDATE ON posts WHEN OLD.locked = 1
                    BEGIN SELECT RAISE(ABORT, 'the post is locked'); END;
                CREATE TABLE outbox (message TEXT);
                CREATE TRIGGER posts_changed AFTER UPDATE ON posts
                    BEGIN INSERT INTO outbox VALUES (NEW.id || ' ' || NEW.likes); END;
                CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, body TEXT);
                """)
            try replica.enableSync(on: "posts", merges: ["likes": merge])
            try replica.enableSync(on: "notes")
        }
        let (first, second): (SQLiteValue, SQLiteValue) =
            merge == .union
            ? (.text("[\"a\"]"), .text("[\"a\",\"b\"]")) : (.integer(3), .integer(merge == .min ? 2 : 4))
        try d[0].database.execute(
            "INSERT INTO posts (id, likes, locked) VALUES ('archived', ?1, 1), ('open', ?1, 0)", [first])
        try d[0].database.execute("INSERT INTO notes VALUES ('n1', 'hello')")
        _ = try d[0].foldLocalWrites()
        try d[0].database.execute("UPDATE posts SET likes = ? WHERE id = 'open'", [second])
        try Replica.sync(d)
        for device in d {
            #expect(
                try rows(device, "SELECT id, likes FROM posts ORDER BY id") == [
                    ["archived", first], ["open", second],
                ])
            #expect(try device.check().isConsistent)
        }
        #expect(try rows(d[1], "SELECT id FROM notes") == [["n1"]])
        // The app's one update, seen once by its trigger.
        #expect(
            try rows(d[0], "SELECT message FROM outbox") == [
                [.text("open \(second.textValue ?? "\(second.integerValue ?? 0)")")]
            ])
    }

    /// A row hidden while alive (here, on a cycle two concurrent moves closed) was deleted from its table
    /// with the app's triggers firing: a cascade by hand, in an app that leaves foreign keys off, deleted
    /// the folder's files, recorded as this device's deletes, so the folders came back without them on
    /// every device. Such a hide is made with triggers off; one whose triggers delete no synced row
    /// still fires them (an index of what the table shows stays right).
    @Test func hidingARowDeletesNothingElseThroughTheAppsTriggers() throws {
        let d = try inMemoryReplicas(2, clock: clock) { replica, _ in
            try replica.database.execute(
                """
                CREATE TABLE folders (id TEXT PRIMARY KEY NOT NULL, parent TEXT REFERENCES folders(id) ON DELETE CASCADE);
                CREATE TABLE files (id TEXT PRIMARY KEY NOT NULL, folder TEXT);
                CREATE TRIGGER folder_files AFTER DELETE ON folders BEGIN DELETE FROM files WHERE folder = OLD.id; END;
                CREATE TABLE shown (what TEXT);
                CREATE TRIGGER folder_gone AFTER DELETE ON folders BEGIN INSERT INTO shown VALUES ('-' || OLD.id); END;
                """)
            try replica.enableSync(on: "folders")
            try replica.enableSync(on: "files")
        }
        try d[0].database.execute(
            """
            INSERT INTO folders VALUES ('x', NULL), ('y', NULL), ('empty', 'x');
            INSERT INTO files VALUES ('f1', 'x'), ('f2', 'y');
            """)
        try Replica.sync(d)
        try d[0].database.execute("UPDATE folders SET parent = 'y' WHERE id = 'x'")
        try d[1].database.execute("UPDATE folders SET parent = 'x' WHERE id = 'y'")
        try Replica.sync(d)
        for device in d {
            #expect(try rows(device, "SELECT id FROM folders").isEmpty)
            #expect(try rows(device, "SELECT id FROM files ORDER BY id") == [["f1"], ["f2"]])
            // The hide of a folder without files, under `x`, deleted nothing else: the app's triggers ran.
            #expect(try rows(device, "SELECT what FROM shown") == [["-empty"]])
        }
        // Breaking the cycle brings both folders back, with their files.
        try d[0].database.execute("INSERT INTO folders VALUES ('x', NULL)")
        try Replica.sync(d)
        for device in d {
            #expect(
                try rows(device, "SELECT id, parent FROM folders ORDER BY id") == [
                    ["empty", "x"], ["x", .null], ["y", "x"],
                ])
            #expect(try rows(device, "SELECT id FROM files ORDER BY id") == [["f1"], ["f2"]])
            #expect(try device.check().isConsistent)
        }
    }
}
