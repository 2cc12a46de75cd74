/// Reads a user table's declaration from SQLite and decides whether it can sync.
///
/// Only tables whose rows can be merged key by key qualify: one primary-key
/// column holding globally unique TEXT or BLOB values, and no other UNIQUE
/// constraint (two replicas could insert the same unique value under
/// different keys, and no merge could keep both). Anything else is refused
/// with an error that names the table, the reason and the fix.
///
/// Every pragma is read as a `PRAGMA main.…('name')` statement
/// (``Database/pragma(_:of:)``): an app table, view or TEMP table named
/// `pragma_table_xinfo` hides the table-valued function, and without the
/// schema a temporary table would hide the synced one of the same name.
///
/// ```swift
/// let table = try TableInspector(database).inspect("reminders", policy: .column)
/// ```
struct TableInspector {
    let database: Database

    init(_ database: Database) { self.database = database }

    /// A column as `PRAGMA table_xinfo` reports it.
    struct Column {
        var name: String
        var declaredType: String
        var primaryKeyPosition: Int64
        var hidden: Int64
    }

    func inspect(_ requested: String, policy: TablePolicy) throws -> SyncedTable {
        guard
            let row = try database.query(
                "SELECT name, type, sql FROM sqlite_schema WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE",
                [.text(requested)]
            ).first, let name = row[0].textValue
        else { throw ReplicaError.tableNotFound(requested) }
        let refuse = { (reason: String, fix: String) in
            ReplicaError.unsupportedTable(table: name, reason: reason, fix: fix)
        }
        try checkOrdinaryTable(name, schemaRow: row, refuse: refuse)

        let columns = try database.pragma("table_xinfo", of: name).map {
            Column(
                name: $0.text("name") ?? "", declaredType: $0.text("type") ?? "",
                primaryKeyPosition: $0.integer("pk"), hidden: $0.integer("hidden"))
        }
        let key = try mergeableKey(of: name, columns: columns, refuse: refuse)
        if let index = try Self.firstUniqueIndex(of: name, in: database) {
            throw refuse(Self.uniqueIndexReason(index), Self.uniqueIndexFix)
        }
        let synced = columns.filter { $0.primaryKeyPosition == 0 && $0.hidden == 0 }.map(\.name)
        try checkColumnNames([key.name] + synced, refuse: refuse)
        if synced.count > Self.maxColumns(in: database) {
            throw refuse(Self.tooManyColumnsReason(synced.count, in: database), Self.tooManyColumnsFix)
        }
        return SyncedTable(name: name, key: key.name, columns: synced, policy: policy)
    }

    /// The most columns besides its key a synced table may have: Concord reads a row's registers with three
    /// result columns per column (two stamps and the value) and ten more, in one query, under SQLite's
    /// column limit (`SQLITE_LIMIT_COLUMN`: 663 at the default 2,000).
    ///
    /// Why: a wider table was enabled, and every fold after failed with "too many columns in result set":
    /// the app's writes went on, captured, and none ever synced.
    static func maxColumns(in database: Database) -> Int { (database.columnLimit - 10) / 3 }

    /// Why a table of `count` columns besides its key cannot sync.
    static func tooManyColumnsReason(_ count: Int, in database: Database) -> String {
        "it has \(count) columns besides its key, more than the \(maxColumns(in: database)) Concord can keep "
            + "registers for under this SQLite's column limit"
    }

    static let tooManyColumnsFix = "split the table into tables of fewer columns that share its key"

