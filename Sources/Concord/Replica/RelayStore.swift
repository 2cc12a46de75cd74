@_spi(Testing) import ConcordCore

/// Keeps what this replica's schema lacks — tables and columns a newer peer syncs — to merge, relay and show later.
///
/// Devices of one user update on different days. A device whose app has not
/// migrated yet still receives rows of tables it does not have and values of
/// columns it does not have; dropping them would lose them for every device
/// that syncs through it, and refusing them would stop it syncing at all. So
/// they are stored here with their stamps, merged by the same rules as any
/// register (the declared merge of each column comes with the changeset),
/// exported on like known data, and moved into the user's tables the moment
/// a migration adds them (see `Replica+Relay.swift`).
///
/// Two tables hold it (layout 6):
/// - `_concord_relayed`: per table name (SQLite's ASCII case-insensitive
///   comparison), the union of the declarations peers sent — key, policy,
///   every column with its merge — as an encoded header. For a table synced
///   here, the columns the local table lacks are its *extra* columns.
/// - `_concord_relayed_rows`: per (table, key), the registers this replica
///   holds for those columns: for a table not synced here the whole row
///   (liveness included), for a synced one only its extra columns (its
///   liveness stays in the table's own registers). Each is one encoded
///   one-row changeset, so the codec that checks every changeset checks these
///   too, and `ver` is the local version of its last change.
///
/// ```swift
/// let relay = RelayStore(database: database)
/// if let notes = try relay.declaration(of: "notes") { print(notes.columns) }
/// ```
final class RelayStore {
    let database: Database

    static let tables = Metadata.prefix + "relayed"
    static let rows = Metadata.prefix + "relayed_rows"

    /// The DDL of layout 6's two tables.
    static let createSQL = """
        CREATE TABLE \(tables) (name TEXT PRIMARY KEY COLLATE NOCASE, declaration BLOB NOT NULL) WITHOUT ROWID;
        CREATE TABLE \(rows) (
            name TEXT NOT NULL COLLATE NOCASE, pk NOT NULL, ver INTEGER NOT NULL, registers BLOB NOT NULL,
            PRIMARY KEY (name, pk)
        ) WITHOUT ROWID;
        CREATE INDEX \(rows)_ver ON \(rows) (name, ver);
        """

    /// The source every stored row claims (the codec needs one; it is never read back).
    private static let storageNode = NodeID(bytes: Array(repeating: 0, count: NodeID.byteCount))!

    init(database: Database) {
        self.database = database
    }

    // MARK: Declarations

    /// Every relayed declaration, in name order (bytewise).
    func declarations() throws -> [TableSchema] {
        try database.query("SELECT declaration FROM \(Self.tables)").map { try Self.decodeDeclaration($0[0]) }
            .sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }

    /// The relayed declaration of the table SQLite takes `name` for, if a peer ever sent one.
    func declaration(of name: String) throws -> TableSchema? {
        try database.scalar("SELECT declaration FROM \(Self.tables) WHERE name = ?", [.text(name)])
            .map(Self.decodeDeclaration)
    }

    /// Stores `declaration` as the one of its table.
    func declare(_ declaration: TableSchema) throws {
        let bytes = try Changeset(source: Self.storageNode, since: 0, upTo: 0, tables: [declaration], rows: [])
            .encoded()
        try database.execute(
            "INSERT OR REPLACE INTO \(Self.tables) (name, declaration) VALUES (?, ?)",
            [.text(declaration.name), .blob(bytes)])
    }

    /// What is known of a table once `incoming` is added to `known`: every column either lists, `known`'s first.
    ///
    /// A table keeps one key and one policy, and a column one merge, on every
    /// device: a changeset that says otherwise is refused, as it would be for
    /// a table synced here.
    static func union(_ known: TableSchema?, _ incoming: TableSchema) throws -> TableSchema {
        guard var union = known else { return incoming }
        guard SQLiteName.same(union.key, incoming.key) else {
            throw ReplicaError.schemaMismatch(
                table: incoming.name,
                detail: "its key is '\(incoming.key)', and a peer sent it before with the key '\(union.key)'")
        }
        guard union.policy == incoming.policy else {
            throw ReplicaError.policyMismatch(
                table: incoming.name, local: "\(union.policy.rawValue) policy (as a peer sent it before)",
                remote: "\(incoming.policy.rawValue) policy")
        }
        for (column, merge) in zip(incoming.columns, incoming.merges) {
            if let index = union.columns.firstIndex(where: { SQLiteName.same($0, column) }) {
                guard union.merges[index] == merge else {
                    throw ReplicaError.policyMismatch(
                        table: incoming.name, local: "\(column)=\(union.merges[index]) (as a peer sent it before)",
                        remote: "\(column)=\(merge)")
                }
            } else {
                union.columns.append(column)
                union.merges.append(merge)
            }
        }
        return union
    }

    // MARK: Rows

