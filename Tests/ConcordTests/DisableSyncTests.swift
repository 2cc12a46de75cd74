import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// `Replica.disableSync(on:)` removes a table's triggers and metadata and leaves its rows.
@Suite("Disable sync", .tags(.replica), .timeLimit(.hangGuard))
struct DisableSyncTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    @Test func disablingRemovesEverythingOfConcordsAndKeepsTheRows() throws {
        let replica = try Replica.inMemory(configuration: configuration(node: 1, clock: clock))
        try replica.database.execute(remindersSchema + "CREATE TABLE lists (id TEXT PRIMARY KEY NOT NULL, name TEXT);")
        try replica.enableSync(on: "reminders", merges: ["done": .max])
        try replica.enableSync(on: "lists")
        try replica.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'milk'), ('r2', 'tea')")
        try replica.foldLocalWrites()
        try replica.database.execute("DELETE FROM reminders WHERE id = 'r2'")
        try replica.database.execute("UPDATE reminders SET title = 'pending' WHERE id = 'r1'")
        try replica.disableSync(on: "reminders")
        #expect(replica.tables.map(\.name) == ["lists"])
        let left = try replica.database.query(
            "SELECT name FROM sqlite_schema WHERE name LIKE '_concord_1_%' ORDER BY name")
        #expect(left.isEmpty, "\(left)")
        #expect(try replica.database.scalar("SELECT count(*) FROM _concord_log") == .integer(0))
        #expect(try replica.database.query("SELECT id, title FROM reminders") == [["r1", "pending"]])
        try replica.database.execute("INSERT INTO reminders (id) VALUES ('r3')")
        #expect(try replica.database.scalar("SELECT count(*) FROM _concord_log") == .integer(0), "no capture")
        #expect(try replica.check().isConsistent)
        try replica.enableSync(on: "reminders")
        // r1 and r3, and r2's delete, folded as sync stopped: it may not have left this device.
        #expect(try replica.changes(since: 0).rows.count == 3)
    }

    @Test func aTableThatDoesNotSyncOrIsReferencedIsRefused() throws {
        let replica = try Replica.inMemory(configuration: configuration(node: 1, clock: clock))
        try replica.database.execute(
            "CREATE TABLE p (id TEXT PRIMARY KEY NOT NULL); CREATE TABLE c (id TEXT PRIMARY KEY NOT NULL, p TEXT REFERENCES p(id));"
        )
        #expect(throws: ReplicaError.notSynced(table: "p")) { try replica.disableSync(on: "p") }
        try replica.enableSync(on: "p")
        try replica.enableSync(on: "c")
        #expect(throws: ReplicaError.referencedBySyncedTable(table: "p", child: "c")) {
            try replica.disableSync(on: "p")
        }
        // Said as what was asked: to stop syncing it (it read "cannot sync table 'p'").
        #expect(
            ReplicaError.referencedBySyncedTable(table: "p", child: "c").description
                .hasPrefix("cannot stop syncing table 'p': synced table 'c' references it"))
        try replica.disableSync(on: "c")
        try replica.disableSync(on: "p")
        #expect(replica.tables.isEmpty)
    }
}

