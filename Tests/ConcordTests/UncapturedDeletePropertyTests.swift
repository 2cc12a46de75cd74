import ConcordTestSupport
import ConcordTesting
import Foundation
import Testing

@testable import Concord

/// Rows SQLite deletes without firing a delete trigger — `INSERT OR REPLACE` colliding under a UNIQUE index
/// the app makes and drops again between two of Concord's looks — are deleted on every device, whatever
/// the writes around them and wherever the folds and syncs fall.
///
/// One device writes, so after a sync every device must show exactly the table its app left: any row
/// that came back (with its values, or with NULLs), or went missing, fails. The histories mix inserts,
/// updates (of the UNIQUE column too), deletes and replaces of rows written since the last fold and of
/// rows folded long ago, over few keys and few values, so that replaces collide often.
@Suite(.tags(.replica, .property))
struct UncapturedDeletePropertyTests {
    private static let schema =
        "CREATE TABLE people (id TEXT PRIMARY KEY NOT NULL, email TEXT, name TEXT, n INTEGER NOT NULL DEFAULT 0)"

    private static func people(_ replica: Replica) throws -> [[SQLiteValue]] {
        try replica.database.query("SELECT id, email, name, n FROM people ORDER BY id")
    }

    @Test func propertyEveryDeviceShowsTheSingleWritersTable() throws {
        try Property.check(seed: 0xDE1E7E, iterations: 150) { source in
            let clock = ManualClock(unixMilliseconds: epoch2026)
            let replicas = try (1...2 as ClosedRange<UInt8>).map { id in
                let replica = try Replica.inMemory(configuration: configuration(node: id, clock: clock))
                try replica.database.execute(Self.schema)
                try replica.enableSync(on: "people", merges: ["n": .counter])
                return replica
            }
            let writer = replicas[0]
            for _ in 0..<source.int(in: 1...16) {
                clock.advance(by: 1)
                let (key, email, name) = (
                    "p\(source.int(in: 1...4))", "e\(source.int(in: 1...3))", "v\(source.int(in: 0...9))"
                )
                let statement: String
                switch source.index(weights: [3, 2, 1, 1, 3, 1, 1]) {
                case 0: statement = "INSERT OR IGNORE INTO people VALUES ('\(key)', '\(email)', '\(name)', 0)"
                case 1: statement = "UPDATE people SET email = '\(email)', n = n + 1 WHERE id = '\(key)'"
                case 2: statement = "UPDATE people SET name = '\(name)' WHERE id = '\(key)'"
                case 3: statement = "DELETE FROM people WHERE id = '\(key)'"
                case 4:
                    statement = """
                        SAVEPOINT replace;
                        CREATE UNIQUE INDEX people_email ON people (email);
                        INSERT OR REPLACE INTO people (id, email, name) VALUES ('\(key)', '\(email)', '\(name)');
                        DROP INDEX people_email;
                        RELEASE replace;
                        """
                case 5:
                    source.note("fold")
                    try writer.foldLocalWrites()
                    continue
                default:
                    source.note("sync")
                    try Replica.sync(replicas)
                    continue
                }
                source.note(statement.replacingOccurrences(of: "\n", with: " "))
                do {
                    try writer.database.execute(statement)
                } catch let error as SQLiteError where error.code == 19 {
                    // Emails already repeated: the index cannot be made, and the replace does not happen.
                    if !writer.database.inTransaction { continue }
                    try writer.database.execute("ROLLBACK TO replace; RELEASE replace")
                }
            }
            clock.advance(by: 1)
            let expected = try Self.people(writer)
            try Replica.sync(replicas)
            for (index, replica) in replicas.enumerated() {
                let shown = try Self.people(replica)
                try Property.require(shown == expected, "device \(index) shows \(shown), the app left \(expected)")
                let report = try replica.check()
                try Property.require(report.isConsistent, "device \(index): \(report)")
            }
        }
    }
}
