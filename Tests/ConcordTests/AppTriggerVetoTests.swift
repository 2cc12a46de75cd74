import ConcordTestSupport
import ConcordTesting
import Foundation
import Testing

@testable import Concord

/// A BEFORE trigger of the app that refuses Concord's write of a merged row (`RAISE(IGNORE)`,
/// `RAISE(ABORT)`) never leaves a device showing what the registers do not say.
///
/// Apps guard rows with such triggers ("a locked note keeps its title", "the default list stays"). A
/// merge is not the app's write: another device made it under its own state. Before, a trigger that
/// ignored the merged update left the old values shown under the new stamp (exported as such, and
/// `check()` content), and one that ignored a merged delete left the row shown here alone; one that
/// aborted the delete refused every changeset holding it, for ever.
@Suite(.tags(.replica))
struct AppTriggerVetoTests {
    private let clock = ManualClock(unixMilliseconds: epoch2026)

    /// Two devices of a notes app whose trigger `guard` (on `event`) answers `raise` for locked notes.
    private func devices(guard event: String, raise: String) throws -> [Replica] {
        try inMemoryReplicas(2, clock: clock) { replica, _ in
            try replica.database.execute(
                """
                CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, title TEXT, locked INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE audit (what TEXT);
                CREATE TRIGGER guard BEFORE \(event) ON notes WHEN OLD.locked = 1 BEGIN SELECT RAISE(\(raise)); END;
                CREATE TRIGGER unchanged BEFORE UPDATE ON notes
                    WHEN NEW.title IS OLD.title AND NEW.locked IS OLD.locked BEGIN SELECT RAISE(IGNORE); END;
                CREATE TRIGGER deleted AFTER DELETE ON notes BEGIN INSERT INTO audit VALUES (OLD.id); END;
                """)
            try replica.enableSync(on: "notes")
            try replica.database.execute("INSERT INTO notes VALUES ('n1', 'draft', 0), ('n2', 'other', 0)")
        }
    }

    private func notes(_ device: Replica) throws -> [[SQLiteValue]] {
        try device.database.query("SELECT id, title, locked FROM notes ORDER BY id")
    }

    @Test(arguments: ["IGNORE", "ABORT, 'the note is locked'"])
    func aMergedUpdateATriggerRefusesParksTheRow(raise: String) throws {
        let d = try devices(guard: "UPDATE OF title", raise: raise)
        try Replica.sync(d)
        clock.advance(by: 1000)
        // One device edits the title while the other, not knowing it, locks the note.
        try d[0].database.execute("UPDATE notes SET title = 'final' WHERE id = 'n1'")
        try d[1].database.execute("UPDATE notes SET locked = 1 WHERE id = 'n1'")
        try Replica.sync(d)
        #expect(try notes(d[0]) == [["n1", "final", 1], ["n2", "other", 0]])
        // The locking device cannot show the merged row: it parks it, saying why; its registers hold it.
        #expect(try notes(d[1]) == [["n2", "other", 0]])
        let parked = try d[1].parked()
        #expect(parked.map(\.key) == ["n1"])
        #expect(parked.first?.reason.contains(raise == "IGNORE" ? "RAISE(IGNORE)" : "the note is locked") == true)
        let kept = try d[1].changes(since: 0).rows.first { $0.key == "n1" }?.registers.columns.map { $0?.value }
        #expect(kept == ["final", 1])
        for device in d { #expect(try device.check().isConsistent) }
        // Tried again once the app writes: shown as a new row (the guard is on updates), as everywhere else.
        try d[1].database.execute("INSERT INTO notes VALUES ('n3', 'new', 0)")
        _ = try d[1].foldLocalWrites()
        #expect(try notes(d[1]) == [["n1", "final", 1], ["n2", "other", 0], ["n3", "new", 0]])
        #expect(try d[1].parked().isEmpty)
        #expect(try d[1].check().isConsistent)
    }

    @Test(arguments: ["IGNORE", "ABORT, 'the note is locked'"])
    func aMergedDeleteLandsWhereATriggerRefusesIt(raise: String) throws {
        let d = try devices(guard: "DELETE", raise: raise)
        try Replica.sync(d)
        clock.advance(by: 1000)
        try d[0].database.execute("DELETE FROM notes WHERE id = 'n1'")
        try d[1].database.execute("UPDATE notes SET locked = 1 WHERE id = 'n1'")
        try Replica.sync(d)
        for device in d {
            #expect(try notes(device) == [["n2", "other", 0]])
            #expect(try device.check().isConsistent)
        }
        #expect(try d[0].canonicalDump() == d[1].canonicalDump())
        // The app's other triggers on that delete did not run on the refusing device (see README).
        #expect(try d[1].database.query("SELECT what FROM audit") == [])
    }

    /// `RAISE(ROLLBACK)` undoes the whole apply: the changeset is refused with the trigger's message, and
    /// nothing of it is written (before, the park or the delete went on outside any transaction).
    @Test(arguments: ["UPDATE OF title", "DELETE"])
    func aGuardThatRollsBackRefusesTheChangesetAndChangesNothing(event: String) throws {
        let d = try devices(guard: event, raise: "ROLLBACK, 'the note is locked'")
        try Replica.sync(d)
        clock.advance(by: 1000)
        try d[0].database.execute(
            event == "DELETE"
                ? "DELETE FROM notes WHERE id = 'n1'" : "UPDATE notes SET title = 'final' WHERE id = 'n1'")
        try d[0].database.execute("INSERT INTO notes (id, title) VALUES ('n3', 'new')")
        try d[1].database.execute("UPDATE notes SET locked = 1 WHERE id = 'n1'")
        let before = try d[1].canonicalDump()
        #expect { try d[1].apply(d[0].changes(since: d[1].peerVersion(d[0].nodeID))) } throws: { error in
            "\(error)".contains("the note is locked")
        }
        #expect(try d[1].canonicalDump() == before)
        #expect(try notes(d[1]) == [["n1", "draft", 1], ["n2", "other", 0]])
        #expect(try d[1].check().isConsistent)
    }

