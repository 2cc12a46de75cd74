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
    /// How each column merges, lined up with ``columns``.
    public let merges: [ColumnMerge]

    public init(name: String, key: String, columns: [String], policy: TablePolicy, merges: [ColumnMerge]? = nil) {
        self.name = name
        self.key = key
        self.columns = columns
        self.policy = policy
        self.merges = merges ?? Array(repeating: .lww, count: columns.count)
    }

    /// The declaration as a changeset carries it.
    public var schema: TableSchema {
        TableSchema(name: name, key: key, columns: columns, policy: policy, merges: merges)
    }

    /// The declaration, described for messages: `column policy, count=counter`.
    public var declaration: String {
        let special = zip(columns, merges).filter { $0.1 != .lww }.map { "\($0.0)=\($0.1)" }
        return (["\(policy.rawValue) policy"] + special).joined(separator: ", ")
    }

    /// The merges stored in `_concord_tables.merges`: only the columns that are not `lww`.
    var mergeMap: [String: ColumnMerge] {
        Dictionary(uniqueKeysWithValues: zip(columns, merges).filter { $0.1 != .lww })
    }

    /// Indexes of the columns whose local writes must be joined by value (all but `lww`).
    var joinedColumns: [Int] { merges.indices.filter { merges[$0].joinsValues } }

    /// Indexes of `counter` columns.
    var counterColumns: [Int] { merges.indices.filter { merges[$0] == .counter } }

    var rowsTable: String { quoteIdentifier(Metadata.rowsTable(name)) }
    var hiddenTable: String { quoteIdentifier(Metadata.hiddenTable(name)) }
    var countersTable: String { quoteIdentifier(Metadata.countersTable(name)) }
    var logValuesTable: String { quoteIdentifier(Metadata.logValuesTable(name)) }
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
