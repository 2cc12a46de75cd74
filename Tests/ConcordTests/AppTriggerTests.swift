import ConcordTestSupport
import Foundation
import Testing

@_spi(Simulation) @testable import Concord

/// The app's own triggers fire on what Concord merges, but their inserts and updates of synced tables are
/// left out: the merged rows already hold what those triggers made on the device that wrote them.
///
/// Apps keep `updated_at` columns, counts and activity rows with triggers. Before, a trigger that touched
/// the row Concord had just merged changed it on that device alone; when the change reached the capture
/// log it went back to the first device, whose trigger touched it again: `Replica.sync` never returned,
/// and a count kept in another synced table counted every row once per device.
@Suite(.tags(.replica))
struct AppTriggerTests {
    private let clock = ManualClock(unixMilliseconds: epoch2026)

    private func replicas(_ schema: String, sync tables: [String]) throws -> [Replica] {
        try (1...2 as ClosedRange<UInt8>).map { id in
            let replica = try Replica.inMemory(configuration: configuration(node: id, clock: clock))
            try replica.database.execute(schema)
            for table in tables { try replica.enableSync(on: table) }
            return replica
        }
    }

    private static let notes = """
        CREATE TABLE lists (id TEXT PRIMARY KEY NOT NULL, notes INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, body, edits INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE activity (id TEXT PRIMARY KEY NOT NULL, what);
        CREATE TABLE audit (what);
        CREATE TRIGGER touch AFTER UPDATE OF body ON notes BEGIN
          UPDATE notes SET edits = edits + 1 WHERE id = NEW.id;
          INSERT INTO audit VALUES ('edited ' || NEW.id);
        END;
        CREATE TRIGGER counted AFTER INSERT ON notes BEGIN
          UPDATE lists SET notes = notes + 1 WHERE id = 'l';
          INSERT INTO activity VALUES ('added ' || NEW.id, NEW.body);
        END;
        """

    @Test func triggersOfMergedRowsLeaveSyncedTablesAsTheirDeviceMadeThem() throws {
        let replicas = try replicas(Self.notes, sync: ["lists", "notes", "activity"])
        try replicas[0].database.execute("INSERT INTO lists VALUES ('l', 0)")
        try Replica.sync(replicas)
        try replicas[0].database.execute("INSERT INTO notes (id, body) VALUES ('n', 'a')")
        try Replica.sync(replicas)
        clock.advance(by: 10)
        try replicas[0].database.execute("UPDATE notes SET body = 'b'")
        clock.advance(by: 10)
        try replicas[1].database.execute("UPDATE notes SET body = 'c'")
        let report = try Replica.sync(replicas)
        #expect(report.rounds <= 3)
        for replica in replicas {
            #expect(try replica.database.query("SELECT * FROM lists") == [["l", 1]])
            // Both edits counted one (the column merges by last writer): the newer one's count wins.
            #expect(try replica.database.query("SELECT * FROM notes") == [["n", "c", 1]])
            #expect(try replica.database.query("SELECT * FROM activity") == [["added n", "a"]])
            #expect(try replica.check().isConsistent)
        }
        // What does not sync follows merged rows: the first device's audit saw its own edit and the newer
        // one merged; the second's, only its own (the older edit lost to it and changed nothing there).
        #expect(try replicas[0].database.query("SELECT what FROM audit") == [["edited n"], ["edited n"]])
        #expect(try replicas[1].database.query("SELECT what FROM audit") == [["edited n"]])
    }