    /// A row a trigger refused for what other rows hold ("at most 2 items") shows once the app writes them:
    /// it is tried again after every fold and apply that writes something, not only when it changes.
    @Test func aRowRefusedForWhatOtherRowsHoldShowsOnceTheyChange() throws {
        let d = try inMemoryReplicas(2, clock: clock) { replica, _ in
            try replica.database.execute(
                """
                CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, title TEXT);
                CREATE TRIGGER quota BEFORE INSERT ON items WHEN (SELECT count(*) FROM items) >= 2
                    BEGIN SELECT RAISE(ABORT, 'at most 2 items'); END;
                """)
            try replica.enableSync(on: "items")
        }
        try d[0].database.execute("INSERT INTO items VALUES ('i1', 'milk'), ('i2', 'eggs')")
        try d[1].database.execute("INSERT INTO items VALUES ('i3', 'tea')")
        try Replica.sync(d)
        // Each device shows two and parks the third it received.
        #expect(try d[0].parked().map(\.key) == ["i3"])
        #expect(try d[1].parked().map(\.key) == ["i2"])
        // A local delete makes room: the fold that records it shows the parked row.
        try d[0].database.execute("DELETE FROM items WHERE id = 'i1'")
        _ = try d[0].foldLocalWrites()
        #expect(try d[0].database.query("SELECT id FROM items ORDER BY id") == [["i2"], ["i3"]])
        #expect(try d[0].parked().isEmpty)
        // The delete arriving makes room on the other device: the apply that merges it shows its parked row.
        try Replica.sync(d)
        for device in d {
            #expect(try device.database.query("SELECT id FROM items ORDER BY id") == [["i2"], ["i3"]])
            #expect(try device.parked().isEmpty)
            #expect(try device.check().isConsistent)
        }
        #expect(try d[0].canonicalDump() == d[1].canonicalDump())
    }

    /// A row parked for a trigger's refusal in a table refused for a schema change waits with its table: the
    /// retry after a write elsewhere must not touch it (its insert named a column the table no longer had,
    /// and every fold of the file failed).
    @Test func aParkedRowOfARefusedTableIsNotTriedAgain() throws {
        let replica = try Replica.inMemory(configuration: configuration(node: 1, clock: clock))
        let peer = try Replica.inMemory(configuration: configuration(node: 2, clock: clock))
        for device in [replica, peer] {
            try device.database.execute(
                """
                CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, title TEXT, note TEXT);
                CREATE TRIGGER quota BEFORE INSERT ON items WHEN (SELECT count(*) FROM items) >= 1
                    BEGIN SELECT RAISE(ABORT, 'at most 1 item'); END;
                CREATE TABLE tags (id TEXT PRIMARY KEY NOT NULL, name TEXT);
                """)
            try device.enableSync(on: "items")
            try device.enableSync(on: "tags")
        }
        try replica.database.execute("INSERT INTO items VALUES ('i1', 'milk', NULL)")
        try peer.database.execute("INSERT INTO items VALUES ('i2', 'eggs', NULL)")
        try Replica.sync([replica, peer])
        #expect(try replica.parked().map(\.key) == ["i2"])
        // A release renames a column (refused); the app writes another table, and makes room in this one.
        try replica.database.execute("ALTER TABLE items RENAME COLUMN note TO notes")
        try replica.database.execute("DELETE FROM items WHERE id = 'i1'")
        try replica.database.execute("INSERT INTO tags VALUES ('t1', 'home')")
        _ = try replica.foldLocalWrites()
        #expect(replica.schemaRefusals.count == 1)
        #expect(try replica.database.query("SELECT id FROM items") == [])
        // Undone, the table syncs again, and the parked row shows once a write of its table folds.
        try replica.database.execute("ALTER TABLE items RENAME COLUMN notes TO note")
        try Replica.sync([replica, peer])
        #expect(replica.schemaRefusals.isEmpty)
        #expect(try replica.database.query("SELECT id FROM items") == [["i2"]])
        #expect(try replica.check().isConsistent)
    }

