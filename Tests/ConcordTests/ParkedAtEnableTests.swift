import ConcordTestSupport
import Testing

@testable import Concord

/// Rows a table holds when sync is enabled on it that cannot show — a child of a missing parent, rows on a
/// cycle of references, both written while the app left foreign keys off — are parked by `enableSync`, as
/// every device that receives them parks them.
///
/// Before, they were recorded as shown: `check` failed right after the enable, nothing was listed as parked,
/// and a peer hid the rows the enabling device still showed.
@Suite(.tags(.replica))
struct ParkedAtEnableTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)
    static let schema = """
        CREATE TABLE p (id TEXT PRIMARY KEY, v TEXT);
        CREATE TABLE c (id TEXT PRIMARY KEY, pid TEXT REFERENCES p(id) ON DELETE CASCADE, v TEXT);
        CREATE TABLE n (id TEXT PRIMARY KEY, parent TEXT REFERENCES n(id) ON DELETE CASCADE, v TEXT);
        CREATE TABLE s (id TEXT PRIMARY KEY, pid TEXT REFERENCES p(id) ON DELETE SET NULL);
        """

    @Test func orphansAndCyclesAreParkedAtEnableAndEveryDeviceShowsTheSame() throws {
        let devices = try inMemoryReplicas(2, clock: clock) { replica, index in
            try replica.database.execute(Self.schema)
            if index == 0 {
                try replica.database.execute(
                    """
                    INSERT INTO p VALUES ('p1', 'P');
                    INSERT INTO c VALUES ('c1', 'p1', 'kept'), ('c2', 'ghost', 'orphan');
                    INSERT INTO n VALUES ('a', 'b', 'A'), ('b', 'a', 'B'), ('r', NULL, 'R');
                    INSERT INTO s VALUES ('s1', 'ghost');
                    """)
            }
            for table in ["p", "c", "n", "s"] { try replica.enableSync(on: table) }
        }
        let parked = [
            "c c2: missing parent p/ghost", "n a: on a cycle through n/b", "n b: on a cycle through n/a",
        ]
        #expect(try devices[0].parked().map { "\($0.table) \($0.key): \($0.reason)" } == parked)
        #expect(try devices[0].check().isConsistent)
        try Replica.sync(devices)
        for device in devices {
            #expect(try device.database.query("SELECT id FROM c ORDER BY id") == [["c1"]])
            #expect(try device.database.query("SELECT id FROM n ORDER BY id") == [["r"]])
            // A SET NULL child of a missing parent shows NULL there, and keeps the reference.
            #expect(try device.database.query("SELECT id, pid FROM s") == [["s1", .null]])
            #expect(try device.parked().map { "\($0.table) \($0.key): \($0.reason)" } == parked)
            #expect(try device.check().isConsistent)
        }
        try devices[1].database.execute("INSERT INTO p VALUES ('ghost', 'found')")
        try Replica.sync(devices)
        for device in devices {
            #expect(try device.database.query("SELECT id FROM c ORDER BY id") == [["c1"], ["c2"]])
            #expect(try device.database.query("SELECT id, pid FROM s") == [["s1", "ghost"]])
        }
    }

    /// A `RESTRICT` child the app wrote while sync was off, under a parent a peer deleted meanwhile, brings
    /// the parent back when sync is enabled again, here as on the peer (here it stayed deleted, the child
    /// showing with a dangling key and `check` failing).
    @Test func aRestrictChildWrittenWhileSyncWasOffBringsBackItsDeletedParent() throws {
        let devices = try inMemoryReplicas(2, clock: clock) { replica, _ in
            try replica.database.execute(
                """
                CREATE TABLE p (id TEXT PRIMARY KEY, v TEXT);
                CREATE TABLE r (id TEXT PRIMARY KEY, pid TEXT REFERENCES p(id) ON DELETE RESTRICT);
                """)
            for table in ["p", "r"] { try replica.enableSync(on: table) }
        }
        try devices[0].database.execute("INSERT INTO p VALUES ('p1', 'one')")
        try Replica.sync(devices)
        for table in ["r", "p"] { try devices[1].disableSync(on: table) }
        clock.advance(by: 10)
        try devices[0].database.execute("DELETE FROM p WHERE id = 'p1'")
        try Replica.sync(devices)
        clock.advance(by: 10)
        try devices[1].database.execute("INSERT INTO r VALUES ('r1', 'p1')")
        for table in ["p", "r"] { try devices[1].enableSync(on: table) }
        try Replica.sync(devices)
        for device in devices {
            #expect(try device.database.query("SELECT id, v FROM p") == [["p1", "one"]])
            #expect(try device.database.query("SELECT id, pid FROM r") == [["r1", "p1"]])
            #expect(try device.check().isConsistent)
        }
    }
}
