import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// `INSERT OR REPLACE` of a row the app holds writes its counter's whole value, as an update would.
///
/// SQLite's REPLACE deletes the old row without firing delete triggers, so Concord sees an insert of a
/// row still alive. It used to add the inserted value to what the counter held: 5 replaced by 7 showed
/// 12 on every device, and an ORM saving an unchanged row this way added its value again at each fold.
@Suite("INSERT OR REPLACE of a counter row", .tags(.replica), .timeLimit(.hangGuard))
struct CounterReplaceTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    private func devices() throws -> [Replica] {
        try inMemoryReplicas(2, clock: clock) { device, _ in
            try device.database.execute(
                "CREATE TABLE r (id TEXT PRIMARY KEY NOT NULL, title TEXT, n INTEGER DEFAULT 0)")
            try device.enableSync(on: "r", merges: ["n": .counter])
        }
    }

    @Test func aReplacedRowShowsTheCountItWroteEverywhere() throws {
        let devices = try devices()
        try devices[0].database.execute("INSERT INTO r VALUES ('r1', 'milk', 5)")
        _ = try Replica.sync(devices)
        try devices[0].database.execute("INSERT OR REPLACE INTO r (id, title, n) VALUES ('r1', 'MILK', 7)")
        try devices[1].database.execute("UPDATE r SET n = n + 3 WHERE id = 'r1'")
        _ = try Replica.sync(devices)
        for device in devices {
            #expect(try device.database.query("SELECT title, n FROM r") == [["MILK", 10]])
            #expect(try device.check().isConsistent)
        }
    }

    @Test func savingAnUnchangedRowAgainAndAgainKeepsItsCount() throws {
        let device = try devices()[0]
        try device.database.execute("INSERT INTO r VALUES ('r1', 'one', 5)")
        for _ in 1...3 {
            try device.database.execute("INSERT OR REPLACE INTO r VALUES ('r1', 'one', 5)")
            _ = try device.foldLocalWrites()
            #expect(try device.database.scalar("SELECT n FROM r") == 5)
        }
        #expect(try device.check().isConsistent)
    }

    /// How the app replaces row `r1` (holding 2) with one holding 7, in one statement: SQLite deletes the old
    /// row with its triggers firing, then inserts, as a DELETE and an INSERT would.
    static let replacements: [(setUp: String, write: String)] = [
        ("PRAGMA recursive_triggers = ON", "REPLACE INTO r (id, title, n) VALUES ('r1', 'A', 7)"),
        ("PRAGMA recursive_triggers = ON", "INSERT OR REPLACE INTO r (id, title, n) VALUES ('r1', 'A', 7)"),
        (
            "CREATE TRIGGER app_replaces BEFORE INSERT ON r BEGIN DELETE FROM r WHERE id = NEW.id; END",
            "INSERT INTO r (id, title, n) VALUES ('r1', 'A', 7)"
        ),
    ]

    /// A row deleted and inserted again by one statement starts a new life, as by two: the count restarts
    /// from the value inserted, everywhere. (It showed the difference, 7 - 2 = 5, once folded.)
    @Test(arguments: replacements.indices)
    func aStatementThatDeletesAndInsertsTheRowRestartsItsCount(case index: Int) throws {
        let (setUp, write) = Self.replacements[index]
        let devices = try devices()
        try devices[0].database.execute("INSERT INTO r VALUES ('r1', 'a', 2)")
        _ = try Replica.sync(devices)
        try devices[0].database.execute(setUp)
        try devices[0].database.execute(write)
        #expect(try devices[0].database.scalar("SELECT n FROM r") == 7, "SQLite's own result")
        _ = try Replica.sync(devices)
        for device in devices {
            #expect(try device.database.query("SELECT title, n FROM r") == [["A", 7]])
            #expect(try device.check().isConsistent)
        }
    }

    /// The app trigger created before sync was enabled fires after Concord's own BEFORE INSERT trigger (SQLite
    /// fires the newest first), which then still sees the row the insert replaces.
    @Test func anAppTriggerOlderThanConcordsDeletingTheRowRestartsItsCount() throws {
        let device = try Replica.inMemory(configuration: configuration(node: 1, clock: clock))
        try device.database.execute(
            """
            CREATE TABLE r (id TEXT PRIMARY KEY NOT NULL, title TEXT, n INTEGER DEFAULT 0);
            CREATE TRIGGER app_replaces BEFORE INSERT ON r BEGIN DELETE FROM r WHERE id = NEW.id; END;
            """)
        try device.enableSync(on: "r", merges: ["n": .counter])
        try device.database.execute("INSERT INTO r VALUES ('r1', 'a', 2)")
        _ = try device.foldLocalWrites()
        try device.database.execute("INSERT INTO r VALUES ('r1', 'A', 7)")
        _ = try device.foldLocalWrites()
        #expect(try device.database.query("SELECT title, n FROM r") == [["A", 7]])
        #expect(try device.check().isConsistent)
    }
}
