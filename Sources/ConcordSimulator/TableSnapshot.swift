import Concord

/// Every row of every synced table as the app sees it: by row, the columns' values in the table's order.
///
/// ```swift
/// let shown = try TableSnapshot(of: replica)
/// shown[RowRef(table: "lists", key: "l1")]   // [name, cover], or nil when the table has no such row
/// ```
struct TableSnapshot {
    private(set) var rows: [RowRef: [SQLiteValue]] = [:]

    init(of replica: Replica) throws {
        for table in replica.tables {
            let columns = ([table.key] + table.columns).map(quoteIdentifier).joined(separator: ", ")
            for row in try replica.database.query("SELECT \(columns) FROM \(quoteIdentifier(table.name))") {
                rows[RowRef(table: table.name, key: row[0])] = Array(row.dropFirst())
            }
        }
    }

    subscript(row: RowRef) -> [SQLiteValue]? { rows[row] }
}
