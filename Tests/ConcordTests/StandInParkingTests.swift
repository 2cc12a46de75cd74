import ConcordTestSupport
import Testing

@testable import Concord

/// Rows whose `SET NULL` keys name other rows show the same on every device, whatever order the rows
/// arrived in: a loop such a key closes is no cycle, and a row a stand-in kept from showing shows again
/// with its parent.
///
/// Before, a root whose `buddy` (`SET NULL`) named its own grandchild hid the grandchild "on a cycle" and
/// showed NULL for its buddy on the device it synced to, and a `NOT NULL` child parked while its `SET NULL`
/// parent was deleted stayed parked after the parent came back on every device that had seen the delete,
/// while a new device showed it: `check` was ok everywhere.
@Suite(.tags(.replica))
struct StandInParkingTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    private func replicas(_ count: Int, schema: String, tables: [String]) throws -> [Replica] {
        try inMemoryReplicas(count, clock: clock) { replica, _ in
            try replica.database.execute(schema)
            for table in tables { try replica.enableSync(on: table) }
        }
    }

    private func rows(_ replica: Replica, _ table: String) throws -> [[SQLiteValue]] {
        try replica.database.query("SELECT * FROM \(table) ORDER BY id")
    }

    /// Every replica shows `expected` in `table`, parks nothing and is consistent.
    private func expectShown(_ replicas: [Replica], _ table: String, _ expected: [[SQLiteValue]]) throws {
        for (index, replica) in replicas.enumerated() {
            #expect(try rows(replica, table) == expected, "replica \(index)")
            #expect(try replica.parked().isEmpty, "replica \(index)")
            #expect(try replica.check().isConsistent, "replica \(index)")
        }
    }

    @Test func aSetNullKeyNamingAGrandchildShowsEveryRowOnEveryDevice() throws {
        let devices = try replicas(
            3,
            schema: """
                CREATE TABLE n (id TEXT PRIMARY KEY, parent TEXT REFERENCES n(id) ON DELETE CASCADE,
                    buddy TEXT REFERENCES n(id) ON DELETE SET NULL, name TEXT)
                """, tables: ["n"])
        try devices[0].database.execute(
            """
            PRAGMA foreign_keys = ON;
            INSERT INTO n VALUES ('r', NULL, NULL, 'R'), ('x', 'r', NULL, 'X'), ('y', 'x', NULL, 'Y');
            """)
        // Device 1 gets the tree first and the buddy later; device 2 gets them together.
        try Replica.sync(Array(devices[0...1]))
        clock.advance(by: 10)
        try devices[0].database.execute("UPDATE n SET buddy = 'y' WHERE id = 'r'")
        try Replica.sync(devices)
        let tree: [[SQLiteValue]] = [["r", .null, "y", "R"], ["x", "r", .null, "X"], ["y", "x", .null, "Y"]]
        try expectShown(devices, "n", tree)
        // An edit of another row decides the loop's rows again, in another order.
        clock.advance(by: 10)
        try devices[1].database.execute("UPDATE n SET name = 'X2' WHERE id = 'x'")
        try Replica.sync(devices)
        try expectShown(
            devices, "n", [["r", .null, "y", "R"], ["x", "r", .null, "X2"], ["y", "x", .null, "Y"]])
    }

    @Test func aNotNullChildParkedForItsDeletedParentShowsWhenTheParentComesBack() throws {
        let schema = """
            CREATE TABLE p (id TEXT PRIMARY KEY, name TEXT);
            CREATE TABLE d (id TEXT PRIMARY KEY, pid TEXT NOT NULL REFERENCES p(id) ON DELETE SET NULL, v TEXT);
            """
        let devices = try replicas(2, schema: schema, tables: ["p", "d"])
        try devices[0].database.execute(
            "INSERT INTO p VALUES ('p1', 'one'); INSERT INTO d VALUES ('d1', 'p1', 'child')")
        try Replica.sync(devices)
        clock.advance(by: 10)
        try devices[0].database.execute("DELETE FROM p WHERE id = 'p1'")
        try Replica.sync(devices)
        for replica in devices {
            #expect(try replica.parked().map(\.reason) == ["cannot be shown: NOT NULL constraint failed: d.pid"])
        }
        clock.advance(by: 10)
        try devices[0].database.execute("INSERT INTO p VALUES ('p1', 'again')")
        try Replica.sync(devices)
        // A device that never saw the delete shows the same.
        let fresh = try Replica.inMemory(configuration: configuration(node: 3, clock: clock))
        try fresh.database.execute(schema)
        for table in ["p", "d"] { try fresh.enableSync(on: table) }
        try Replica.sync([devices[0], fresh])
        try expectShown(devices + [fresh], "d", [["d1", "p1", "child"]])
    }
}
