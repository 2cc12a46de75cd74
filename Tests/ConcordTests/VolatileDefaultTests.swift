import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// A column whose DEFAULT gives another value each time (`CURRENT_TIMESTAMP`, `(random())`) shows the same
/// value on every device in rows no write has set it in.
///
/// Such a row comes from a device whose schema lacks the column, or predates a rebuild that added it.
/// Each device evaluating the DEFAULT for itself would show its own value, for good, with every
/// replica's registers equal and `sync` content. Instead, the device that shows such a row first writes
/// the value it evaluated as its own write, and last-writer-wins settles it everywhere.
@Suite("DEFAULTs that change", .tags(.replica), .timeLimit(.hangGuard))
struct VolatileDefaultTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    static let older = "CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, body TEXT);"
    static let newer = """
        CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, body TEXT,
            tag TEXT NOT NULL DEFAULT (hex(randomblob(8))), made TEXT DEFAULT CURRENT_TIMESTAMP);
        """

    /// Devices 0 and 2 run the newer schema, device 1 the older one, all syncing `notes` with `policy`.
    private func devices(policy: TablePolicy) throws -> [Replica] {
        try (1...3).map { node in
            let device = try Replica.inMemory(configuration: configuration(node: UInt8(node), clock: clock))
            try device.database.execute(node == 2 ? Self.older : Self.newer)
            try device.enableSync(on: "notes", policy: policy)
            return device
        }
    }

    private func pass(_ from: Replica, _ to: Replica) throws {
        #expect(try to.apply(from.changes(since: to.peerVersion(from.nodeID))).heldBack == 0)
    }

    private func notes(_ device: Replica) throws -> [[SQLiteValue]] {
        try device.database.query("SELECT id, body, tag, made FROM notes ORDER BY id")
    }

    @Test(arguments: [TablePolicy.column, .row])
    func aRowFromAnOlderDeviceShowsOneValueEverywhere(policy: TablePolicy) throws {
        let d = try devices(policy: policy)
        try d[1].database.execute("INSERT INTO notes VALUES ('n1', 'from the older app')")
        try pass(d[1], d[0])
        clock.advance(by: 1000)
        try pass(d[1], d[2])
        try Replica.sync(d)
        let shown = try notes(d[0])
        #expect(shown.count == 1)
        #expect(shown.first?[2] != .null)
        #expect(try notes(d[2]) == shown)
        for device in d { #expect(try device.check().isConsistent) }
        #expect(try d[0].canonicalDump() == d[2].canonicalDump())
    }

    @Test func aRebuildThatAddsTheColumnSettlesOnOneValue() throws {
        let d = try (1...2).map { node in
            let device = try Replica.inMemory(configuration: configuration(node: UInt8(node), clock: clock))
            try device.database.execute(Self.older)
            try device.enableSync(on: "notes")
            return device
        }
        try d[0].database.execute("INSERT INTO notes VALUES ('n1', 'one')")
        try Replica.sync(d)
        for device in d {
            try device.database.execute(
                """
                CREATE TABLE new_notes (id TEXT PRIMARY KEY NOT NULL, body TEXT,
                    tag TEXT NOT NULL DEFAULT (hex(randomblob(8))), made TEXT DEFAULT CURRENT_TIMESTAMP);
                INSERT INTO new_notes (id, body) SELECT id, body FROM notes;
                DROP TABLE notes;
                ALTER TABLE new_notes RENAME TO notes;
                """)
            #expect(try device.check().isConsistent)
            // The second device's migration runs later: `CURRENT_TIMESTAMP` reads another time there.
            clock.advance(by: 5_000)
        }
        try Replica.sync(d)
        #expect(try notes(d[0]) == notes(d[1]))
        for device in d { #expect(try device.check().isConsistent) }
    }

    @Test func aValueANewerDeviceWroteOutlivesTheRebuildThatAddsItsColumn() throws {
        let d = try devices(policy: .column)
        try d[0].database.execute("INSERT INTO notes VALUES ('n1', 'one', 'kept', '2020-01-01 00:00:00')")
        try pass(d[0], d[1])
        clock.advance(by: 5_000)
        // The older device upgrades by rebuilding the table: the copy evaluates both DEFAULTs.
        try d[1].database.execute(
            """
            CREATE TABLE new_notes (id TEXT PRIMARY KEY NOT NULL, body TEXT,
                tag TEXT NOT NULL DEFAULT (hex(randomblob(8))), made TEXT DEFAULT CURRENT_TIMESTAMP);
            INSERT INTO new_notes (id, body) SELECT id, body FROM notes;
            DROP TABLE notes;
            ALTER TABLE new_notes RENAME TO notes;
            """)
        try Replica.sync(d)
        for device in d {
            #expect(try notes(device) == [["n1", "one", "kept", "2020-01-01 00:00:00"]])
            #expect(try device.check().isConsistent)
        }
    }
}
