import ConcordTestSupport
import Testing

@testable import Concord

/// Foreign keys that form a cycle between tables cannot sync — each table must sync before the tables that
/// reference it — and are refused saying so, whether `enableSync` meets them or a migration closes one.
///
/// Before, enabling such tables told the app to enable the other table first, which gave the mirror-image
/// error; and a migration adding the last key of one was adopted as an additive change, so a device with
/// the same schema could never join, and one update hid both rows on the device that wrote it.
@Suite(.tags(.replica))
struct TableCycleRefusalTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    private func refusal(enabling tables: [String], schema: String) throws -> String {
        let replica = try Replica.inMemory(configuration: configuration(node: 1, clock: clock))
        try replica.database.execute(schema)
        do {
            for table in tables { try replica.enableSync(on: table) }
        } catch let error as ReplicaError {
            return error.description
        }
        return "enabled"
    }

    @Test(arguments: [["emp", "dept"], ["dept", "emp"]])
    func enablingTablesOnACycleIsRefusedAsACycle(order: [String]) throws {
        let message = try refusal(
            enabling: order,
            schema: """
                CREATE TABLE emp (id TEXT PRIMARY KEY, dept TEXT REFERENCES dept(id) ON DELETE CASCADE);
                CREATE TABLE dept (id TEXT PRIMARY KEY, head TEXT REFERENCES emp(id) ON DELETE SET NULL);
                """)
        let path = order[0] == "emp" ? "emp.dept → dept.head → emp" : "dept.head → emp.dept → dept"
        #expect(
            message.contains("its foreign keys form a cycle between tables (\(path)), which cannot sync"), "\(message)")
        #expect(message.contains("keep the reference on one side only"), "\(message)")
        #expect(!message.contains("first"), "\(message)")
    }

    @Test func aKeyOntoANonKeyColumnOrNoTableSaysSoBeforeAskingForTheParent() throws {
        let unique = try refusal(
            enabling: ["c"],
            schema: """
                CREATE TABLE p (id TEXT PRIMARY KEY, code TEXT); CREATE UNIQUE INDEX p_code ON p(code);
                CREATE TABLE c (id TEXT PRIMARY KEY, pc TEXT REFERENCES p(code));
                """)
        #expect(unique.contains("its column pc references p.code, not the key id"), "\(unique)")
        let missing = try refusal(
            enabling: ["c"], schema: "CREATE TABLE c (id TEXT PRIMARY KEY, pid TEXT REFERENCES nowhere(id))")
        #expect(missing.contains("references nowhere, which is no table"), "\(missing)")
        // A table referencing itself is no cycle between tables.
        #expect(
            try refusal(
                enabling: ["folders"],
                schema: "CREATE TABLE folders (id TEXT PRIMARY KEY, parent TEXT REFERENCES folders(id))") == "enabled")
    }

    /// The table whose migration closed the cycle is refused, and the table its keys tie it to waits with it.
    @Test func aMigrationClosingACycleRefusesItsTableAndTheTableItTies() throws {
        let devices = try inMemoryReplicas(2, clock: clock) { replica, _ in
            try replica.database.execute(
                """
                CREATE TABLE dept (id TEXT PRIMARY KEY, name TEXT);
                CREATE TABLE emp (id TEXT PRIMARY KEY, dept TEXT REFERENCES dept(id) ON DELETE CASCADE, name TEXT);
                """)
            try replica.enableSync(on: "dept")
            try replica.enableSync(on: "emp")
        }
        try devices[0].database.execute(
            """
            ALTER TABLE dept ADD COLUMN head TEXT REFERENCES emp(id) ON DELETE CASCADE;
            INSERT INTO dept VALUES ('d1', 'Sales', NULL); INSERT INTO emp VALUES ('e1', 'd1', 'Ann');
            UPDATE dept SET head = 'e1' WHERE id = 'd1';
            """)
        try devices[0].foldLocalWrites()
        let status = try devices[0].status()
        let refused = status.tables.first { $0.name == "dept" }?.refused ?? ""
        #expect(refused.contains("form a cycle between tables (dept.head → emp.dept → dept)"), "\(refused)")
        #expect(devices[0].schemaRefusals.contains(.tiedToRefusedTable(table: "emp", refused: "dept")))
        // The app's rows stay as it wrote them, and wait with their tables: no employee reaches the other device
        // to wait there for its department.
        #expect(try devices[0].database.query("SELECT id, head FROM dept") == [["d1", "e1"]])
        try Replica.sync(devices)
        #expect(try devices[1].database.query("SELECT count(*) FROM emp") == [[.integer(0)]])
        #expect(try devices[1].parked().isEmpty)
    }
}
