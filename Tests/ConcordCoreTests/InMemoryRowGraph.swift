@_spi(Testing) @testable import ConcordCore

/// Rows and foreign keys in memory: the smallest ``RowGraph``.
final class InMemoryRowGraph: RowGraph {
    var rows: [RowRef: RowRegisters] = [:]
    /// SQLite's message for rows whose values break a constraint of their table.
    var constraints: [RowRef: String] = [:]
    let foreignKeys: [ForeignKey]

    init(_ foreignKeys: [ForeignKey]) { self.foreignKeys = foreignKeys }

    /// Writes `table/key` at `time`, alive or deleted, with column values written at `columnTime` (default `time`).
    func put(
        _ table: String, _ key: SQLiteValue, deleted: Bool = false, at time: UInt64 = 10, columnTime: UInt64? = nil,
        _ values: [SQLiteValue?]
    ) {
        let columnStamp = Self.stamp(columnTime ?? time)
        rows[RowRef(table: table, key: key)] = RowRegisters(
            liveness: Liveness(causalLength: deleted ? 2 : 1, stamp: Self.stamp(time)),
            columns: values.map { $0.map { ColumnRegister(value: $0, stamp: columnStamp) } })
    }

    func registers(of row: RowRef) -> RowRegisters? { rows[row] }
    func parents(of table: String) -> [ForeignKey] { foreignKeys.filter { $0.child == table } }
    func children(of table: String) -> [ForeignKey] { foreignKeys.filter { $0.parent == table } }
    func keys(referencing parent: RowRef, through key: ForeignKey) -> [SQLiteValue] {
        rows.filter {
            $0.key.table == key.child && ($0.value.columns[key.column]?.value).map(key.parentKey(of:)) == parent.key
        }
        .map(\.key.key).sorted()
    }
    func parentKey(of value: SQLiteValue, through key: ForeignKey) -> SQLiteValue { key.parentKey(of: value) }
    func constraint(of row: RowRef) -> String? { constraints[row] }

    /// A stamp of node 1 at `time`.
    static func stamp(_ time: UInt64) -> Stamp {
        Stamp(hlc: HLCTimestamp(rawValue: time), node: node(1))
    }
}
