/// One table this replica syncs: its declaration plus what the replica derives from it.
///
/// The declaration (key, columns, policy, merges) is the ``TableSchema`` that
/// changesets carry; this type adds the names of the table's metadata and
/// the SQL fragments the replica builds from them. Built from the live schema when sync is enabled (see
/// `TableInspector`) and stored in `_concord_tables`, so every later
/// command knows the same declaration.
///
/// ```swift
/// let reminders = SyncedTable(name: "reminders", key: "id",
///                             columns: ["title", "done"], policy: .column)
/// ```
public struct SyncedTable: Hashable, Sendable {
    /// The declaration, exactly as a changeset carries it.
    public let schema: TableSchema
    /// The table's id in `_concord_tables`, which names its metadata (0 until sync is enabled).
    let id: Int64

    /// A declaration not yet stored; `merges` defaults to last-writer-wins for every column.
    public init(name: String, key: String, columns: [String], policy: TablePolicy, merges: [ColumnMerge]? = nil) {
        self.init(id: 0, schema: TableSchema(name: name, key: key, columns: columns, policy: policy, merges: merges))
    }

    init(id: Int64, schema: TableSchema) {
        self.id = id
        self.schema = schema
        names = Names(id: id, schema: schema)
    }

    /// The quoted names SQL is built from, derived once: the fold, export and apply build statements
    /// from them for every table on every call, and quoting each name again each time showed in profiles.
    private let names: Names

    private final class Names: Sendable {
        let rowsTable, hiddenTable, countersTable, logValuesTable, zerosTable, quotedName, qualifiedName,
            quotedKey: String
        let quotedColumns, hiddenColumns, stampColumns: [String]
        let joinedColumns, counterColumns: [Int]

        init(id: Int64, schema: TableSchema) {
            rowsTable = quoteIdentifier(Metadata.rowsTable(id))
            hiddenTable = quoteIdentifier(Metadata.hiddenTable(id))
            countersTable = quoteIdentifier(Metadata.countersTable(id))
            logValuesTable = quoteIdentifier(Metadata.logValuesTable(id))
            zerosTable = quoteIdentifier(Metadata.zerosTable(id))
            quotedName = quoteIdentifier(schema.name)
            qualifiedName = "main." + quotedName
            quotedKey = quoteIdentifier(schema.key)
            quotedColumns = schema.columns.map(quoteIdentifier)
            hiddenColumns = schema.columns.indices.map(Metadata.valueColumn)
            stampColumns =
                schema.policy == .column
                ? schema.columns.indices.flatMap { [Metadata.stampColumn($0), Metadata.nodeColumn($0)] } : []
            joinedColumns = schema.merges.indices.filter { schema.merges[$0].joinsValues }
            counterColumns = schema.merges.indices.filter { schema.merges[$0] == .counter }
        }
    }

    // Equal when the declaration and id are: everything else is derived from them.
    public static func == (lhs: SyncedTable, rhs: SyncedTable) -> Bool { lhs.id == rhs.id && lhs.schema == rhs.schema }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(schema)
    }

    /// The same declaration under the id `_concord_tables` gave it.
    func withID(_ id: Int64) -> SyncedTable { SyncedTable(id: id, schema: schema) }

    /// The table's name.
    public var name: String { schema.name }
    /// The single primary-key column (TEXT or BLOB).
    public var key: String { schema.key }
    /// Synced columns besides the key, in declaration order (generated columns excluded).
    public var columns: [String] { schema.columns }
    /// How the table resolves concurrent edits: per column or per row.
    public var policy: TablePolicy { schema.policy }
    /// How each column merges, lined up with ``columns``.
    public var merges: [ColumnMerge] { schema.merges }

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
    var joinedColumns: [Int] { names.joinedColumns }

    /// Indexes of `counter` columns.
    var counterColumns: [Int] { names.counterColumns }

    var rowsTable: String { names.rowsTable }
    var hiddenTable: String { names.hiddenTable }
    var countersTable: String { names.countersTable }
    var logValuesTable: String { names.logValuesTable }
    var zerosTable: String { names.zerosTable }
    var quotedName: String { names.quotedName }
    /// The name as Concord's statements use it, in the main schema: a TEMP table of the same name, which the
    /// app may make on the replica's own connection, would otherwise take the place of the synced one.
    var qualifiedName: String { names.qualifiedName }
    var quotedKey: String { names.quotedKey }
    var quotedColumns: [String] { names.quotedColumns }
    /// The columns of the hidden table that hold the values, by position (`c0`, `c1`, ...).
    var hiddenColumns: [String] { names.hiddenColumns }

    /// Whether each column has its own stamp (column policy) or shares the row's.
    var hasColumnStamps: Bool { policy == .column }

    /// The metadata columns after `pk, cl, ver, hlc, node, clh, cln`.
    var stampColumns: [String] { names.stampColumns }
}
