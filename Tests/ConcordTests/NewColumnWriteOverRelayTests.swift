import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// A value the app writes to a column its migration just added, before Concord looks, is this device's
/// newest write, even where a peer that migrated first already wrote the column.
///
/// The peer's value, kept while this device lacked the column, is shown when the column is adopted,
/// which replaced the table's value before the app's write was read back for stamping: the app's 9,
/// written after the peer's 3, became 3 on both devices with a fresh stamp.
@Suite("A new column's write over a relayed value", .tags(.replica), .timeLimit(.hangGuard))
struct NewColumnWriteOverRelayTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    @Test func theAppsWriteInTheMigrationWinsOverTheOlderRelayedValue() throws {
        let devices = try (1...2).map { node in
            let device = try Replica.inMemory(configuration: configuration(node: UInt8(node), clock: clock))
            try device.database.execute("CREATE TABLE r (id TEXT PRIMARY KEY NOT NULL, title TEXT)")
            try device.enableSync(on: "r")
            return device
        }
        let (late, early) = (devices[0], devices[1])
        try late.database.execute("INSERT INTO r VALUES ('r1', 'one')")
        _ = try Replica.sync(devices)
        try early.database.execute("ALTER TABLE r ADD COLUMN prio INTEGER DEFAULT 0; UPDATE r SET prio = 3")
        _ = try Replica.sync(devices)
        clock.advance(by: 1_000)
        try late.database.transaction {
            try late.database.execute("ALTER TABLE r ADD COLUMN prio INTEGER DEFAULT 0")
            try late.database.execute("UPDATE r SET prio = 9 WHERE id = 'r1'")
        }
        _ = try Replica.sync(devices)
        for device in devices {
            #expect(try device.database.scalar("SELECT prio FROM r") == 9)
            #expect(try device.check().isConsistent)
        }
    }
}