/// Disabling a table the app dropped or renamed, as the refusal of that change tells it to.
@Suite("Disable sync of a table that is gone", .tags(.replica), .timeLimit(.hangGuard))
struct DisableGoneTableTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    private func replica() throws -> Replica {
        let replica = try Replica.inMemory(configuration: configuration(node: 1, clock: clock))
        try replica.database.execute(
            "CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, title TEXT); CREATE TABLE u (id TEXT PRIMARY KEY NOT NULL)")
        try replica.enableSync(on: "t")
        try replica.enableSync(on: "u")
        try replica.database.execute(
            "INSERT INTO t VALUES ('r1', 'hello'), ('r2', 'world'); INSERT INTO u VALUES ('u1')")
        try replica.foldLocalWrites()
        return replica
    }

    @Test func aDroppedTableIsDisabledAndItsRowsCountAsDeletedWhenItSyncsAgain() throws {
        let replica = try replica()
        try replica.database.execute("DROP TABLE t")
        _ = try replica.status()
        #expect(
            replica.schemaRefusals.map { "\($0)" }.joined().contains("rename it back, or create it again with its rows")
        )
        try replica.disableSync(on: "t")
        #expect(replica.tables.map(\.name) == ["u"])
        #expect(replica.schemaRefusals.isEmpty)
        #expect(try replica.database.scalar("SELECT count(*) FROM sqlite_schema WHERE name = 't'") == .integer(0))
        #expect(try replica.check().isConsistent)
        // A table of that name, synced again: the dropped rows are deleted, r1 written anew.
        try replica.database.execute("CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, title TEXT)")
        try replica.database.execute("INSERT INTO t VALUES ('r1', 'again')")
        let before = try replica.version
        try replica.enableSync(on: "t")
        let rows = try replica.changes(since: before).rows.filter { $0.table == "t" }
        #expect(rows.map(\.key) == ["r1", "r2"])
        #expect(rows.map(\.registers.liveness.isAlive) == [true, false])
        #expect(try replica.check().isConsistent)
    }

    @Test func aRenamedTableIsDisabledAndItsNewNameSyncs() throws {
        let replica = try replica()
        try replica.database.execute("ALTER TABLE t RENAME TO notes")
        // SQLite moved t's capture triggers to notes; disabling t takes them away, whenever it comes.
        try replica.enableSync(on: "notes")
        try replica.disableSync(on: "t")
        #expect(replica.tables.map(\.name) == ["notes", "u"])
        try replica.database.execute("UPDATE notes SET title = 'hi' WHERE id = 'r1'")
        #expect(try replica.database.scalar("SELECT count(*) FROM _concord_log") == .integer(1), "captured once")
        #expect(
            try replica.database.query("SELECT id, title FROM notes ORDER BY id") == [["r1", "hi"], ["r2", "world"]])
        #expect(try replica.check().isConsistent)
        #expect(try replica.changes(since: 0).rows.filter { $0.table == "notes" }.count == 2)
    }
}

/// A row deleted before sync stopped, and inserted again meanwhile by a device that lacks a column the
/// migration added, shows that column's DEFAULT: no device wrote it. Recorded as gone with a NULL register in
/// the new column under its own stamp, it showed NULL on every device, `check` ok.
@Suite("Disable sync, a column added meanwhile", .tags(.replica), .timeLimit(.hangGuard))
struct DisableAddColumnTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    @Test func aRowInsertedAgainByAnOlderPeerShowsTheNewColumnsDefault() throws {
        let (a, b) = try (
            Replica.inMemory(configuration: configuration(node: 1, clock: clock)),
            Replica.inMemory(configuration: configuration(node: 2, clock: clock))
        )
        for replica in [a, b] {
            try replica.database.execute("CREATE TABLE p (id TEXT PRIMARY KEY NOT NULL, name TEXT)")
            try replica.enableSync(on: "p")
        }
        try a.database.execute("INSERT INTO p VALUES ('P1', 'one'), ('P2', 'two')")
        try Replica.sync([a, b])
        try b.database.execute("DELETE FROM p WHERE id = 'P2'")
        try Replica.sync([a, b])
        try a.disableSync(on: "p")
        try a.database.execute("ALTER TABLE p ADD COLUMN color TEXT DEFAULT 'red'")
        try b.database.execute("INSERT INTO p VALUES ('P2', 'two again')")
        try a.apply(b.changes(since: a.peerVersion(b.nodeID)))
        try a.enableSync(on: "p")
        #expect(
            try a.database.query("SELECT id, name, color FROM p ORDER BY id") == [
                ["P1", "one", "red"], ["P2", "two again", "red"],
            ])
        let p2 = try a.changes(since: 0).rows.first { $0.key == "P2" }
        #expect(p2?.registers.columns.last.map { $0 == nil } == true, "no device wrote P2's color")
        #expect(try a.check().isConsistent)
    }
}
