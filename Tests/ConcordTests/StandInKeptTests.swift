import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// A `SET NULL` child shows NULL while its parent is deleted elsewhere, and keeps the real reference; taking
/// the table's NULL for a write replaced the reference on every device, and the child never came back to its
/// parent, `check` ok. Two ways did: sync disabled and enabled again, and a rebuild that changed the key's
/// action (SET NULL made CASCADE) copying the NULL it showed.
@Suite("Stand-ins are not writes", .tags(.replica), .timeLimit(.hangGuard))
struct StandInKeptTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)
    static let schema = """
        CREATE TABLE p (id TEXT PRIMARY KEY NOT NULL, name TEXT);
        CREATE TABLE c (id TEXT PRIMARY KEY NOT NULL, pid TEXT REFERENCES p(id) ON DELETE SET NULL, title TEXT);
        """

    /// a holds child c2 of P, which b deleted: c2 shows NULL on a.
    private func devices() throws -> (a: Replica, b: Replica) {
        let (a, b) = try (
            Replica.inMemory(configuration: configuration(node: 1, clock: clock)),
            Replica.inMemory(configuration: configuration(node: 2, clock: clock))
        )
        for replica in [a, b] {
            try replica.database.execute(Self.schema)
            try replica.enableSync(on: "p")
            try replica.enableSync(on: "c")
        }
        try a.database.execute("INSERT INTO p VALUES ('P', 'one')")
        try Replica.sync([a, b])
        try b.database.execute("DELETE FROM p WHERE id = 'P'")
        try a.database.execute("INSERT INTO c VALUES ('c2', 'P', 'two')")
        try Replica.sync([a, b])
        #expect(try a.database.query("SELECT pid FROM c") == [[.null]])
        return (a, b)
    }

    /// Once P is back, c2 shows it again on both devices.
    private func expectReattached(_ a: Replica, _ b: Replica) throws {
        clock.advance(by: 1_000)
        try Replica.sync([a, b])
        try b.database.execute("INSERT INTO p VALUES ('P', 'back')")
        try Replica.sync([a, b])
        for replica in [a, b] {
            #expect(try replica.database.query("SELECT id, pid, title FROM c") == [["c2", "P", "two"]])
            #expect(try replica.check().isConsistent)
        }
    }

    /// The app's migration: `c` rebuilt with its key made `ON DELETE CASCADE`, in one transaction.
    private func rebuildWithCascade(_ replica: Replica) throws {
        try replica.database.transaction {
            try replica.database.execute(
                """
                CREATE TABLE c_new (id TEXT PRIMARY KEY NOT NULL, pid TEXT REFERENCES p(id) ON DELETE CASCADE, title TEXT);
                INSERT INTO c_new SELECT * FROM c; DROP TABLE c; ALTER TABLE c_new RENAME TO c;
                """)
        }
    }

    @Test func disablingAndEnablingAgainKeepsTheReference() throws {
        let (a, b) = try devices()
        try a.disableSync(on: "c")
        try a.enableSync(on: "c")
        try expectReattached(a, b)
    }

    @Test func aRebuildThatMakesTheKeyCascadeKeepsTheReference() throws {
        let (a, b) = try devices()
        try rebuildWithCascade(a)
        try a.foldLocalWrites()
        // Under CASCADE the child waits hidden while its parent is gone.
        #expect(try a.database.query("SELECT id FROM c").isEmpty)
        try rebuildWithCascade(b)
        try expectReattached(a, b)
    }
}
