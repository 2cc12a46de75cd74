import ConcordTestSupport
import Testing

@testable import Concord

/// Tables named `new` or `old` sync like any other.
///
/// In a trigger's body, a table named in a FROM clause hides the trigger's `NEW` and `OLD` rows when it
/// has their name: `SELECT … FROM "new" WHERE k = NEW.k` compares each row with itself. The trigger that
/// keeps the row an `INSERT OR REPLACE` replaces copied every row of a table named `new` with
/// value-merged columns: a third plain INSERT failed ("UNIQUE constraint failed"), and a replace joined
/// with another row's values. The one that reads back a TEXT key SQLite handed over as a number read the
/// first row's key. Layout 19's triggers name the table through an alias.
@Suite(.tags(.replica))
struct TriggerRowNameTests {
    /// Two replicas of `name`(id TEXT key, best merged by max, note), foreign keys enforced; `extraSQL`
    /// runs before sync is enabled.
    static func pair(_ name: String, extraSQL: String = "") throws -> [Replica] {
        let clock = ManualClock(unixMilliseconds: epoch2026)
        return try (1...2 as ClosedRange<UInt8>).map { node in
            let replica = try Replica.inMemory(configuration: configuration(node: node, clock: clock))
            try replica.database.execute(
                """
                PRAGMA foreign_keys = ON;
                CREATE TABLE "\(name)" (id TEXT PRIMARY KEY NOT NULL, best INTEGER, note TEXT);
                \(extraSQL)
                """)
            try replica.enableSync(on: name, merges: ["best": .max])
            return replica
        }
    }

    static func rows(_ replica: Replica, _ name: String) throws -> [[SQLiteValue]] {
        try replica.database.query("SELECT id, best, note FROM \"\(name)\" ORDER BY id")
    }

    @Test(arguments: ["new", "old", "NEW", "Old"])
    func insertsAndReplacesKeepEachRowsOwnValues(name: String) throws {
        let replicas = try Self.pair(name)
        let table = "\"\(name)\""
        try replicas[0].database.execute(
            """
            INSERT INTO \(table) VALUES ('a', 10, 'first');
            INSERT INTO \(table) VALUES ('b', 1, 'second');
            INSERT INTO \(table) VALUES ('c', 7, 'third');
            """)
        try Replica.sync(replicas)
        // A save of the whole record, as ORMs write it: the maximum stays, the note is the new one.
        try replicas[1].database.execute("INSERT OR REPLACE INTO \(table) VALUES ('b', 0, 'saved')")
        try replicas[1].database.execute("INSERT OR REPLACE INTO \(table) VALUES ('a', 3, 'saved too')")
        try Replica.sync(replicas)
        let expected: [[SQLiteValue]] = [["a", 10, "saved too"], ["b", 1, "saved"], ["c", 7, "third"]]
        for replica in replicas {
            #expect(try Self.rows(replica, name) == expected)
            #expect(try replica.check().isConsistent)
        }
    }

    /// A replace under `recursive_triggers` ends the row's life and starts another; the maximum joins across
    /// lives, from the row it replaced and no other.
    @Test func aReplaceThatEndsALifeJoinsWithThatRowAlone() throws {
        let replicas = try Self.pair("new")
        try replicas[0].database.execute(
            """
            PRAGMA recursive_triggers = ON;
            INSERT INTO "new" VALUES (X'31', 5, 'blob key');
            INSERT INTO "new" VALUES ('1', 9, 'text key');
            INSERT OR REPLACE INTO "new" VALUES (X'31', NULL, 'again');
            """)
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(try Self.rows(replica, "new") == [["1", 9, "text key"], [.blob([0x31]), 5, "again"]])
            #expect(try replica.check().isConsistent)
        }
    }

    /// An UPDATE that assigns the key, as ORMs do, of a row an INTEGER column references: SQLite hands the
    /// triggers the TEXT key `'01'` as 1, and they read it back from the row itself, not the table's first.
    @Test func aKeyHandedOverAsANumberIsReadBackFromItsOwnRow() throws {
        let replicas = try Self.pair(
            "new",
            extraSQL: """
                CREATE TABLE children (id TEXT PRIMARY KEY NOT NULL, parent INTEGER REFERENCES "new"(id));
                """)
        for replica in replicas { try replica.enableSync(on: "children") }
        try replicas[0].database.execute(
            """
            INSERT INTO "new" VALUES ('u', 1, 'other'), ('01', 2, 'inbox');
            """)
        try Replica.sync(replicas)
        try replicas[1].database.execute("UPDATE \"new\" SET id = id, note = 'renamed' WHERE id = '01'")
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(try Self.rows(replica, "new") == [["01", 2, "renamed"], ["u", 1, "other"]])
            #expect(try replica.check().isConsistent)
        }
    }
}
