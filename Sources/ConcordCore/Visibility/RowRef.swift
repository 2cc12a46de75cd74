/// A row of a synced table: its table's name and its key.
///
/// ```swift
/// let row = RowRef(table: "reminders", key: "r1")
/// print(row)   // reminders/r1
/// ```
public struct RowRef: Hashable, Sendable, CustomStringConvertible {
    public let table: String
    public let key: SQLiteValue

    public init(table: String, key: SQLiteValue) {
        self.table = table
        self.key = key
    }

    public var description: String { "\(table)/\(ParkReason.describe(key))" }
}