    @Test func mergesThatChangeNothingAreNoMatter() throws {
        let d = try devices(guard: "UPDATE OF title", raise: "IGNORE")
        try Replica.sync(d)
        clock.advance(by: 1000)
        // Both devices write the same values: each merge changes nothing, and the trigger ignores it.
        for device in d { try device.database.execute("UPDATE notes SET title = 'same', locked = 0 WHERE id = 'n2'") }
        try Replica.sync(d)
        for device in d {
            #expect(try notes(device) == [["n1", "draft", 0], ["n2", "same", 0]])
            #expect(try device.parked() == [])
            #expect(try device.check().isConsistent)
        }
    }

    /// Guard triggers of the app drawn at random (an event, a condition on the row, IGNORE, ABORT or
    /// ROLLBACK), random edits, locks and deletes on three devices, random syncs: a changeset refused
    /// (only a guard that rolls back refuses one) changes nothing; once everyone has synced, every
    /// device shows exactly what its registers say (or parks the row, saying why), and unless a guard
    /// refused a changeset, all hold the same registers.
    @Test func propertyGuardTriggersNeverMakeDevicesDisagree() throws {
        try Property.check(seed: 0x7E70, iterations: 100) { source in
            let events = ["UPDATE OF title", "UPDATE", "DELETE", "INSERT"]
            let guards = (0..<source.int(in: 1...3)).map { index -> String in
                let event = events[source.int(in: 0...3)]
                let row = event == "INSERT" ? "NEW" : "OLD"
                let condition = ["\(row).locked = 1", "\(row).title = 'no'", "1"][source.int(in: 0...2)]
                let raise = ["IGNORE", "ABORT, 'refused'", "ROLLBACK, 'refused'"][source.int(in: 0...2)]
                return "CREATE TRIGGER guard\(index) BEFORE \(event) ON notes WHEN \(condition) "
                    + "BEGIN SELECT RAISE(\(raise)); END;"
            }
            source.note(guards.joined(separator: "\n"))
            let clock = ManualClock(unixMilliseconds: epoch2026)
            let d = try (1...3 as ClosedRange<UInt8>).map { id in
                let replica = try Replica.inMemory(configuration: configuration(node: id, clock: clock))
                try replica.database.execute(
                    "CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, title TEXT, locked INTEGER NOT NULL DEFAULT 0);")
                try replica.enableSync(on: "notes")
                try replica.database.execute(guards.joined(separator: "\n"))
                return replica
            }
            for _ in 0..<source.int(in: 1...12) {
                clock.advance(by: Int64(source.int(in: 0...2)))
                let device = d[source.int(in: 0...2)]
                let key = "k\(source.int(in: 1...3))"
                let write = [
                    "INSERT OR IGNORE INTO notes (id, title) VALUES ('\(key)', '\(["a", "no"][source.int(in: 0...1)])')",
                    "UPDATE notes SET title = '\(["b", "no", "c"][source.int(in: 0...2)])' WHERE id = '\(key)'",
                    "UPDATE notes SET locked = \(source.int(in: 0...1)) WHERE id = '\(key)'",
                    "DELETE FROM notes WHERE id = '\(key)'",
                ][source.int(in: 0...3)]
                // A guard may refuse the app's own write too (RAISE(ABORT)): the app then wrote nothing.
                try? device.database.execute(write)
                if source.bool() {
                    let (from, to) = (d[source.int(in: 0...2)], d[source.int(in: 0...2)])
                    guard from !== to else { continue }
                    let before = try to.canonicalDump()
                    do {
                        _ = try deliver(from: from, to: to, as: source.bool() ? .binary : .json)
                    } catch {
                        // Only a guard that rolls back refuses a changeset, and then nothing of it is written.
                        guard "\(error)".contains("refused"), try to.canonicalDump() == before else {
                            throw PredicateFailed("a refused changeset changed device \(to.nodeID): \(error)")
                        }
                    }
                }
            }
            // A guard that rolls back refuses every changeset holding what it guards, so devices may not meet.
            var converged = true
            do { try Replica.sync(d) } catch  where "\(error)".contains("refused") { converged = false }
            func registers(_ device: Replica) throws -> [String] {
                try device.changes(since: 0).rows.map { "\($0.key) \($0.registers)" }.sorted()
            }
            for device in d {
                guard try device.check().isConsistent else {
                    throw PredicateFailed("device \(device.nodeID): \(try device.check())")
                }
                guard try !converged || registers(device) == registers(d[0]) else {
                    throw PredicateFailed("device \(device.nodeID) holds other registers than device 0")
                }
            }
        }
    }
}
