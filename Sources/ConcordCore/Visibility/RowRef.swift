/// A row of a synced table: its table's name and its key.
///
/// ```swift
/// let row = RowRef(table: "reminders", key: "r1")
/// print(row)   // reminders/r1
/// ```
public struct RowRef: Hashable, Sendable, CustomStringConvertible {
    /// The table's name.
    public let table: String
    /// The row's primary-key value.
    public let key: SQLiteValue

    /// The row of `table` whose key is `key`.
    public init(table: String, key: SQLiteValue) {
        self.table = table
        self.key = key
    }

    /// `table/key`, a TEXT key as is and any other as its SQL literal.
    public var description: String { "\(table)/\(ParkReason.describe(key))" }
}
