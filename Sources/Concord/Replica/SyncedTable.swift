/// One table this replica syncs: its key, its synced columns and its policy.
///
/// Built from the live schema when sync is enabled (see
/// ``TableInspector``) and stored in `_concord_tables`, so every later
/// command knows the same declaration.
///
/// ```swift
/// let reminders = SyncedTable(name: "reminders", key: "id",
///                             columns: ["title", "done"], policy: .column)
/// ```
public struct SyncedTable: Hashable, Sendable {
    public let name: String
    /// The single primary-key column (TEXT or BLOB).
    public let key: String
    /// Synced columns besides the key, in declaration order (generated columns excluded).
    public let columns: [String]
    public let policy: TablePolicy

    public init(name: String, key: String, columns: [String], policy: TablePolicy) {
        self.name = name
        self.key = key
        self.columns = columns
        self.policy = policy
    }

    /// The declaration as a changeset carries it.
    public var schema: TableSchema { TableSchema(name: name, key: key, columns: columns, policy: policy) }

    var rowsTable: String { quoteIdentifier(Metadata.rowsTable(name)) }
    var hiddenTable: String { quoteIdentifier(Metadata.hiddenTable(name)) }
    var quotedName: String { quoteIdentifier(name) }
    var quotedKey: String { quoteIdentifier(key) }
    var quotedColumns: [String] { columns.map(quoteIdentifier) }

    /// Whether each column has its own stamp (column policy) or shares the row's.
    var hasColumnStamps: Bool { policy == .column }

    /// The metadata columns after `pk, cl, ver, hlc, node, clh, cln`.
    var stampColumns: [String] {
        guard hasColumnStamps else { return [] }
        return columns.flatMap { [quoteIdentifier(Metadata.stampColumn($0)), quoteIdentifier(Metadata.nodeColumn($0))] }
    }
}
