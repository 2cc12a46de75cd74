import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// A synced table may be named `excluded`, the name SQLite gives the new row in an upsert.
///
/// The simulator's wide app, drawing table names, found it
/// (`Simulations/regressions/excluded-table-kept-stand-in.json`): Concord writes a shown row with
/// `INSERT … ON CONFLICT DO UPDATE SET c = excluded.c`, and in a table named `excluded` that named
/// the table's own row, so the update changed nothing. A note kept showing NULL for a place that had
/// come back, and merged values never reached the table.
@Suite(.tags(.replica))
struct ExcludedTableNameTests {
    @Test func mergedValuesReachATableNamedExcluded() throws {
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let replicas = try (1...2 as ClosedRange<UInt8>).map { id in
            let replica = try Replica.inMemory(configuration: configuration(node: id, clock: clock))
            try replica.database.execute(
                """
                CREATE TABLE places (id TEXT PRIMARY KEY NOT NULL, label);
                CREATE TABLE "excluded" (id TEXT PRIMARY KEY NOT NULL,
                    place REFERENCES places(id) ON DELETE SET NULL, body);
                """)
            try replica.enableSync(on: "places")
            try replica.enableSync(on: "excluded")
            return replica
        }
        try replicas[0].database.execute(#"INSERT INTO "excluded" VALUES ('n', 'p', 'a')"#)
        try Replica.sync(replicas)
        #expect(try replicas[1].database.query(#"SELECT * FROM "excluded""#) == [["n", .null, "a"]])
        clock.advance(by: 10)
        try replicas[0].database.execute(#"UPDATE "excluded" SET body = 'b' WHERE id = 'n'"#)
        try replicas[1].database.execute("INSERT INTO places VALUES ('p', 'x')")
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(try replica.database.query(#"SELECT * FROM "excluded""#) == [["n", "p", "b"]])
            #expect(try replica.check().isConsistent)
        }
    }
}
