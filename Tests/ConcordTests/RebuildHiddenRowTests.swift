import ConcordTestSupport
import Testing

@testable import Concord

/// A table rebuild does not delete the rows the table was not showing.
///
/// A child another device added while this one deleted its parent is alive but not visible here (its
/// parent is not), so the table does not hold it, and a rebuild of the child table (create, copy, drop,
/// rename) copies only what the table held. Reinstalling capture records every row the registers hold
/// alive but the table lacks as this device's delete; a hidden row must not be among them, or the child
/// no one deleted would be deleted on every device and stay deleted when its parent came back, with
/// `check` ok. (Reconcile leaves out the rows it knows are not shown; removing that fails the first test.)
@Suite(.tags(.replica))
struct RebuildHiddenRowTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    /// Two devices with a parent row `p1`, one with foreign-key enforcement on its connection.
    private func pair(action: String) throws -> [Replica] {
        let replicas = try inMemoryReplicas(2, clock: clock) { replica, _ in
            try replica.database.execute(
                """
                CREATE TABLE parent (id TEXT PRIMARY KEY NOT NULL, name TEXT);
                CREATE TABLE child (id TEXT PRIMARY KEY NOT NULL,
                    pid TEXT REFERENCES parent(id) ON DELETE \(action), note TEXT);
                """)
            try replica.enableSync(on: "parent")
            try replica.enableSync(on: "child")
        }
        try replicas[0].database.execute("INSERT INTO parent VALUES ('p1', 'first')")
        try Replica.sync(replicas)
        return replicas
    }

    /// The child table rebuilt with a CHECK, keeping the rows `condition` keeps.
    private static func rebuild(where condition: String = "1") -> String {
        rebuildSQL(
            "child",
            columns: "id TEXT PRIMARY KEY NOT NULL, pid TEXT REFERENCES parent(id) ON DELETE CASCADE, "
                + "note TEXT CHECK (length(note) < 100)", where: condition)
    }

    @Test func aChildHiddenByItsDeletedParentComesBackWithTheParent() throws {
        let replicas = try pair(action: "CASCADE")
        clock.advance(by: 1_000)
        try replicas[1].database.execute("INSERT INTO child VALUES ('c1', 'p1', 'added concurrently')")
        try replicas[0].database.execute("DELETE FROM parent WHERE id = 'p1'")
        clock.advance(by: 1_000)
        try Replica.sync(replicas)
        #expect(try replicas[0].database.query("SELECT count(*) FROM child") == [[0]])
        // Device 0 rebuilds the child table while c1 is hidden there, then syncs.
        clock.advance(by: 1_000)
        try replicas[0].database.execute(Self.rebuild())
        clock.advance(by: 1_000)
        try Replica.sync(replicas)
        // The parent comes back: the child no one deleted comes back with it, everywhere.
        clock.advance(by: 1_000)
        try replicas[1].database.execute("INSERT INTO parent VALUES ('p1', 'again')")
        clock.advance(by: 1_000)
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(
                try replica.database.query("SELECT id, pid, note FROM child") == [["c1", "p1", "added concurrently"]])
            #expect(try replica.check().isConsistent)
        }
    }

    /// A row the rebuild really dropped is still this device's delete.
    @Test func aVisibleChildTheRebuildDroppedIsDeleted() throws {
        let replicas = try pair(action: "CASCADE")
        try replicas[1].database.execute("INSERT INTO child VALUES ('c1', 'p1', 'kept'), ('c2', 'p1', 'dropped')")
        clock.advance(by: 1_000)
        try Replica.sync(replicas)
        clock.advance(by: 1_000)
        try replicas[0].database.execute(Self.rebuild(where: "id <> 'c2'"))
        clock.advance(by: 1_000)
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(try replica.database.query("SELECT id FROM child ORDER BY id") == [["c1"]])
            #expect(try replica.check().isConsistent)
        }
    }
}
