import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// App tables and views named like SQLite's table-valued functions do not break Concord.
///
/// SQLite looks a name up among the schema's tables before its functions: an app table named
/// `json_each` hid the function the union columns' guard trigger calls, so every write to a table
/// with a union column failed with `'json_each' is not a function` (the simulator's wide app, drawing
/// table names, found it); one named `pragma_table_xinfo` hid the pragma Concord inspects tables with.
@Suite(.tags(.replica))
struct HiddenFunctionNamesTests {
    private let clock = ManualClock(unixMilliseconds: epoch2026)

    private func replica(_ id: UInt8, schema: String) throws -> Replica {
        let replica = try Replica.inMemory(configuration: configuration(node: id, clock: clock))
        try replica.database.execute(schema)
        return replica
    }

    private static let notes = "CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, tags, body);"

    private func writeRefused(_ replica: Replica, _ sql: String) -> String? {
        do {
            try replica.database.execute(sql)
            return nil
        } catch { return "\(error)" }
    }

    @Test(arguments: ["json_each", "JSON_EACH", "Json_Each"])
    func unionColumnsSyncBesideATableNamedJSONEach(name: String) throws {
        let replicas = try (1...2 as ClosedRange<UInt8>).map { id in
            let replica = try replica(id, schema: Self.notes + "CREATE TABLE \"\(name)\" (x);")
            try replica.enableSync(on: "notes", merges: ["tags": .union])
            return replica
        }
        try replicas[0].database.execute(#"INSERT INTO notes VALUES ('n', '["a",1]', 'x')"#)
        try replicas[1].database.execute(#"INSERT INTO notes VALUES ('n', '["b"]', 'y')"#)
        let refusal = writeRefused(replicas[0], "UPDATE notes SET tags = '[1.5]'")
        #expect(
            refusal?.contains("union column notes.tags holds a JSON array of strings and integers") == true,
            "\(refusal ?? "")")
        try Replica.sync(replicas)
        for replica in replicas {
            let tags = try replica.database.scalar("SELECT tags FROM notes")?.textValue
            let elements = try JSONSerialization.jsonObject(with: Data((tags ?? "").utf8)) as? [Any]
            #expect(Set((elements ?? []).map { "\($0)" }) == ["a", "1", "b"])
            #expect(try replica.check().isConsistent)
        }
    }

    @Test func guardsFollowAViewNamedJSONEachMadeAndDroppedAfterEnabling() throws {
        let replica = try replica(1, schema: Self.notes)
        try replica.enableSync(on: "notes", merges: ["tags": .union])
        try replica.database.execute("CREATE VIEW json_each AS SELECT 1 AS type")
        // Until Concord looks again, the app's writes fail (nothing is lost: the statement fails)...
        #expect(
            writeRefused(replica, #"INSERT INTO notes VALUES ('a', '["x"]', 'x')"#)?.contains("not a function") == true)
        try replica.foldLocalWrites()
        // ...then the guard walks with json_tree, and refuses what it refused before.
        try replica.database.execute(#"INSERT INTO notes VALUES ('a', '["x"]', 'x')"#)
        #expect(writeRefused(replica, #"UPDATE notes SET tags = '[["nested"]]'"#) != nil)
        #expect(writeRefused(replica, "UPDATE notes SET tags = '[true]'") != nil)
        try replica.database.execute("DROP VIEW json_each")
        try replica.foldLocalWrites()
        let guardSQL = try replica.database.scalar(
            "SELECT group_concat(sql) FROM sqlite_schema WHERE type = 'trigger' AND sql LIKE '%json_%(%'")?.textValue
        #expect(guardSQL?.contains("json_each(") == true)
        #expect(guardSQL?.contains("json_tree(") == false)
        try replica.database.execute(#"UPDATE notes SET tags = '["x","y"]'"#)
        #expect(try replica.changes(since: 0).rows.count == 1)
        #expect(try replica.check().isConsistent)
    }

    @Test func bothWalkerNamesTakenRefusesTheUnionTableOnly() throws {
        let schema = Self.notes + "CREATE TABLE json_each (x); CREATE TABLE plain (id TEXT PRIMARY KEY NOT NULL, v);"
        let replica = try replica(1, schema: schema)
        try replica.enableSync(on: "plain")
        try replica.database.execute("CREATE VIEW JSON_TREE AS SELECT 1")
        let before = try replica.database.query("SELECT type, name, sql FROM sqlite_schema ORDER BY name")
        #expect(throws: ReplicaError.self) { try replica.enableSync(on: "notes", merges: ["tags": .union]) }
        do {
            try replica.enableSync(on: "notes", merges: ["tags": .union])
        } catch {
            #expect(
                "\(error)"
                    == "cannot sync table 'notes': tables or views named json_each and json_tree hide the SQLite "
                    + "functions that guard its union column tags. To fix: rename or drop the table or view named "
                    + "json_each or json_tree")
        }
        #expect(try replica.database.query("SELECT type, name, sql FROM sqlite_schema ORDER BY name") == before)
        // Enabled while one name was free, then the app takes the other: that table stops, the rest syncs.
        try replica.database.execute("DROP VIEW JSON_TREE")
        try replica.enableSync(on: "notes", merges: ["tags": .union])
        try replica.database.execute(#"INSERT INTO notes VALUES ('a', '["x"]', 'x')"#)
        try replica.database.execute("CREATE TABLE json_tree (x); INSERT INTO plain VALUES ('p', 1)")
        try replica.foldLocalWrites()
        #expect(replica.schemaRefusals.map { "\($0)" }.joined().contains("json_each and json_tree") == true)
        // Its guards now refuse what they cannot check, saying why, and let NULL through.
        let refusal = writeRefused(replica, #"UPDATE notes SET tags = '["z"]'"#)
        #expect(refusal?.contains("cannot be checked while tables or views named json_each and json_tree") == true)
        try replica.database.execute("UPDATE notes SET body = 'y', tags = NULL")
        #expect(try replica.changes(since: 0).rows.map(\.table) == ["plain"])
        try replica.database.execute("ALTER TABLE json_tree RENAME TO trees")
        try replica.foldLocalWrites()
        #expect(replica.schemaRefusals.isEmpty)
        #expect(try replica.changes(since: 0).rows.map(\.table).sorted() == ["notes", "plain"])
        #expect(try replica.database.query("SELECT body FROM notes") == [["y"]])
        try replica.database.execute(#"UPDATE notes SET tags = '["y"]'"#)
        #expect(try replica.check().isConsistent)
    }

    @Test func tablesNamedLikeThePragmasDoNotHideThem() throws {
        let names = [
            "pragma_table_xinfo", "pragma_table_info", "pragma_foreign_key_list", "pragma_index_list",
            "pragma_index_info", "pragma_index_xinfo", "pragma_table_list",
        ]
        let schema =
            names.map { "CREATE TABLE \($0) (x);" }.joined()
                + """
                CREATE TABLE places (id TEXT PRIMARY KEY NOT NULL, label DEFAULT 'home', UNIQUE (id, label));
                CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL COLLATE NOCASE,
                    place REFERENCES places(id) ON DELETE SET NULL, body);
                """
        let replicas = try (1...2 as ClosedRange<UInt8>).map { id in try replica(id, schema: schema) }
        for replica in replicas {
            #expect(throws: ReplicaError.self) { try replica.enableSync(on: "places") }  // the UNIQUE is seen
            try replica.database.execute(
                "DROP TABLE notes; DROP TABLE places; CREATE TABLE places (id TEXT PRIMARY KEY NOT NULL, label DEFAULT 'home');"
                    + "CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, place REFERENCES places(id) ON DELETE SET NULL, body);"
            )
            try replica.enableSync(on: "places")
            try replica.enableSync(on: "notes")
        }
        try replicas[0].database.execute(
            "INSERT INTO places (id) VALUES ('p'); INSERT INTO notes VALUES ('n', 'p', 'b')")
        try Replica.sync(replicas)
        try replicas[1].database.execute("ALTER TABLE notes ADD COLUMN due")
        try replicas[1].database.execute("UPDATE notes SET due = 7")
        try replicas[0].database.execute("ALTER TABLE notes ADD COLUMN due")
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(try replica.database.query("SELECT * FROM notes") == [["n", "p", "b", 7]])
            #expect(try replica.database.query("SELECT * FROM places") == [["p", "home"]])
            #expect(try replica.check().isConsistent)
        }
    }
}