    /// Each device applies the other's changes until nothing moves. Before, an edit of a row whose trigger
    /// touches it went back and forth for ever, its count going up by one at each apply (`Replica.sync`
    /// did not return).
    @Test func anEditOfARowATriggerTouchesSettles() throws {
        let schema = """
            CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, body, edits INTEGER NOT NULL DEFAULT 0);
            CREATE TRIGGER touch AFTER UPDATE OF body ON notes BEGIN
              UPDATE notes SET edits = edits + 1 WHERE id = NEW.id;
            END;
            """
        let replicas = try replicas(schema, sync: ["notes"])
        try replicas[0].database.execute("INSERT INTO notes (id, body) VALUES ('n', 'a')")
        try Replica.sync(replicas)
        clock.advance(by: 10)
        try replicas[0].database.execute("UPDATE notes SET body = 'b'")
        var moved: [Int] = []
        for _ in 0..<5 {
            var applied = 0
            for (source, target) in [(0, 1), (1, 0)] {
                let changes = try replicas[source].changes(since: replicas[target].peerVersion(replicas[source].nodeID))
                applied += try replicas[target].apply(changes).applied
                try replicas[source].recordDelivery(to: replicas[target].nodeID, upTo: changes.upTo)
            }
            moved.append(applied)
        }
        #expect(moved == [1, 0, 0, 0, 0], "\(moved)")
        for replica in replicas { #expect(try replica.database.query("SELECT * FROM notes") == [["n", "b", 1]]) }
    }

    /// A trigger's delete of synced rows cannot be left out of a merge; it is recorded as this device's delete.
    /// Before, the row was gone from the table with its registers still saying shown, and the next export
    /// sent it with every value NULL: the device that archived the list then showed the item as NULLs.
    @Test func rowsATriggerDeletesWhileConcordMergesAreDeletedEverywhere() throws {
        let schema = """
            CREATE TABLE lists (id TEXT PRIMARY KEY NOT NULL, archived INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, list TEXT, title TEXT);
            CREATE TRIGGER sweep AFTER UPDATE OF archived ON lists WHEN NEW.archived = 1
              BEGIN DELETE FROM items WHERE list = NEW.id; END;
            """
        let replicas = try replicas(schema, sync: ["lists", "items"])
        try replicas[0].database.execute(
            "INSERT INTO lists VALUES ('l', 0); INSERT INTO items VALUES ('i', 'l', 'milk')")
        try Replica.sync(replicas)
        clock.advance(by: 10)
        try replicas[0].database.execute("UPDATE lists SET archived = 1")
        clock.advance(by: 10)
        try replicas[1].database.execute("INSERT INTO items VALUES ('j', 'l', 'eggs')")
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(try replica.database.query("SELECT * FROM items") == [])
            #expect(try replica.check().isConsistent)
        }
        // The second device's delete of `j` is its own write, made when the archive reached it.
        let j = try replicas[1].changes(since: 0).rows.first { $0.key == "j" }
        #expect(j?.registers.liveness.isAlive == false)
        #expect(j?.registers.liveness.stamp?.node == replicas[1].nodeID)
    }

    /// A fold that shows a row may set off the app's triggers into deleting another: showing a waiting
    /// subtask reopens its reminder, and the reminder's done state, put back, clears its subtasks. The delete
    /// is stamped by that fold. Before, it waited in the log for the next fold and went out with the app's
    /// next writes: a subtask the app added again meanwhile (the table showed none) took the delete and
    /// the insert at once, and nothing said the delete came first.
    @Test func aDeleteTheFoldsOwnShowingSetOffIsStampedByThatFold() throws {
        let schema = """
            CREATE TABLE reminders (id TEXT PRIMARY KEY NOT NULL, done INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE subtasks (id TEXT PRIMARY KEY NOT NULL,
                reminder_id TEXT NOT NULL REFERENCES reminders(id) ON DELETE CASCADE, title TEXT NOT NULL);
            CREATE TRIGGER subtask_reopens AFTER INSERT ON subtasks BEGIN
                UPDATE reminders SET done = 0 WHERE id = NEW.reminder_id AND done <> 0; END;
            CREATE TRIGGER reminder_done_clears AFTER UPDATE OF done ON reminders WHEN NEW.done = 1 BEGIN
                DELETE FROM subtasks WHERE reminder_id = NEW.id; END;
            """
        let replica = try replicas(schema, sync: ["reminders", "subtasks"])[0]
        // The app keeps foreign keys off: the subtask waits, parked, for its reminder.
        try replica.database.execute("INSERT INTO subtasks VALUES ('s', 'r', 'call')")
        try replica.foldLocalWrites()
        clock.advance(by: 10)
        try replica.database.execute("INSERT INTO reminders VALUES ('r', 0); UPDATE reminders SET done = 1")
        try replica.foldLocalWrites()
        #expect(try replica.logHoldsWrites() == false)
        let s = try replica.changes(since: 0).rows.first { $0.key == "s" }
        #expect(s?.registers.liveness.causalLength == 2)
        #expect(s?.registers.liveness.stamp?.hlc.milliseconds == UInt64(epoch2026 + 10))
        #expect(try replica.database.query("SELECT * FROM subtasks") == [])
        #expect(try replica.check().isConsistent)
    }

