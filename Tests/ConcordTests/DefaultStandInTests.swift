import ConcordTestSupport
import Foundation
import Testing

@_spi(Simulation) @testable import Concord

/// A `SET DEFAULT` child whose parent went away shows its column's default, but only when that default
/// names a row that shows: otherwise the child is parked, named by the missing row.
///
/// Why: SQLite with foreign keys on refuses to delete a parent whose `SET DEFAULT` children would then
/// name no row, so an app never holds such a child. A child that arrives from another device after the
/// delete was shown anyway, naming nothing (`PRAGMA foreign_key_check` failed on every device while
/// `sync` succeeded; `check` found it). A black-box probe of the release build found it.
@Suite("SET DEFAULT stand-ins that name no row", .tags(.replica), .timeLimit(.hangGuard))
struct DefaultStandInTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    private func devices() throws -> [Replica] {
        try inMemoryReplicas(2, clock: clock) { device, _ in
            try device.database.execute(
                """
                CREATE TABLE p (id TEXT PRIMARY KEY NOT NULL, name TEXT);
                CREATE TABLE ch (id TEXT PRIMARY KEY NOT NULL,
                    pid TEXT DEFAULT 'nope' REFERENCES p(id) ON DELETE SET DEFAULT, v TEXT);
                """)
            try device.enableSync(on: "p")
            try device.enableSync(on: "ch")
        }
    }

    /// One device deletes the parent while the other adds a child to it: the child parks until the row its
    /// default names exists, then shows that default.
    @Test func aChildWhoseDefaultNamesNoRowParksUntilThatRowComes() throws {
        let devices = try devices()
        try devices[0].database.execute("INSERT INTO p VALUES ('p1', 'one')")
        _ = try Replica.sync(devices)
        try devices[0].database.execute("PRAGMA foreign_keys = ON; DELETE FROM p WHERE id = 'p1'")
        try devices[1].database.execute("PRAGMA foreign_keys = ON; INSERT INTO ch VALUES ('c2', 'p1', 'added')")
        _ = try Replica.sync(devices)
        for device in devices {
            #expect(try device.database.query("SELECT id FROM ch") == [])
            #expect(try device.parkedReasons()[RowRef(table: "ch", key: "c2")] == "missing parent p/nope")
            #expect(try device.database.query("PRAGMA foreign_key_check") == [])
            #expect(try device.check().isConsistent)
        }
        try devices[0].database.execute("INSERT INTO p VALUES ('nope', 'the default')")
        _ = try Replica.sync(devices)
        for device in devices {
            #expect(try device.database.query("SELECT id, pid, v FROM ch") == [["c2", "nope", "added"]])
            #expect(try device.check().isConsistent)
        }
    }

    /// A child showing its default parks again when the row its default names is deleted, here or on a peer.
    @Test(arguments: [0, 1])
    func aChildShowingItsDefaultParksWhenThatRowGoes(deleter: Int) throws {
        let devices = try devices()
        try devices[0].database.execute("INSERT INTO p VALUES ('p1', 'one'), ('nope', 'the default')")
        _ = try Replica.sync(devices)
        try devices[0].database.execute("DELETE FROM p WHERE id = 'p1'")
        try devices[1].database.execute("INSERT INTO ch VALUES ('c2', 'p1', 'added')")
        _ = try Replica.sync(devices)
        for device in devices { #expect(try device.database.query("SELECT pid FROM ch") == [["nope"]]) }
        try devices[deleter].database.execute("DELETE FROM p WHERE id = 'nope'")
        _ = try Replica.sync(devices)
        for device in devices {
            #expect(try device.database.query("SELECT id FROM ch") == [])
            #expect(try device.database.query("PRAGMA foreign_key_check") == [])
            #expect(try device.check().isConsistent)
        }
    }
}
