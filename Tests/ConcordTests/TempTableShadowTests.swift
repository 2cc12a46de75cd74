import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// A TEMP table takes the place of a main one of the same name in every statement that does not name its
/// schema. An app that makes one on the replica's own connection (a staging copy, a scratch table an ORM
/// makes) before, Concord's merges went into it and its exports read values from it: the synced table
/// missed what peers wrote, and a row the app wrote there went out with NULL values.
@Suite(.tags(.replica))
struct TempTableShadowTests {
    private let clock = ManualClock(unixMilliseconds: epoch2026)
    private static let schema = "CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, body TEXT)"
    private static let shadow = "CREATE TEMP TABLE notes (id TEXT PRIMARY KEY NOT NULL, body TEXT)"

    private func replica(_ id: UInt8) throws -> Replica {
        try Replica.inMemory(configuration: configuration(node: id, clock: clock))
    }

    private func notes(_ replica: Replica, _ schema: String = "main") throws -> [[SQLiteValue]] {
        try replica.database.query("SELECT id, body FROM \(schema).notes ORDER BY id")
    }

    @Test func aTempTableOfTheSameNameLeavesTheSyncedOneSyncing() throws {
        let replicas = try [replica(1), replica(2)]
        for replica in replicas {
            try replica.database.execute(Self.schema)
            try replica.enableSync(on: "notes")
        }
        try replicas[0].database.execute("INSERT INTO notes VALUES ('a', 'one')")
        try Replica.sync(replicas)
        try replicas[1].database.execute(Self.shadow)
        try replicas[1].database.execute("INSERT INTO temp.notes VALUES ('scratch', 'not synced')")
        try replicas[1].database.execute("INSERT INTO main.notes VALUES ('b', 'two')")
        try replicas[0].database.execute("INSERT INTO notes VALUES ('c', 'three')")
        try replicas[0].database.execute("UPDATE notes SET body = 'ONE' WHERE id = 'a'")
        try Replica.sync(replicas)
        let expected: [[SQLiteValue]] = [["a", "ONE"], ["b", "two"], ["c", "three"]]
        for replica in replicas {
            #expect(try notes(replica) == expected)
            let report = try replica.check()
            #expect(report.isConsistent, "\(report)")
        }
        #expect(try notes(replicas[1], "temp") == [["scratch", "not synced"]], "the app's own table is its own")
    }

    /// Enabling sync while the TEMP table exists still puts the capture triggers and indexes on the main one.
    @Test func enablingSyncWhileATempTableHasTheNameCapturesTheMainOne() throws {
        let replicas = try [replica(1), replica(2)]
        try replicas[1].database.execute(Self.schema)
        try replicas[1].enableSync(on: "notes")
        try replicas[0].database.execute(Self.schema + "; " + Self.shadow)
        try replicas[0].enableSync(on: "notes")
        try replicas[0].database.execute("INSERT INTO main.notes VALUES ('a', 'one')")
        try Replica.sync(replicas)
        #expect(try notes(replicas[1]) == [["a", "one"]])
        // The only TEMP triggers are those that catch deleted rows without the preupdate hook, on main's table.
        #expect(
            try replicas[0].database.scalar(
                "SELECT count(*) FROM temp.sqlite_temp_schema WHERE type = 'trigger' AND instr(sql, ' ON main.') = 0")
                == .integer(0), "no trigger went to the TEMP table")
    }

    /// A TEMP table named like one of SQLite's pragma functions took that function's place: Concord read
    /// tables' columns, indexes and foreign keys through `temp.pragma_…(name, 'main')`, and every inspection
    /// failed (`no such column`, `'pragma_index_list' is not a function`). It runs `PRAGMA main.…` now.
    @Test(arguments: [
        "pragma_table_xinfo", "pragma_table_info", "pragma_index_list", "pragma_index_info", "pragma_index_xinfo",
        "pragma_foreign_key_list", "pragma_table_list",
    ])
    func aTempTableNamedLikeAPragmaHidesNothing(name: String) throws {
        let replicas = try [replica(1), replica(2)]
        for replica in replicas {
            try replica.database.execute("CREATE TEMP TABLE \(quoteIdentifier(name)) (x)")
            try replica.database.execute(
                """
                CREATE TABLE lists (id TEXT PRIMARY KEY NOT NULL, name TEXT);
                CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, list TEXT REFERENCES lists(id) ON DELETE CASCADE);
                """)
            try replica.enableSync(on: "lists")
            try replica.enableSync(on: "items")
        }
        try replicas[0].database.execute("INSERT INTO lists VALUES ('l', 'home'); INSERT INTO items VALUES ('i', 'l')")
        try Replica.sync(replicas)
        try replicas[1].database.execute("ALTER TABLE lists ADD COLUMN color TEXT")
        try replicas[1].database.execute("DELETE FROM lists")
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(try replica.database.query("SELECT count(*) FROM main.items") == [[0]])
            let report = try replica.check()
            #expect(report.isConsistent, "\(report)")
        }
    }
}
