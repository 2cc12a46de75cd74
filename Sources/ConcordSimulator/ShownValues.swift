@_spi(Simulation) import Concord
import ConcordTesting

/// What a device's tables show of values as their writers wrote them: each column stores a value under
/// its own declared type's affinity, as SQLite does when Concord writes the value into the table.
///
/// Why: a migration that rebuilds a table may change a column's declared type on
/// the devices that ran it (`code TEXT` becomes `code INTEGER`), while Concord
/// keeps, relays and merges every value as written: `'007'` from a device whose
/// column is TEXT shows as `7` on one whose column is INTEGER, and comes back as
/// `'007'` where the column is TEXT again. The reference model holds values as
/// written, so before a device's rows are compared with it, the model's go through
/// the device's columns: an empty copy of each table, typed as the device's and
/// without constraints, in a scratch database, where SQLite converts them as it
/// converts Concord's writes; a copy of a `STRICT` table is `STRICT`. (Not through
/// Concord's own probe of a column's affinity, `Database.stored(_:as:)`: the oracle
/// checks the engine, so it does not borrow from it.)
///
/// ```swift
/// let shown = try ShownValues(of: replica, tables: schema.tables)
/// try shown.values(["'007'"], key: "r1", in: "reminders")   // [7] where `code` is INTEGER
/// ```
struct ShownValues {
    private let database: Database
    /// Per table, the statements that store a row in its copy, read it back and empty the copy.
    private let statements: [String: (insert: String, select: String, clear: String)]

    /// The columns of `tables` as `replica` declares them.
    init(of replica: Replica, tables: [TableSchema]) throws {
        database = try Database(path: ":memory:")
        var statements: [String: (insert: String, select: String, clear: String)] = [:]
        for (index, table) in tables.enumerated() {
            let names = [table.key] + table.columns
            let declared = try names.map { column in
                try replica.database.columnInfo(column, of: table.name)?.text("type") ?? ""
            }
            let copy = "t\(index)"
            let columns = zip(names.indices, declared).map { "c\($0) \($1)" }
            // A STRICT table's `ANY` column keeps what is written (elsewhere `ANY` is NUMERIC), and its
            // typed columns refuse what they cannot hold: the copy is STRICT too.
            let strict = try replica.database.pragma("table_list", of: table.name).first?.integer("strict") == 1
            try database.execute(
                "CREATE TABLE \(copy) (\(columns.joined(separator: ", ")))" + (strict ? " STRICT" : ""))
            let placeholders = Array(repeating: "?", count: names.count).joined(separator: ", ")
            statements[table.name] = (
                "INSERT INTO \(copy) VALUES (\(placeholders))",
                "SELECT \(names.indices.dropFirst().map { "c\($0)" }.joined(separator: ", ")) FROM \(copy)",
                "DELETE FROM \(copy)"
            )
        }
        self.statements = statements
    }

    /// `values` (every column of a row of `table` keyed `key`, in order) as the device's columns store them.
    func values(_ values: [SQLiteValue], key: SQLiteValue, in table: String) throws -> [SQLiteValue] {
        guard let (insert, select, clear) = statements[table], !values.isEmpty else { return values }
        // Kept prepared: the oracle asks for every row of every device it checks.
        try database.execute(insert, [key] + values)
        defer { try? database.execute(clear, []) }
        return try database.query(select).first ?? values
    }
}
