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
        #expect {
            try replica.disableSync(on: "p")
        } throws: { error in "\(error)".contains("disable sync on 'c' first") }
        try replica.disableSync(on: "c")
        try replica.disableSync(on: "p")
        #expect(replica.tables.isEmpty)
    }
}
