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
        try (1...2).map { node in
            let device = try Replica.inMemory(configuration: configuration(node: UInt8(node), clock: clock))
            try device.database.execute(
                "CREATE TABLE r (id TEXT PRIMARY KEY NOT NULL, title TEXT, n INTEGER DEFAULT 0)")
            try device.enableSync(on: "r", merges: ["n": .counter])
            return device
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
}
