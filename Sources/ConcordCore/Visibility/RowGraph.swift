/// What visibility reads about rows: their registers and the foreign keys between tables.
///
/// ``Visibility`` decides, from this alone, which rows show. The SQLite shell
/// answers from the register tables (loading each row once); a reference
/// model answers from memory. A graph only reads: it never writes.
///
/// ```swift
/// final class Rows: RowGraph { ... }   // registers by row, keys by table
/// var visibility = Visibility(graph: Rows())
/// let placement = try visibility.placement(of: RowRef(table: "reminders", key: "r1"))
/// ```
public protocol RowGraph: AnyObject {
    /// The registers of `row`, or `nil` when no replica this one heard of wrote it.
    func registers(of row: RowRef) throws -> RowRegisters?
    /// The foreign keys `table` holds, in declaration order.
    func parents(of table: String) -> [ForeignKey]
    /// The foreign keys that reference `table`.
    func children(of table: String) -> [ForeignKey]
    /// The keys of the rows (shown or not) whose `key.column` holds `parent`'s key, in key order.
    func keys(referencing parent: RowRef, through key: ForeignKey) throws -> [SQLiteValue]
    /// The parent key `value` names through `key`, as this graph's SQLite compares them (see
    /// ``ForeignKey/parentKey(of:)``, which a graph without SQLite can answer with).
    func parentKey(of value: SQLiteValue, through key: ForeignKey) throws -> SQLiteValue
    /// SQLite's message, when `row`'s values break a NOT NULL or CHECK constraint of its table
    /// (which only materializing it tells; a graph remembers what it learned).
    func constraint(of row: RowRef) throws -> String?
}
