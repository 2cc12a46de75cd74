import Concord
import ConcordTesting
import Testing

@testable import ConcordSimulator

/// The oracle shows the model's values as written through the device's own column types.
@Suite(.tags(.simulation))
struct ShownValuesTests {
    @Test func valuesGoThroughTheDevicesColumnTypes() throws {
        let replica = try Replica.inMemory()
        try replica.database.execute(
            "CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, n INTEGER, s TEXT, r REAL, u, num NUMERIC)")
        try replica.enableSync(on: "t")
        let shown = try ShownValues(of: replica, tables: replica.tables.map(\.schema))
        #expect(
            try shown.values(["007", 1, 2, "007", "02"], key: "k", in: "t") == [7, "1", 2.0, "007", 2])
        // As the table itself stores them.
        try replica.database.execute("INSERT INTO t VALUES ('k', '007', 1, 2, 3, '02')")
        #expect(try replica.database.query("SELECT n, s, r, u, num FROM t") == [[7, "1", 2.0, 3, 2]])
        // A table it was not built for keeps the values as they are.
        #expect(try shown.values(["007"], key: "k", in: "other") == ["007"])
    }

    /// In a STRICT table, `ANY` keeps a value as written (`-2.0` stays REAL), where elsewhere a column typed
    /// `ANY` is NUMERIC and shows `-2`; its typed columns still convert what they can hold (`5` to `'5'`).
    @Test func aStrictTablesAnyColumnKeepsWhatIsWritten() throws {
        let replica = try Replica.inMemory()
        try replica.database.execute(
            "CREATE TABLE t (a ANY, id TEXT PRIMARY KEY NOT NULL, s TEXT, n INTEGER) STRICT, WITHOUT ROWID")
        try replica.enableSync(on: "t")
        let shown = try ShownValues(of: replica, tables: replica.tables.map(\.schema))
        let values: [SQLiteValue] = [-2.0, 5, "07"]
        #expect(try shown.values(values, key: "k", in: "t") == [-2.0, "5", 7])
        try replica.database.execute("INSERT INTO t (id, a, s, n) VALUES ('k', -2.0, 5, '07')")
        #expect(try replica.database.query("SELECT a, s, n FROM t") == [[-2.0, "5", 7]])
    }
}
