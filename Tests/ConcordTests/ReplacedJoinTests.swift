import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// `INSERT OR REPLACE` of a row the app holds joins its `max`, `min` and `union` columns with what the
/// row held, as an UPDATE of the row does.
///
/// SQLite's REPLACE deletes the old row without firing delete triggers, so the insert trigger never
/// saw the values it replaced: the fold joined the new value with itself. A `max` of 10 saved again as
/// 5 (as ORMs save records) showed 5 on every device, and a `union` lost the elements the save did not
/// repeat, while the reference model — and an UPDATE — kept them.
@Suite("INSERT OR REPLACE of a value-merged row", .tags(.replica), .timeLimit(.hangGuard))
struct ReplacedJoinTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    private func devices(_ setup: String = "") throws -> [Replica] {
        try (1...2).map { node in
            let device = try Replica.inMemory(configuration: configuration(node: UInt8(node), clock: clock))
            try device.database.execute(
                "CREATE TABLE scores (id TEXT PRIMARY KEY NOT NULL, best, low, tags TEXT, label); \(setup)")
            try device.enableSync(on: "scores", merges: ["best": .max, "low": .min, "tags": .union])
            return device
        }
    }

    static func rows(_ device: Replica) throws -> [[SQLiteValue]] {
        try device.database.query("SELECT id, best, low, tags, label FROM scores ORDER BY id")
    }

    @Test(arguments: ["", "PRAGMA recursive_triggers = ON;"])
    func aReplacedRowKeepsWhatItsJoinsHeld(setup: String) throws {
        let devices = try devices(setup)
        try devices[0].database.execute(#"INSERT INTO scores VALUES ('s1', 10, 3, '["a"]', 'first')"#)
        _ = try devices[0].foldLocalWrites()
        try devices[0].database.execute(
            #"INSERT OR REPLACE INTO scores VALUES ('s1', 5, 7, '["b"]', 'saved'), ('s2', 1, 1, '[]', 'new')"#)
        _ = try Replica.sync(devices)
        for device in devices {
            #expect(
                try Self.rows(device) == [
                    ["s1", 10, 3, #"["a","b"]"#, "saved"], ["s2", 1, 1, "[]", "new"],
                ])
            #expect(try device.check().isConsistent)
        }
    }

    /// Two saves after a fold, and an upsert that updated (leaving the kept row behind) before an
    /// insert of another key: each insert joins with the row it replaced, and only that one.
    @Test func savesBetweenFoldsJoinWithTheRowEachReplaced() throws {
        let device = try devices()[0]
        try device.database.execute(#"INSERT INTO scores VALUES ('s1', 10, 3, '["a"]', 'first')"#)
        _ = try device.foldLocalWrites()
        try device.database.execute(
            #"""
            INSERT OR REPLACE INTO scores VALUES ('s1', 5, 7, '["b"]', 'second');
            INSERT OR REPLACE INTO scores VALUES ('s1', 6, 8, '["c"]', 'third');
            INSERT INTO scores VALUES ('s1', 99, 0, '["z"]', 'upsert') ON CONFLICT DO UPDATE SET label = 'upserted';
            INSERT INTO scores VALUES ('s3', 2, 2, '["d"]', 'other');
            """#)
        _ = try device.foldLocalWrites()
        #expect(
            try Self.rows(device) == [
                ["s1", 10, 3, #"["a","b","c"]"#, "upserted"], ["s3", 2, 2, #"["d"]"#, "other"],
            ])
        #expect(try device.database.scalar("SELECT count(*) FROM _concord_1_logvalues") == .integer(0))
        #expect(try device.check().isConsistent)
    }
}
