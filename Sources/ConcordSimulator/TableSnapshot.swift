import Concord

/// Every row of every synced table as the app sees it: by row, the columns' values in the table's order.
///
/// It reads the tables a schema declares, so the oracle can read a device
/// still on an older release through that release's schema, never through
/// what the engine made of it.
///
/// ```swift
/// let shown = try TableSnapshot(of: replica)
/// shown[RowRef(table: "lists", key: "l1")]   // [name, cover], or nil when the table has no such row
/// ```
struct TableSnapshot {
    private(set) var rows: [RowRef: [SQLiteValue]] = [:]
    /// The tables read, in the order given.
    let tables: [TableSchema]

    /// The rows of the tables `replica` syncs.
    init(of replica: Replica) throws {
        try self.init(of: replica, tables: replica.tables.map(\.schema))
    }

    /// The rows of `tables` in `replica`'s database, each read as its declaration lists its columns.
    init(of replica: Replica, tables: [TableSchema]) throws {
        self.tables = tables
        for table in tables {
            let columns = ([table.key] + table.columns).map(quoteIdentifier).joined(separator: ", ")
            // The main schema's: the app may have a TEMP table of the same name (``ConnectionQuirks``).
            for row in try replica.database.query("SELECT \(columns) FROM main.\(quoteIdentifier(table.name))") {
                rows[RowRef(table: table.name, key: row[0])] = Array(row.dropFirst())
            }
        }
    }

    subscript(row: RowRef) -> [SQLiteValue]? { rows[row] }
}
