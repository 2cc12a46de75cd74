import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// `restore(conflict:)` writes a losing value back as an ordinary local write that reaches every device.
@Suite("Conflict log: restoring a value", .tags(.replica), .timeLimit(.hangGuard))
struct ConflictRestoreTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)
    /// Each test's own files (Swift Testing makes the suite anew for every test).
    let directory = TemporaryDirectory()

    private func pair(policy: TablePolicy = .column) throws -> (Replica, Replica) {
        try syncedReminderPair(in: directory, clock: clock, policy: policy)
    }

    private func title(_ replica: Replica) throws -> SQLiteValue? {
        try replica.database.scalar("SELECT title FROM reminders WHERE id = 'r1'")
    }

    /// A pair where `a` titled the reminder 'oat milk' and `b`, later, 'soy milk', synced: `b`'s won.
    private func concurrentTitles() throws -> (Replica, Replica) {
        let (a, b) = try pair()
        try a.database.execute("UPDATE reminders SET title = 'oat milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try b.database.execute("UPDATE reminders SET title = 'soy milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try Replica.sync([a, b])
        return (a, b)
    }

    @Test func aRestoredValueComesBackOnEveryDeviceAfterSync() throws {
        let (a, b) = try concurrentTitles()
        #expect(try title(a) == "soy milk" && title(b) == "soy milk")
        let conflict = try #require(try b.conflicts().first)

        try b.restore(conflict: conflict.id)
        #expect(try title(b) == "oat milk", "written at once, as the app would")
        #expect(try b.conflicts().isEmpty, "a restored entry leaves the log")
        clock.advance(by: 1_000)
        try Replica.sync([a, b])
        #expect(try title(a) == "oat milk" && title(b) == "oat milk")
        #expect(try a.canonicalDump() == b.canonicalDump())
        #expect(try b.conflicts().isEmpty, "the restore saw what it replaced")
        #expect(try a.conflicts().map(\.lost) == ["oat milk"], "a listed its own value when it lost, and nothing since")
    }

    @Test func anEditLostToADeleteIsRestoredAsAReinsert() throws {
        let (a, b) = try pair()
        try b.database.execute("DELETE FROM reminders WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try a.database.execute("UPDATE reminders SET title = 'oat milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try Replica.sync([a, b])
        let conflict = try #require(try b.conflicts().first)
        #expect(conflict.kind == .delete)

        try b.restore(conflict: conflict.id)
        clock.advance(by: 1_000)
        try Replica.sync([a, b])
        for replica in [a, b] {
            #expect(
                try replica.database.query("SELECT id, title, notes FROM reminders")
                    == [["r1", "oat milk", "fridge"]])
        }
        #expect(try a.canonicalDump() == b.canonicalDump())
    }

    /// A counter shows 0 while its row is deleted; the restored row comes back with the count it had, on
    /// the device whose edit lost (its own increment too) and every other.
    @Test func anEditLostToADeleteComesBackWithItsCount() throws {
        let devices = try [1, 2].map { node in
            let replica = try Replica(
                path: directory.path("counter-\(node).db"),
                configuration: configuration(node: UInt8(node), clock: clock))
            try replica.database.execute(
                "CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, title TEXT, n INTEGER NOT NULL DEFAULT 0)")
            try replica.enableSync(on: "t", merges: ["n": .counter])
            return replica
        }
        try devices[0].database.execute("INSERT INTO t VALUES ('k', 'v0', 10)")
        try Replica.sync(devices)
        try devices[0].database.execute("DELETE FROM t WHERE id = 'k'")
        clock.advance(by: 1_000)
        try devices[1].database.execute("UPDATE t SET title = 'edit', n = n + 3 WHERE id = 'k'")
        clock.advance(by: 1_000)
        try Replica.sync(devices)
        let conflict = try #require(try devices[1].conflicts().first)
        try devices[1].restore(conflict: conflict.id)
        clock.advance(by: 1_000)
        try Replica.sync(devices)
        for replica in devices {
            #expect(try replica.database.query("SELECT id, title, n FROM t") == [["k", "edit", 13]])
            #expect(try replica.check().isConsistent)
        }
    }

    /// The app deleted the row and nothing folded the delete yet: the restore folds it first, and brings the
    /// row back, where it once refused, calling the row parked.
    @Test func aRestoreRightAfterTheAppDeletedTheRowBringsItBack() throws {
        let (a, b) = try concurrentTitles()
        let conflict = try #require(try a.conflicts().first)
        try a.database.execute("DELETE FROM reminders WHERE id = 'r1'")
        try a.restore(conflict: conflict.id)
        #expect(try title(a) == "oat milk")
        clock.advance(by: 1_000)
        try Replica.sync([a, b])
        #expect(try title(b) == "oat milk")
    }

    @Test func underTheRowPolicyTheWholeLosingRowComesBack() throws {
        let (a, b) = try pair(policy: .row)
        try a.database.execute("UPDATE reminders SET title = 'oat milk', notes = 'shelf' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try b.database.execute("UPDATE reminders SET done = 1 WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try Replica.sync([a, b])
        let conflict = try #require(try b.conflicts().first)
        try b.restore(conflict: conflict.id)
        #expect(try b.conflicts().isEmpty, "every column of that write was restored")
        clock.advance(by: 1_000)
        try Replica.sync([a, b])
        for replica in [a, b] {
            #expect(
                try replica.database.query("SELECT title, done, notes FROM reminders")
                    == [["oat milk", 0, "shelf"]])
        }
    }

    /// A row brought back by a restore whose parent is not visible is parked at once, not left in its table
    /// naming a missing parent until the next fold.
    @Test func aRowRestoredUnderAMissingParentIsParkedAtOnce() throws {
        let d = try inMemoryReplicas(2, clock: clock) { replica, _ in
            try replica.database.execute(
                """
                CREATE TABLE p (id TEXT PRIMARY KEY NOT NULL);
                CREATE TABLE c (id TEXT PRIMARY KEY NOT NULL, pid TEXT REFERENCES p(id) ON DELETE CASCADE, v TEXT);
                """)
            try replica.enableSync(on: "p")
            try replica.enableSync(on: "c")
        }
        try d[0].database.execute("INSERT INTO p VALUES ('p1'); INSERT INTO c VALUES ('c1', 'p1', 'orig')")
        try Replica.sync(d)
        clock.advance(by: 1_000)
        try d[0].database.execute("UPDATE c SET v = 'A'")
        clock.advance(by: 1_000)
        try d[1].database.execute("UPDATE c SET v = 'B'")
        try Replica.sync(d)
        clock.advance(by: 1_000)
        try d[1].database.execute("PRAGMA foreign_keys = ON; DELETE FROM p; PRAGMA foreign_keys = OFF")
        try Replica.sync(d)
        let conflict = try #require(try d[0].conflicts().first { $0.lost == "A" })
        try d[0].restore(conflict: conflict.id)
        #expect(try d[0].database.query("SELECT id FROM c") == [])
        #expect(try d[0].database.query("PRAGMA foreign_key_check") == [])
        #expect(try d[0].parked().map(\.key) == ["c1"])
        #expect(try d[0].check().isConsistent)
    }

    /// Two losses of b's, which b lists one after the other.
    private func twoLosses() throws -> (a: Replica, b: Replica) {
        let (a, b) = try pair()
        for (title, notes) in [("soy milk", "door"), ("rice milk", "shelf")] {
            try b.database.execute(
                "UPDATE reminders SET title = ?, notes = ? WHERE id = 'r1'", [.text(title), .text(notes)])
            clock.advance(by: 1_000)
            try a.database.execute("UPDATE reminders SET title = 'oat milk', notes = ? WHERE id = 'r1'", [.text(title)])
            clock.advance(by: 1_000)
            try Replica.sync([a, b])
        }
        return (a, b)
    }

    /// `restore` takes an id the user read earlier, so no later loss may take it. Before, the newest entry's
    /// id, once restored, went to the next one, and restoring it again (a second tap, a stale list on screen)
    /// wrote that other value.
    @Test func aRestoredIdIsNeverGivenToAnotherConflict() throws {
        let (a, b) = try twoLosses()
        let restored = try #require(try b.conflicts().map(\.id).max())
        try b.restore(conflict: restored)
        try b.database.execute("UPDATE reminders SET title = 'pea milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try a.database.execute("UPDATE reminders SET title = 'goat milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try Replica.sync([a, b])
        #expect(try b.conflicts().contains { $0.lost == "pea milk" })
        #expect(try b.conflicts().allSatisfy { $0.id != restored })
        #expect(throws: ReplicaError.unknownConflict(id: restored)) { try b.restore(conflict: restored) }
    }

    /// A file of layout 16, whose log could hand an id out again, is built anew at the upgrade with every
    /// entry and id kept; the next entry takes an id above them all.
    @Test func theUpgradeKeepsEveryEntryAndItsId() throws {
        var (_, b) = try twoLosses()
        let kept = try b.database.query("SELECT * FROM _concord_conflicts ORDER BY id")
        // What layout 16 had: the same table without AUTOINCREMENT, and no record of the restored id.
        let columns = "id, tbl, pk, col, kind, value, hlc, node, whlc, wnode, wvalue, at"
        try b.database.execute(
            """
            CREATE TABLE old (id INTEGER PRIMARY KEY, tbl INTEGER NOT NULL, pk NOT NULL, col INTEGER NOT NULL,
                kind INTEGER NOT NULL, value, hlc INTEGER NOT NULL, node INTEGER NOT NULL, whlc INTEGER NOT NULL,
                wnode INTEGER NOT NULL, wvalue, at INTEGER NOT NULL, UNIQUE (tbl, pk, col, hlc, node));
            INSERT INTO old (\(columns)) SELECT \(columns) FROM _concord_conflicts;
            DROP TABLE _concord_conflicts; ALTER TABLE old RENAME TO _concord_conflicts;
            DELETE FROM sqlite_sequence; UPDATE _concord_state SET layout = 16;
            """)
        b = try Replica(path: directory.path("b.sqlite"), configuration: configuration(node: 2, clock: clock))
        #expect(try b.database.query("SELECT * FROM _concord_conflicts ORDER BY id") == kept)
        #expect(try b.database.scalar("SELECT layout FROM _concord_state") == .integer(Metadata.layoutVersion))
        try b.database.execute(
            "INSERT INTO _concord_conflicts (tbl, pk, col, kind, hlc, node, whlc, wnode, at) "
                + "VALUES (1, 'x', 0, 0, 1, 1, 2, 1, 0)")
        #expect(try b.database.scalar("SELECT max(id) FROM _concord_conflicts") == .integer(Int64(kept.count + 1)))
    }

    @Test func anUnknownIdIsRefusedClearlyAndChangesNothing() throws {
        let (_, b) = try pair()
        let before = try b.canonicalDump()
        let bytes = try fileBytes(directory.path("b.sqlite"))
        #expect(throws: ReplicaError.unknownConflict(id: 42)) { try b.restore(conflict: 42) }
        #expect(ReplicaError.unknownConflict(id: 42).description.contains("`concord conflicts DB`"))
        #expect(try b.canonicalDump() == before)
        #expect(try fileBytes(directory.path("b.sqlite")) == bytes)
    }
}
