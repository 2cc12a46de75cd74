import ConcordTestSupport
import Testing

@testable import Concord

/// A child finds its parent as SQLite does: the child's value under the parent key's affinity.
///
/// SQLite compares a foreign-key value with the parent key after applying the parent column's
/// affinity, so an INTEGER column holding `1` references the TEXT key `'1'` — and so does a NUMERIC
/// column the app wrote `'12'` into, which SQLite stores as the integer `12`. A black-box probe found Concord looking the parent
/// up by the raw value: the child was parked "missing parent" on every device and vanished from its
/// table while `check` said ok.
@Suite(.tags(.replica))
struct ForeignKeyAffinityTests {
    /// Two replicas of a parent and child table with the given column types, foreign keys enforced.
    static func pair(parentKey: String, childColumn: String, action: String = "CASCADE") throws -> [Replica] {
        let clock = ManualClock(unixMilliseconds: epoch2026)
        return try (1...2).map { node in
            let replica = try Replica.inMemory(configuration: configuration(node: UInt8(node), clock: clock))
            try replica.database.execute(
                """
                PRAGMA foreign_keys = ON;
                CREATE TABLE parents (id \(parentKey) PRIMARY KEY NOT NULL, label);
                CREATE TABLE children (id TEXT PRIMARY KEY NOT NULL,
                    parent \(childColumn) REFERENCES parents(id) ON DELETE \(action), body);
                """)
            try replica.enableSync(on: "parents")
            try replica.enableSync(on: "children")
            return replica
        }
    }

    static func children(_ replica: Replica) throws -> [String] {
        try replica.database.query("SELECT id, quote(parent) FROM children ORDER BY id").map {
            "\($0[0].textValue ?? "?")=\($0[1].textValue ?? "?")"
        }
    }

    @Test(arguments: [
        ("TEXT", "INTEGER", "'1'", "1"),
        ("TEXT", "REAL", "'1.5'", "1.5"),
        ("TEXT", "", "'7'", "7"),
        ("TEXT", "NUMERIC", "'12'", "'12'"),
    ])
    func aChildWhoseValueMatchesUnderTheParentsAffinityShows(
        parentKey: String, childColumn: String, parentValue: String, childValue: String
    ) throws {
        let replicas = try Self.pair(parentKey: parentKey, childColumn: childColumn)
        let phone = replicas[0]
        try phone.database.execute(
            """
            INSERT INTO parents VALUES (\(parentValue), 'p');
            INSERT INTO children VALUES ('c', \(childValue), 'b');
            """)
        let written = try Self.children(phone)
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(try Self.children(replica) == written, "node \(replica.nodeID)")
            #expect(try replica.status().parked.isEmpty)
            #expect(try replica.check().isConsistent)
        }
    }

    @Test(arguments: ["CASCADE", "RESTRICT"], ["INTEGER", "TEXT"])
    func aDeleteOfTheParentReachesAChildThatMatchesUnderItsAffinity(action: String, childColumn: String) throws {
        let replicas = try Self.pair(parentKey: "TEXT", childColumn: childColumn, action: action)
        try replicas[0].database.execute(
            "INSERT INTO parents VALUES ('1', 'p'); INSERT INTO children VALUES ('c', 1, 'b')")
        try Replica.sync(replicas)
        // The laptop deletes the child then the parent; the phone, meanwhile, does nothing.
        try replicas[1].database.execute("DELETE FROM children; DELETE FROM parents")
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(try Self.children(replica) == [])
            #expect(try replica.database.scalar("SELECT count(*) FROM parents") == .integer(0))
            #expect(try replica.check().isConsistent)
        }
    }

    @Test func aChildWrittenAfterTheParentsDeleteBringsItBackThroughItsAffinity() throws {
        let replicas = try Self.pair(parentKey: "TEXT", childColumn: "INTEGER", action: "RESTRICT")
        try replicas[0].database.execute("INSERT INTO parents VALUES ('1', 'p')")
        try Replica.sync(replicas)
        try replicas[0].database.execute("DELETE FROM parents")
        try replicas[1].database.execute("INSERT INTO children VALUES ('c', 1, 'b')")
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(try Self.children(replica) == ["c=1"])
            #expect(try replica.database.scalar("SELECT quote(id) FROM parents") == "'1'")
            #expect(try replica.check().isConsistent)
        }
    }

    /// The reference model finds parents with ``ForeignKey/parentKey(of:)`` alone, so its printing of
    /// numbers must be SQLite's own, extremes included.
    @Test func thePureRuleNamesTheKeySQLiteNames() throws {
        let database = try Database.inMemory()
        let key = ForeignKey(child: "c", column: 0, parent: "p", action: .cascade, parentKeyIsText: true)
        let reals: [Double] = [
            0, -0.0, 1, 1.5, -2.25, 0.1, 1.0 / 3, 1e15, 1e14, 1e20, 1e-7, 1.234_567_890_123_456_8e17, .infinity,
            -.infinity, .greatestFiniteMagnitude, .leastNonzeroMagnitude, 9_007_199_254_740_992, 2.5e-300,
        ]
        let values = reals.map(SQLiteValue.real) + [Int64.min, -1, 0, 7, Int64.max].map(SQLiteValue.integer)
        for value in values {
            #expect(key.parentKey(of: value) == (try database.stored(value, as: .text)), "\(value)")
        }
        #expect(ForeignKey(child: "c", column: 0, parent: "p", action: .cascade).parentKey(of: 1) == 1)
    }
}