    /// The merge and the fold that stamps what the trigger deleted may fall in two processes: the merge logs
    /// the rows in its own transaction, and the process that opens the file next stamps them at its first
    /// fold. Also when that process's connection makes LIKE case-sensitive (`PRAGMA case_sensitive_like`),
    /// which once hid the uppercase DELETE of the trigger's text when the next process looked for them.
    @Test(arguments: [false, true])
    func rowsATriggerDeletedAreFoundByTheNextProcess(caseSensitiveLike: Bool) throws {
        let directory = TemporaryDirectory()
        let schema = """
            CREATE TABLE lists (id TEXT PRIMARY KEY NOT NULL, archived INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, list TEXT, title TEXT);
            CREATE TRIGGER sweep AFTER UPDATE OF archived ON lists WHEN NEW.archived = 1
              BEGIN DELETE FROM items WHERE list = NEW.id; END;
            """
        let a = try Replica.inMemory(configuration: configuration(node: 1, clock: clock))
        try a.database.execute(schema)
        var b: Replica? = try Replica(
            path: directory.path("b.sqlite"), configuration: configuration(node: 2, clock: clock))
        for replica in [a, b!] {
            if replica !== a { try replica.database.execute(schema) }
            try replica.enableSync(on: "lists")
            try replica.enableSync(on: "items")
        }
        try a.database.execute("INSERT INTO lists VALUES ('l', 0)")
        try Replica.sync([a, b!])
        clock.advance(by: 10)
        try b!.database.execute("INSERT INTO items VALUES ('j', 'l', 'eggs')")
        try b!.foldLocalWrites()
        try a.database.execute("UPDATE lists SET archived = 1")
        _ = try b!.apply(try a.changes(since: 0))
        b = nil
        b = try Replica(path: directory.path("b.sqlite"), configuration: configuration(node: 2, clock: clock))
        if caseSensitiveLike { try b!.database.execute("PRAGMA case_sensitive_like = ON") }
        let j = try b!.changes(since: 0).rows.first { $0.key == "j" }
        #expect(j?.registers.liveness.isAlive == false)
        #expect(try b!.check().isConsistent)
    }