    /// The first UNIQUE index of `table` other than its primary key's, by name: a UNIQUE constraint or a
    /// `CREATE UNIQUE INDEX`.
    static func firstUniqueIndex(of table: String, in database: Database) throws -> String? {
        try database.pragma("index_list", of: table)
            .filter { $0.integer("unique") == 1 && $0.text("origin") != "pk" }.compactMap { $0.text("name") }
            .min { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Why a synced table cannot have a UNIQUE index besides its key (enabling refuses it, and a migration
    /// adding one stops the table).
    static func uniqueIndexReason(_ index: String) -> String {
        "it has a UNIQUE constraint besides its primary key (index \(index)); "
            + "two devices can insert the same value under different keys and no merge keeps both, and "
            + "INSERT OR REPLACE deletes the rows it collides with without firing their delete triggers"
    }

    static let uniqueIndexFix =
        "drop the UNIQUE constraint and enforce uniqueness in the application, or make that column the key"

    /// Refuses a view, a virtual table, SQLite's or Concord's own tables, and a table with an empty name.
    private func checkOrdinaryTable(
        _ name: String, schemaRow row: [SQLiteValue], refuse: (String, String) -> ReplicaError
    ) throws {
        if row[1] == .text("view") { throw refuse("it is a view", "sync the tables the view reads from") }
        if let sql = row[2].textValue, sql.uppercased().hasPrefix("CREATE VIRTUAL") {
            throw refuse("it is a virtual table", "sync an ordinary table instead")
        }
        if SQLiteName.hasPrefix(name, Metadata.prefix) {
            throw refuse(
                "names starting with \(Metadata.prefix) (in any case) are reserved for Concord's own metadata",
                "rename the table")
        }
        if SQLiteName.hasPrefix(name, "sqlite_") {
            throw refuse("it is one of SQLite's internal tables", "sync one of the application's own tables")
        }
        if name.isEmpty {
            throw refuse("its name is empty, and changesets name every table they carry", "rename the table")
        }
    }

    /// Why the key of the table `name` (whose `PRAGMA table_xinfo` rows are `rows`) can no longer be merged,
    /// or `nil`: a rebuild that declared it INTEGER or NUMERIC, or gave it a collation other than BINARY.
    ///
    /// Why: enabling refuses such a key, and a rebuild that makes one must stop the table the same way.
    /// Taken up, a NOCASE key made another device's row `a` overwrite this device's row `A`; an INT key
    /// turned `'007'` into 7, and a delete of `'007'` then took the row 7 on every device.
    func keyProblem(of name: String, rows: [Database.PragmaRow]) throws -> (change: String, fix: String)? {
        let columns = rows.map {
            Column(
                name: $0.text("name") ?? "", declaredType: $0.text("type") ?? "",
                primaryKeyPosition: $0.integer("pk"), hidden: $0.integer("hidden"))
        }
        do {
            _ = try mergeableKey(of: name, columns: columns) {
                ReplicaError.unsupportedTable(table: name, reason: $0, fix: $1)
            }
            return nil
        } catch ReplicaError.unsupportedTable(_, let reason, let fix) {
            return (reason, fix)
        }
    }

    /// The table's key column, once it is the only one, holds TEXT or BLOB and compares bytes exactly.
    private func mergeableKey(
        of name: String, columns: [Column], refuse: (String, String) -> ReplicaError
    ) throws -> Column {
        let keyColumns = columns.filter { $0.primaryKeyPosition > 0 }
        guard keyColumns.count == 1, let key = keyColumns.first else {
            throw keyColumns.isEmpty
                ? refuse(
                    "it has no PRIMARY KEY, so rows are identified by rowids that differ on every device",
                    "add a TEXT primary key holding a UUID, e.g. `id TEXT PRIMARY KEY NOT NULL`")
                : refuse(
                    "its primary key spans \(keyColumns.count) columns; only single-column keys can be merged",
                    "give it a single TEXT primary key holding a UUID and make the old key columns a plain index")
        }
        switch ColumnAffinity(declaredType: key.declaredType) {
        case .text, .blob: break
        case .integer:
            throw refuse(
                "its primary key \(key.name) is an INTEGER, which devices allocate independently and so collide",
                "use a TEXT primary key holding a UUID")
        case .real, .numeric:
            throw refuse(
                "its primary key \(key.name) is declared \(key.declaredType), not TEXT or BLOB",
                "declare the key `TEXT PRIMARY KEY` and store UUIDs in it")
        }
        if let collation = try keyCollations(of: name, key: key.name).first(where: { $0.uppercased() != "BINARY" }) {
            throw refuse(
                "its primary key \(key.name) compares with the \(collation) collation, under which different "
                    + "keys written on two devices (such as 'Alice' and 'alice') name one row, so one write would be lost",
                "declare the key without a COLLATE clause (BINARY), and normalize keys in the app if it needs "
                    + "case-insensitive lookups")
        }
        return key
    }

    /// Refuses column names (the key's first) that are empty, or that Swift takes for one another.
    private func checkColumnNames(_ names: [String], refuse: (String, String) -> ReplicaError) throws {
        if names.contains(where: \.isEmpty) {
            throw refuse(
                "a column's name is empty (or is not UTF-8), and changesets name every column they carry",
                "rename the column")
        }
        // Swift, and so Concord's bookkeeping, takes canonically equivalent spellings for one name; SQLite does not.
        for (index, column) in names.enumerated() {
            if let twin = names[..<index].first(where: { $0 == column }) {
                throw refuse(
                    "its columns '\(twin)' and '\(column)' are spelled with different Unicode bytes "
                        + "(\(Hex.encode(Array(twin.utf8))) and \(Hex.encode(Array(column.utf8)))) that read as the same text",
                    "rename one of them")
            }
        }
    }

    /// The collations the table's key is compared with: the column's own, which SQL comparisons
    /// use, and its primary-key index's, which decides which keys are one row.
    private func keyCollations(of table: String, key: String) throws -> [String] {
        var collations = [try database.columnCollation(table: table, column: key)]
        if let index = try database.pragma("index_list", of: table).first(where: { $0.text("origin") == "pk" })?
            .text("name")
        {
            let key = try database.pragma("index_xinfo", of: index)
                .filter { $0.integer("key") == 1 && $0.integer("cid") >= 0 }.min {
                    $0.integer("seqno") < $1.integer("seqno")
                }
            collations.append(key?.text("coll") ?? "BINARY")
        }
        return collations
    }

    /// What the capture triggers of `table` must compare and guard.
    struct CaptureFacts: Hashable, Sendable {
        /// Per synced column: whether an update compares types as well as bytes (see ``comparesTypes(of:)``).
        var comparesTypes: [Bool]
        /// Whether the key column could take a value that cannot sync (NULL, a number), so an insert checks it.
        var guardsKey: Bool
        /// Per synced column: its affinity, which decides what a merged value becomes in the table.
        var affinities: [ColumnAffinity]
        /// Per synced column: what it shows while no write has set it — its DEFAULT as the column stores
        /// it, or NULL (a column added by a migration shows this in rows written before it).
        var defaults: [SQLiteValue]
        /// Per synced column: its DEFAULT's SQL when that is not a plain literal (`CURRENT_TIMESTAMP`,
        /// `(random())`), which may give another value each time and on each device; `nil` otherwise.
        /// A row no write has set such a column in shows a value its replica then writes as its own
        /// (see `RegisterStore.materialize`), so that every device shows the same one.
        var volatileDefaults: [String?]
        /// The columns of `SET NULL` / `SET DEFAULT` keys, which may show a stand-in while the row's hidden
        /// copy keeps the real reference (a delete must keep that, see `CaptureTriggers`).
        var standIns: [StandIn] = []
        /// Whether the key column has TEXT affinity: then SQLite may hand a trigger the key converted to a
        /// number (see `CaptureTriggers+NumericKeys.swift`).
        var keyIsText = false
        /// A name the table's rowid goes by that no column of the table takes (`rowid`, `_rowid_` or `oid`);
        /// `nil` for a `WITHOUT ROWID` table, or one whose columns take all three.
        var rowidName: String?

        /// A column that shows `value` (SQL: `NULL`, or the column's DEFAULT expression) while the row its
        /// reference names is not in `parent`, whose key column is `parentKey`.
        struct StandIn: Hashable, Sendable {
            let column: Int
            let parent: String
            let parentKey: String
            let value: String
        }

        init(
            comparesTypes: [Bool], guardsKey: Bool, affinities: [ColumnAffinity]? = nil,
            defaults: [SQLiteValue]? = nil, volatileDefaults: [String?]? = nil, standIns: [StandIn] = [],
            keyIsText: Bool = false, rowidName: String? = nil
        ) {
            self.comparesTypes = comparesTypes
            self.guardsKey = guardsKey
            self.affinities = affinities ?? comparesTypes.map { _ in .blob }
            self.defaults = defaults ?? comparesTypes.map { _ in .null }
            self.volatileDefaults = volatileDefaults ?? comparesTypes.map { _ in nil }
            self.standIns = standIns
            self.keyIsText = keyIsText
            self.rowidName = rowidName
        }
    }

    func captureFacts(of table: SyncedTable) throws -> CaptureFacts {
        try captureFacts(of: table, declared: declaredColumns(of: table))
    }

    /// The capture facts of `table`, whose synced columns' declared types and DEFAULTs are `declared`
    /// (see ``declaredColumns(of:)``).
    func captureFacts(of table: SyncedTable, declared: [(type: String, defaultSQL: String?)?]) throws -> CaptureFacts {
        let key = try database.columnInfo(table.key, of: table.name)
        // A TEXT key column turns numbers into text; only NULL can get past it, and NOT NULL (or
        // WITHOUT ROWID, which implies it) stops that. Anything else is checked on every insert.
        let isText = ColumnAffinity(declaredType: key?.text("type") ?? "") == .text
        let listed = try database.pragma("table_list", of: table.name).first
        let withoutRowID = listed?.integer("wr") == 1
        let notNull = key?.integer("notnull") == 1 || withoutRowID
        let strict = listed?.integer("strict") == 1
        let affinities = declared.map {
            $0.map { ColumnAffinity(declaredType: $0.type, strict: strict) } ?? .blob
        }
        var defaults: [SQLiteValue] = []
        for (column, affinity) in zip(declared, affinities) {
            defaults.append(try defaultValue(column?.defaultSQL, as: affinity))
        }
        let columnNames = try database.pragma("table_xinfo", of: table.name).compactMap { $0.text("name") }
        let rowidName =
            withoutRowID
            ? nil : ["rowid", "_rowid_", "oid"].first { name in !columnNames.contains { SQLiteName.same($0, name) } }
        return CaptureFacts(
            comparesTypes: affinities.map { $0 == .blob }, guardsKey: !(isText && notNull),
            affinities: affinities, defaults: defaults,
            volatileDefaults: declared.map { $0?.defaultSQL.flatMap { InspectionCache.isLiteral($0) ? nil : $0 } },
            standIns: try standIns(of: table, declared: declared), keyIsText: isText, rowidName: rowidName)
    }

    /// The columns of `table`'s `SET NULL` and `SET DEFAULT` keys, with what they show in place of a parent.
    private func standIns(of table: SyncedTable, declared: [(type: String, defaultSQL: String?)?]) throws
        -> [CaptureFacts.StandIn]
    {
        var standIns: [CaptureFacts.StandIn] = []
        for link in try database.foreignKeyList(of: table.name) {
            guard let action = link.text("on_delete")?.uppercased(), action == "SET NULL" || action == "SET DEFAULT",
                let from = link.text("from"), let parent = link.text("table"),
                let column = table.columns.firstIndex(where: { SQLiteName.same($0, from) }),
                let key = try link.text("to")
                    ?? database.pragma("table_info", of: parent).first(where: { $0.integer("pk") == 1 })?.text("name")
            else { continue }
            let value = action == "SET NULL" ? "NULL" : declared[column]?.defaultSQL.map { "(\($0))" } ?? "NULL"
            standIns.append(.init(column: column, parent: parent, parentKey: key, value: value))
        }
        return standIns
    }

    /// The value a DEFAULT clause gives, as a column of `affinity` stores it (NULL without one, or when
    /// it cannot be evaluated on its own).
    private func defaultValue(_ sql: String?, as affinity: ColumnAffinity) throws -> SQLiteValue {
        try sql.flatMap { try database.evaluatedDefault($0, as: affinity) } ?? .null
    }

    /// Whether an update must compare each of `table`'s synced columns by type as well as by bytes.
    ///
    /// SQL equality holds 1 = 1.0, so a change of a value's type alone
    /// escapes `IS NOT`. Only a column of BLOB affinity (declared BLOB or
    /// with no type) can hold both: an INTEGER or NUMERIC column stores an
    /// integral REAL as an INTEGER, a REAL column stores every number as a
    /// REAL, and a TEXT column every number as TEXT. The capture trigger
    /// pays for `typeof` only where it can matter.
    ///
    /// ```swift
    /// // CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER, v)
    /// try TableInspector(database).comparesTypes(of: t)   // [false, true]
    /// ```
    func comparesTypes(of table: SyncedTable) throws -> [Bool] { try captureFacts(of: table).comparesTypes }

    /// The declared type and DEFAULT of each synced column, `nil` for one the table no longer declares
    /// (which then compares by type too: that costs time, never a missed change).
    func declaredColumns(of table: SyncedTable) throws -> [(type: String, defaultSQL: String?)?] {
        // Matched as SQLite matches names: by bytes but for ASCII case (a column renamed `title` to `TITLE`).
        var declared: [[UInt8]: (type: String, defaultSQL: String?)] = [:]
        for row in try database.pragma("table_xinfo", of: table.name) {
            guard let name = row.text("name") else { continue }
            declared[SQLiteName.folded(name)] =
                declared[SQLiteName.folded(name)] ?? (row.text("type") ?? "", row.text("dflt_value"))
        }
        return table.columns.map { declared[SQLiteName.folded($0)] }
    }
}
