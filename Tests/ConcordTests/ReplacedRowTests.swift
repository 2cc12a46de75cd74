import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// `INSERT OR REPLACE` deletes the rows a UNIQUE index collides with without firing their delete triggers,
/// so Concord never heard of those deletes: the device lost the row, every peer kept it, `sync` said it
/// had merged everything, and the peers' `check` said ok.
///
/// Enabling sync refuses a table with such an index; these are the ways an app reaches one anyway.
@Suite(.tags(.replica))
struct ReplacedRowTests {
    private let clock = ManualClock(unixMilliseconds: epoch2026)

    private static let schema = "CREATE TABLE people (id TEXT PRIMARY KEY NOT NULL, email TEXT, name TEXT)"

    private func replicas() throws -> [Replica] {
        try (1...2 as ClosedRange<UInt8>).map { id in
            let replica = try Replica.inMemory(configuration: configuration(node: id, clock: clock))
            try replica.database.execute(Self.schema)
            try replica.enableSync(on: "people")
            return replica
        }
    }

    private func people(_ replica: Replica) throws -> [[SQLiteValue]] {
        try replica.database.query("SELECT id, email, name FROM people ORDER BY id")
    }

    private static let twoPeople = """
        INSERT INTO people VALUES ('p1', 'ann@x', 'Ann');
        INSERT INTO people VALUES ('p2', 'bob@x', 'Bob');
        """

    /// A row `REPLACE` took the place of, while an index lived between two folds, is deleted on every device.
    @Test func aRowReplacedWhileAUniqueIndexLivedBetweenFoldsIsDeletedEverywhere() throws {
        let replicas = try replicas()
        try replicas[0].database.execute(Self.twoPeople)
        try Replica.sync(replicas)
        clock.advance(by: 10)
        try replicas[0].database.execute(
            """
            CREATE UNIQUE INDEX people_email ON people (email);
            INSERT OR REPLACE INTO people VALUES ('p3', 'ann@x', 'Ann B');
            DROP INDEX people_email;
            """)
        try Replica.sync(replicas)
        let expected: [[SQLiteValue]] = [["p2", "bob@x", "Bob"], ["p3", "ann@x", "Ann B"]]
        for replica in replicas {
            #expect(try people(replica) == expected)
            let report = try replica.check()
            #expect(report.isConsistent, "\(report)")
        }
    }

    /// A row written since the last fold has no registers for the sweep to find: its insert waits in the log,
    /// and without its delete the fold made it alive with nothing in the table (`check` said "visible but not
    /// shown", every peer showed it with NULL values, and a peer's later edit would bring it back).
    @Test func aRowInsertedSinceTheLastFoldAndReplacedIsDeletedEverywhere() throws {
        let replicas = try replicas()
        try replicas[0].database.execute(Self.twoPeople)
        try Replica.sync(replicas)
        clock.advance(by: 10)
        try replicas[0].database.execute(
            """
            INSERT INTO people VALUES ('p4', 'cy@x', 'Cy');
            UPDATE people SET name = 'Bob B' WHERE id = 'p2';
            CREATE UNIQUE INDEX people_email ON people (email);
            INSERT OR REPLACE INTO people VALUES ('p5', 'cy@x', 'Cy B');
            INSERT OR REPLACE INTO people VALUES ('p6', 'bob@x', 'Bob C');
            DROP INDEX people_email;
            """)
        try Replica.sync(replicas)
        let expected: [[SQLiteValue]] = [["p1", "ann@x", "Ann"], ["p5", "cy@x", "Cy B"], ["p6", "bob@x", "Bob C"]]
        for replica in replicas {
            #expect(try people(replica) == expected)
            let report = try replica.check()
            #expect(report.isConsistent, "\(report)")
        }
        let p4 = try #require(try replicas[1].registers(of: "people", key: "p4"))
        #expect(!p4.liveness.isAlive, "the peer holds p4 deleted")
    }

    /// A migration that adds a UNIQUE index stops the table, as enabling would have refused it; dropping the
    /// index lets it sync again, and what `REPLACE` deleted meanwhile goes out as a delete.
    @Test func aUniqueIndexAddedByAMigrationStopsTheTableUntilItIsDropped() throws {
        let replicas = try replicas()
        try replicas[0].database.execute(Self.twoPeople)
        try Replica.sync(replicas)
        clock.advance(by: 10)
        try replicas[0].database.execute("CREATE UNIQUE INDEX people_email ON people (email)")
        try replicas[0].foldLocalWrites()
        let refusal = try #require(replicas[0].schemaRefusals.first)
        #expect("\(refusal)".contains("UNIQUE constraint besides its primary key (index people_email)"))
        #expect("\(refusal)".contains("INSERT OR REPLACE deletes the rows it collides with"))
        try replicas[0].database.execute("INSERT OR REPLACE INTO people VALUES ('p3', 'ann@x', 'Ann B')")
        try Replica.sync(replicas)
        #expect(
            try people(replicas[1]) == [["p1", "ann@x", "Ann"], ["p2", "bob@x", "Bob"]], "nothing left meanwhile")

        try replicas[0].database.execute("DROP INDEX people_email")
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(replica.schemaRefusals.isEmpty)
            #expect(try people(replica) == [["p2", "bob@x", "Bob"], ["p3", "ann@x", "Ann B"]])
            let report = try replica.check()
            #expect(report.isConsistent, "\(report)")
        }
    }

    /// Another process (the `sqlite3` shell, a migration tool) makes the index, replaces and drops it while no
    /// replica is open: the schema version the last sweep saw is kept in the file, so the next open sees it.
    @Test func anotherProcessReplacingRowsIsSeenWhenTheReplicaOpensAgain() throws {
        let directory = TemporaryDirectory()
        let path = directory.path("people.sqlite")
        let peer = try Replica.inMemory(configuration: configuration(node: 2, clock: clock))
        try peer.database.execute(Self.schema)
        try peer.enableSync(on: "people")
        do {
            let replica = try Replica(path: path, configuration: configuration(node: 1, clock: clock))
            try replica.database.execute(Self.schema)
            try replica.enableSync(on: "people")
            try replica.database.execute(Self.twoPeople)
            try peer.apply(try replica.changes())
            try replica.foldLocalWrites()
        }
        do {
            // Its `'now'` reads the test's clock, as the replica's does (the default VFS would read the real one).
            let clock = clock
            let app = try Database(path: path, vfs: ReplicaVFS(unixMilliseconds: { clock.unixMilliseconds() }))
            try app.execute(
                """
                CREATE UNIQUE INDEX people_email ON people (email);
                INSERT OR REPLACE INTO people VALUES ('p3', 'ann@x', 'Ann B');
                DROP INDEX people_email;
                """)
        }
        clock.advance(by: 10)
        let replica = try Replica(path: path, configuration: configuration(node: 1, clock: clock))
        try Replica.sync([replica, peer])
        for replica in [replica, peer] {
            #expect(try people(replica) == [["p2", "bob@x", "Bob"], ["p3", "ann@x", "Ann B"]])
            let report = try replica.check()
            #expect(report.isConsistent, "\(report)")
        }
    }

    /// Enabling sync still refuses a table that has the index, naming it.
    @Test func enablingSyncOnATableWithAUniqueIndexIsRefused() throws {
        let replica = try Replica.inMemory(configuration: configuration(node: 1, clock: clock))
        try replica.database.execute(Self.schema + "; CREATE UNIQUE INDEX people_email ON people (email)")
        #expect {
            try replica.enableSync(on: "people")
        } throws: { error in
            "\(error)".contains("index people_email") && "\(error)".contains("INSERT OR REPLACE")
        }
    }
}