    /// A build before layout 14 looked for such rows only at the next fold, so a file it merged into may
    /// hold rows gone uncaptured that no sweep will look for again at this schema: the upgrade makes one.
    @Test func aFileAnEarlierBuildMergedIntoIsSweptWhenUpgraded() throws {
        let directory = TemporaryDirectory()
        let path = directory.path("b.sqlite")
        var b: Replica? = try Replica(path: path, configuration: configuration(node: 2, clock: clock))
        try b!.database.execute("CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, title TEXT)")
        try b!.enableSync(on: "items")
        try b!.database.execute("INSERT INTO items VALUES ('j', 'eggs'), ('k', 'milk')")
        try b!.foldLocalWrites()
        // What an earlier build's merge left: a row its app's trigger deleted uncaptured, the sweep at this
        // schema version already made, layout 13.
        let capture = "_concord_\(try b!.database.scalar("SELECT id FROM _concord_tables")!.integerValue!)_delete"
        let trigger = try b!.database.scalar("SELECT sql FROM sqlite_schema WHERE name = ?", [.text(capture)])!
        try b!.database.execute("DROP TRIGGER \"\(capture)\"; DELETE FROM items WHERE id = 'j'")
        try b!.database.execute(trigger.textValue!)
        let version = try b!.database.scalar("PRAGMA schema_version")!
        try b!.database.execute("UPDATE _concord_state SET layout = 13, swept = ?", [version])
        b = nil
        b = try Replica(path: path, configuration: configuration(node: 2, clock: clock))
        let rows = try b!.changes(since: 0).rows
        #expect(rows.first { $0.key == "j" }?.registers.liveness.isAlive == false)
        #expect(rows.first { $0.key == "k" }?.registers.liveness.isAlive == true)
        #expect(try b!.check().isConsistent)
    }

    @Test func theAppsOwnWritesStillFireItsTriggersAndAreCaptured() throws {
        let replicas = try replicas(Self.notes, sync: ["lists", "notes", "activity"])
        try replicas[1].database.execute("INSERT INTO lists VALUES ('l', 0)")
        try Replica.sync(replicas)
        try replicas[1].database.execute("INSERT INTO notes (id, body) VALUES ('m', 'x')")
        try replicas[1].foldLocalWrites()
        #expect(try replicas[1].changes(since: 0).rows.map(\.table).sorted() == ["activity", "lists", "notes"])
    }

    /// SQLite fires the newest trigger first, so an app trigger made after Concord's capture triggers ran
    /// before the capture of the insert that set it off: the updates it made of the new row were logged
    /// before the row's insert, and the insert's values (a count of 0) replaced them on every device.
    /// An insert is now folded before such updates of its own row, also when a fold batch ends between
    /// them (the simulator's rolling-upgrade family found that); an update and a replacing insert of a
    /// row alive already keep their order.
    @Test(arguments: [ColumnMerge.counter, .lww], [1, Replica.foldBatch])
    func updatesATriggerMadeBeforeTheInsertWasCapturedFollowIt(merge: ColumnMerge, foldBatch: Int) throws {
        let d = try (1...2 as ClosedRange<UInt8>).map { id in
            var configuration = configuration(node: id, clock: clock)
            configuration.foldBatch = foldBatch
            return try Replica.inMemory(configuration: configuration)
        }
        for replica in d {
            try replica.database.execute(
                """
                CREATE TABLE lists (id TEXT PRIMARY KEY NOT NULL, items INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, list TEXT REFERENCES lists(id) ON DELETE CASCADE);
                """)
            try replica.enableSync(on: "lists", merges: ["items": merge])
            try replica.enableSync(on: "items")
            try replica.database.execute(
                """
                CREATE TRIGGER counted AFTER INSERT ON items BEGIN
                  UPDATE lists SET items = items + 1 WHERE id = NEW.list;
                END;
                CREATE TRIGGER welcome AFTER INSERT ON lists BEGIN
                  INSERT INTO items VALUES (NEW.id || '-welcome', NEW.id);
                END;
                """)
        }
        try d[0].database.execute("INSERT INTO lists (id) VALUES ('l1'), ('l2')")
        // In one instant, an update of a row alive already and a replacing insert: the insert comes last.
        try d[0].database.execute("DROP TRIGGER welcome")
        try d[0].database.execute("UPDATE lists SET items = 7 WHERE id = 'l2'; REPLACE INTO lists VALUES ('l2', 5)")
        try Replica.sync(d)
        for replica in d {
            #expect(try replica.database.query("SELECT id, items FROM lists ORDER BY id") == [["l1", 1], ["l2", 5]])
            #expect(try replica.database.query("SELECT count(*) FROM items") == [[2]])
            #expect(try replica.check().isConsistent)
        }
    }
}