    /// The registers held for `key` of `table`'s relayed columns, lined up with `columns`; `nil` when none are.
    func load(_ table: String, key: SQLiteValue, columns: [String]) throws -> RowRegisters? {
        guard
            let bytes = try database.scalar(
                "SELECT registers FROM \(Self.rows) WHERE name = ? AND pk = ?", [.text(table), key])
        else { return nil }
        return try Self.decodeRow(bytes, columns: columns).registers
    }

    /// Stores `registers` (lined up with `schema`'s columns) for `key`, as changed at `version`;
    /// a row that holds nothing (no liveness, no register) is removed.
    func write(_ schema: TableSchema, key: SQLiteValue, _ registers: RowRegisters, version: Int64) throws {
        let present = registers.columns.indices.filter { registers.columns[$0] != nil }
        guard !present.isEmpty || registers.liveness != .unknown else {
            return try database.execute(
                "DELETE FROM \(Self.rows) WHERE name = ? AND pk = ?", [.text(schema.name), key])
        }
        let stored = TableSchema(
            name: schema.name, key: schema.key, columns: present.map { schema.columns[$0] }, policy: schema.policy,
            merges: present.map { schema.merges[$0] })
        let row = RowChange(
            table: schema.name, key: key,
            registers: RowRegisters(liveness: registers.liveness, columns: present.map { registers.columns[$0] }))
        let bytes = try Changeset(source: Self.storageNode, since: 0, upTo: 0, tables: [stored], rows: [row])
            .encoded()
        try database.execute(
            "INSERT OR REPLACE INTO \(Self.rows) (name, pk, ver, registers) VALUES (?, ?, ?, ?)",
            [.text(schema.name), key, .integer(version), .blob(bytes)])
    }

    /// Calls `body` with every row of `table` changed after `version`, lined up with `columns`, in version order.
    func forEachRow(
        of table: String, since version: Int64 = -1, columns: [String],
        _ body: (SQLiteValue, RowRegisters) throws -> Void
    ) throws {
        let statement = try database.prepare(
            "SELECT pk, registers FROM \(Self.rows) WHERE name = ? AND ver > ? ORDER BY ver, pk")
        try statement.bind([.text(table), .integer(version)])
        while try statement.step() {
            try body(statement.column(0), try Self.decodeRow(statement.column(1), columns: columns).registers)
        }
    }

    /// How many rows of `table` hold something.
    /// How many relayed rows, of any table, changed after `version`.
    func rowCount(after version: Int64) throws -> Int64 {
        try database.scalar("SELECT count(*) FROM \(Self.rows) WHERE ver > ?", [.integer(version)])?.integerValue ?? 0
    }

    func rowCount(of table: String) throws -> Int64 {
        try database.scalar("SELECT count(*) FROM \(Self.rows) WHERE name = ?", [.text(table)])?.integerValue ?? 0
    }

    /// Forgets every row of `table` (its declaration stays).
    func deleteRows(of table: String) throws {
        try database.execute("DELETE FROM \(Self.rows) WHERE name = ?", [.text(table)])
    }

    // MARK: Encoding

    private static func decodeDeclaration(_ value: SQLiteValue) throws -> TableSchema {
        guard case .blob(let bytes) = value, let table = try Changeset(decoding: bytes).tables.first else {
            throw ReplicaError.damagedMetadata("a declaration in \(tables) is not an encoded table")
        }
        return table
    }

    /// A stored row, its registers put in the order of `columns` (a column it does not hold has none).
    private static func decodeRow(_ value: SQLiteValue, columns: [String]) throws -> RowChange {
        guard case .blob(let bytes) = value, case let stored = try Changeset(decoding: bytes),
            let table = stored.tables.first, var row = stored.rows.first
        else {
            throw ReplicaError.damagedMetadata("a row in \(rows) is not an encoded row")
        }
        row.registers.columns = columns.map { column in
            table.columns.firstIndex { SQLiteName.same($0, column) }.flatMap { row.registers.columns[$0] }
        }
        return row
    }
}

extension TableSchema {
    /// The columns of this declaration that `columns` lacks (names compared as SQLite compares them), with
    /// their merges, as a declaration of those alone under this one's name, key and policy; `nil` when none.
    ///
    /// What a relayed declaration holds beyond a synced table is its *extra* columns: apply merges them with
    /// the row, export sends them on, status lists them, and a migration takes them up.
    ///
    /// ```swift
    /// declared.columns(lackedBy: ["title"])?.columns   // ["title", "priority"] declared: ["priority"]
    /// ```
    func columns(lackedBy columns: some Collection<String>) -> TableSchema? {
        let lacking = self.columns.indices.filter { index in
            !columns.contains { SQLiteName.same($0, self.columns[index]) }
        }
        guard !lacking.isEmpty else { return nil }
        return TableSchema(
            name: name, key: key, columns: lacking.map { self.columns[$0] }, policy: policy,
            merges: lacking.map { merges[$0] })
    }

    /// This declaration followed by `extras`' columns and merges.
    func appending(_ extras: TableSchema) -> TableSchema {
        TableSchema(
            name: name, key: key, columns: columns + extras.columns, policy: policy, merges: merges + extras.merges)
    }
}
