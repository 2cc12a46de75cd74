/// Reads and writes the registers of one synced table's rows.
///
/// This is the SQLite shell around ``RowMerge``: it turns metadata rows plus
/// the user table (for shown rows) or the hidden table (for the rest) into
/// ``RowRegisters``, and writes merged registers back, materializing the row
/// in the user table when it is shown and moving its values to the hidden
/// table when it is not. Its SQL is built and its statements prepared once per
/// table, on first use, since apply and fold call it for every row.
final class RegisterStore {
    let table: SyncedTable
    let database: Database
    /// The node directory the replica shares with all its stores.
    let nodes: NodeDirectory
    /// Each column's affinity (a shown row shows each value as it converts it, see ``conversions(of:)``); `nil` when
    /// the table's facts are unknown.
    /// Given when the store is made: stores are made anew whenever the synced tables change.
    let affinities: [ColumnAffinity]?
    /// What each column shows while it has no register (its DEFAULT, or NULL): a column a migration
    /// added, in rows no one has written it in since.
    let defaults: [SQLiteValue]
    /// Per column, its DEFAULT's SQL when that may give another value each time (see
    /// `TableInspector.CaptureFacts.volatileDefaults`), `nil` otherwise.
    let volatileDefaults: [String?]
    /// The columns, merged last-writer-wins under the column policy, whose DEFAULT may give another value
    /// each time: in a row no write has set one in, the replica showing the row writes the value it
    /// evaluated as its own write (see `materialize`).
    ///
    /// Why: each device evaluating such a DEFAULT for itself (`CURRENT_TIMESTAMP`, `(random())`) would
    /// show its own value for good while every register agrees; written, last-writer-wins settles one
    /// value everywhere. Only these columns: under the row policy such a write would stamp the whole
    /// row, and a merge by value would join the value evaluated into others.
    let volatileColumns: [Int]
    /// Whether a child can bring this table's deleted rows back (it is the parent of a RESTRICT or NO ACTION
    /// key), known when the store is made for the same reason.
    let isRevivable: Bool
    var marks: RowMarks { RowMarks(database: database) }

    /// A row's registers and where its values live.
    struct StoredRow {
        var registers: RowRegisters
        /// The row is in the user table.
        var shown: Bool
        /// The row has values in the hidden table.
        var hasHiddenValues: Bool
        /// The local version of the row's last change: its rowid in the register table
        /// (0 for a row assembled in memory rather than read).
        var version: Int64 = 0
        /// Per column, what the write of its register saw (see ``ConflictRule``); `nil` when none
        /// saw anything of another device (or when not read).
        var seen: [Stamp?]?
    }

    /// The statements this store runs, each prepared on first use.
    enum Slot: Int, CaseIterable {
        case select, stamps, insertMetadata, updateMetadata, insertShown, writeHidden, deleteHidden, deleteShown, since
        case insertMetadataSeen, updateMetadataSeen
    }

    /// The values of rows an app trigger deleted while Concord merged, by key, in column order, until the
    /// merge's transaction logs their deletes (see ``Replica/keepCaughtRows(_:)``): read as the values of a
    /// row gone from both tables, so what the merge writes of the row keeps them.
    var caughtValues: [SQLiteValue: [SQLiteValue]] = [:]
    /// The key of the row this store's merge deletes from the user table while it does (see
    /// ``Replica/keepCaughtRows(_:)``).
    var deletingKey: SQLiteValue?

    private var statements: [Statement?] = Array(repeating: nil, count: Slot.allCases.count)
    /// The updates of a shown row's values, by the columns they set (see ``updateShown(_:)``).
    private var shownUpdates: [[Int]: Statement] = [:]

    init(
        table: SyncedTable, database: Database, nodes: NodeDirectory, affinities: [ColumnAffinity]?,
        defaults: [SQLiteValue]? = nil, volatileDefaults: [String?]? = nil, isRevivable: Bool
    ) {
        self.table = table
        self.database = database
        self.nodes = nodes
        self.affinities = affinities
        self.defaults = defaults ?? table.columns.map { _ in .null }
        let volatileDefaults = volatileDefaults ?? table.columns.map { _ in nil }
        self.volatileDefaults = volatileDefaults
        volatileColumns =
            table.hasColumnStamps
            ? table.columns.indices.filter { volatileDefaults[$0] != nil && table.merges[$0] == .lww } : []
        self.isRevivable = isRevivable
    }

    /// The SQL of `slot`, built when the slot is first prepared: a replica makes a store for every synced
    /// table each time it opens, and most opens run only a few of a store's statements.
    func sql(_ slot: Slot) -> String {
        let stamps = ["m.cl", "m.hlc", "m.node", "m.clh", "m.cln"] + table.stampColumns.map { "m.\($0)" }
        let byKey = " WHERE m.kh = ? AND m.pk = ?"
        let registerColumns = ["ver", "cl", "hlc", "node", "clh", "cln"] + table.stampColumns
        /// The stamps, placement and values of a row, and what the writes of its registers saw.
        func load(_ filter: String) -> String {
            let values = zip(table.hiddenColumns, table.quotedColumns).map {
                "CASE WHEN h.pk IS NOT NULL THEN h.\($0) ELSE t.\($1) END"
            }
            let selected = (stamps + ["h.pk IS NOT NULL", "t.\(table.quotedKey) IS NOT NULL"] + values)
                .joined(separator: ", ")
            return "SELECT m.pk, m.ver, " + selected + ", m.seen FROM \(table.rowsTable) AS m "
                + "LEFT JOIN \(table.hiddenTable) AS h ON h.pk = m.pk "
                + "LEFT JOIN \(table.qualifiedName) AS t ON t.\(table.quotedKey) = m.pk" + filter
        }
        func insertMetadata(_ columns: [String]) -> String {
            "INSERT INTO \(table.rowsTable) (\((columns + ["kh", "pk"]).joined(separator: ", "))) "
                + "VALUES (\(Self.placeholders(columns.count + 2)))"
        }
        func updateMetadata(_ columns: [String]) -> String {
            "UPDATE \(table.rowsTable) SET " + columns.map { "\($0) = ?" }.joined(separator: ", ") + " WHERE ver = ?"
        }
        switch slot {
        case .select:
            return load(byKey)
        case .since:
            return load(" WHERE m.ver > ? ORDER BY m.ver")
        case .stamps:
            return "SELECT m.pk, m.ver, " + stamps.joined(separator: ", ") + ", m.seen FROM \(table.rowsTable) AS m"
                + byKey
        case .insertMetadata:
            return insertMetadata(registerColumns)
        case .updateMetadata:
            return updateMetadata(registerColumns)
        case .insertMetadataSeen:
            return insertMetadata(registerColumns + ["seen"])
        case .updateMetadataSeen:
            return updateMetadata(registerColumns + ["seen"])
        case .insertShown:
            return "INSERT INTO \(table.qualifiedName) "
                + "(\(([table.quotedKey] + table.quotedColumns).joined(separator: ", "))) "
                + "VALUES (\(Self.placeholders(table.columns.count + 1)))"
        case .writeHidden:
            return
                "INSERT OR REPLACE INTO \(table.hiddenTable) (\((["pk"] + table.hiddenColumns).joined(separator: ", "))) "
                + "VALUES (\(Self.placeholders(table.columns.count + 1)))"
        case .deleteHidden:
            return "DELETE FROM \(table.hiddenTable) WHERE pk = ?"
        case .deleteShown:
            return "DELETE FROM \(table.qualifiedName) WHERE \(table.quotedKey) = ?"
        }
    }

    func statement(_ slot: Slot) throws -> Statement {
        if let statement = statements[slot.rawValue] { return statement }
        let statement = try database.prepare(sql(slot))
        statements[slot.rawValue] = statement
        return statement
    }

    /// The statement that sets `columns` (positions, ascending) of the user table's row, bound to their
    /// values and then the key; prepared once per set of columns.
    func updateShown(_ columns: [Int]) throws -> Statement {
        if let statement = shownUpdates[columns] { return statement }
        let statement = try database.prepare(
            "UPDATE \(table.qualifiedName) SET "
                + columns.map { "\(table.quotedColumns[$0]) = ?" }.joined(separator: ", ")
                + " WHERE \(table.quotedKey) = ?")
        shownUpdates[columns] = statement
        return statement
    }

    private static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    // MARK: Reading

    /// Whether no row of this table has registers here.
    func isEmpty() throws -> Bool {
        try database.scalar("SELECT EXISTS (SELECT 1 FROM \(table.rowsTable))") == .integer(0)
    }

    /// The stored registers of the row with `key`, or `nil` if this replica never heard of it.
    func load(_ key: SQLiteValue) throws -> StoredRow? {
        let statement = try statement(.select)
        try statement.bind([.integer(KeyHash.of(key)), key])
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return try decode(statement, withValues: true, withSeen: true)
    }

    /// The stored stamps of the row with `key` (values read as NULL), for folding local writes.
    func loadStamps(_ key: SQLiteValue) throws -> StoredRow? {
        let statement = try statement(.stamps)
        try statement.bind([.integer(KeyHash.of(key)), key])
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return try decode(statement, withValues: false, withSeen: true)
    }

    /// Calls `body` with every row changed after `version`, in version then key order.
    func forEachRow(since version: Int64, _ body: (SQLiteValue, StoredRow) throws -> Void) throws {
        // Kept prepared (exports run often), unless a caller's `body` is already iterating it.
        let statement = try database.idle(statement(.since))
        try statement.bind([.integer(version)])
        defer { statement.reset() }
        while try statement.step() {
            try body(statement.column(0), try decode(statement, withValues: true, withSeen: true))
        }
    }

    /// Decodes a row of `loadSQL` (or of `stampsSQL` when `withValues` is false); column 0 is the key, 1 the version;
    /// with `withSeen`, the last column is `seen`.
    private func decode(_ statement: Statement, withValues: Bool, withSeen: Bool = false) throws -> StoredRow {
        let version = statement.int64(1)
        var index: Int32 = 2
        func next() -> Int32 {
            defer { index += 1 }
            return index
        }
        let causalLength = UInt64(bitPattern: statement.int64(next()))
        let base = try stamp(statement, next(), next())
        let livenessStamp = statement.isNull(index) ? base : try stamp(statement, index, index + 1)
        index += 2
        var stamps: [Stamp?] = []
        for _ in table.columns {
            if table.hasColumnStamps {
                stamps.append(statement.isNull(index) ? base : try stamp(statement, index, index + 1))
                index += 2
            } else {
                stamps.append(base)
            }
        }
        let hasHiddenValues = withValues && statement.int64(next()) != 0
        let shown = withValues && statement.int64(next()) != 0
        let caught =
            withValues && !shown && !hasHiddenValues && !caughtValues.isEmpty
            ? caughtValues[statement.column(0)] : nil
        let columns = stamps.enumerated().map { column, stamp in
            let value = withValues ? statement.column(next()) : .null
            return stamp.map { ColumnRegister(value: caught?[column] ?? value, stamp: $0) }
        }
        var registers = RowRegisters(
            liveness: Liveness(causalLength: causalLength, stamp: livenessStamp), columns: columns)
        if !table.counterColumns.isEmpty {
            let entries = try contributions(statement.column(0))
            for index in table.counterColumns { registers.columns[index]?.contributions = entries[index] ?? [] }
        }
        var row = StoredRow(registers: registers, shown: shown, hasHiddenValues: hasHiddenValues, version: version)
        if withSeen && !statement.isNull(index) {
            row.seen = try SeenStamps.decode(
                statement.column(index).blobValue ?? [], columns: table.columns.count, nodes: nodes)
        }
        return row
    }

    private func stamp(_ statement: Statement, _ hlcColumn: Int32, _ nodeColumn: Int32) throws -> Stamp? {
        let hlc = statement.int64(hlcColumn)
        guard let node = try nodes.node(at: statement.int64(nodeColumn)) else { return nil }
        return Stamp(hlc: HLCTimestamp(sqliteValue: hlc), node: node)
    }

    // MARK: Counters

    /// The counter contributions stored for `key`, by column index, each list in node order.
    func contributions(_ key: SQLiteValue) throws -> [Int: [CounterContribution]] {
        var result: [Int: [CounterContribution]] = [:]
        for row in try database.query(
            "SELECT col, node, cl, amount, hlc FROM \(table.countersTable) WHERE pk = ? ORDER BY col, node", [key])
        {
            guard let position = row[0].integerValue, table.columns.indices.contains(Int(position)),
                let node = try nodes.node(at: row[1].integerValue ?? 0)
            else { continue }
            let index = Int(position)
            result[index, default: []].append(
                CounterContribution(
                    causalLength: UInt64(bitPattern: row[2].integerValue ?? 0), amount: row[3].integerValue ?? 0,
                    stamp: Stamp(hlc: HLCTimestamp(sqliteValue: row[4].integerValue ?? 0), node: node)))
        }
        return result.mapValues { $0.sorted { $0.stamp.node < $1.stamp.node } }
    }

    /// Replaces the counter contributions of one column of `key`.
    func writeContributions(_ key: SQLiteValue, column: Int, _ entries: [CounterContribution]) throws {
        let position = SQLiteValue.integer(Int64(column))
        try database.execute("DELETE FROM \(table.countersTable) WHERE pk = ? AND col = ?", [key, position])
        for entry in entries {
            try database.execute(
                "INSERT INTO \(table.countersTable) (pk, col, node, cl, amount, hlc) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    key, position, .integer(try nodes.indexRegistering(entry.stamp.node)),
                    .integer(Int64(bitPattern: entry.causalLength)), .integer(entry.amount),
                    .integer(entry.stamp.hlc.sqliteValue),
                ])
        }
    }

    /// Sets one column's value wherever the row's values live: the user table (as its column stores it),
    /// the hidden copy, or both; returns whether the row has a hidden copy.
    ///
    /// A shown row whose column converts the value gets a hidden copy to keep the value as set (see
    /// ``conversions(of:)``); one that no longer needs its copy keeps it until it is reprojected, so a
    /// caller reprojects the rows this returns true for.
    ///
    /// A row that shows the value already, by its bytes and type, is left alone: updating it anyway
    /// fires the app's triggers on a change nobody made (an outbox written twice, a `RAISE(ABORT)` on a
    /// locked row stopping every fold). A zero real is always written, since `0.0` and `-0.0` compare equal.
    @discardableResult
    func setValue(_ key: SQLiteValue, column: Int, _ value: SQLiteValue) throws -> Bool {
        let shown = try database.stored(value, as: affinities?[column] ?? .blob)
        let c = table.quotedColumns[column]
        try database.cached(
            "UPDATE \(table.qualifiedName) SET \(c) = ?1 WHERE \(table.quotedKey) = ?2 AND (\(c) IS NOT ?1 COLLATE BINARY "
                + "OR typeof(\(c)) <> typeof(?1) OR (typeof(?1) = 'real' AND ?1 = 0))"
        ).run([shown, key])
        if shown != value,
            try database.changes > 0
                || database.scalar("SELECT 1 FROM \(table.qualifiedName) WHERE \(table.quotedKey) = ?", [key]) != nil
        {
            try database.cached(
                "INSERT OR IGNORE INTO \(table.hiddenTable) (\((["pk"] + table.hiddenColumns).joined(separator: ", "))) "
                    + "SELECT \(([table.quotedKey] + table.quotedColumns).joined(separator: ", ")) "
                    + "FROM \(table.qualifiedName) WHERE \(table.quotedKey) = ?"
            ).run([key])
        }
        try database.cached("UPDATE \(table.hiddenTable) SET \(table.hiddenColumns[column]) = ? WHERE pk = ?")
            .run([value, key])
        return database.changes > 0
    }

    /// Copies columns a local update changed from the user table into the row's hidden copy, if it has one;
    /// returns whether it had one.
    @discardableResult
    func refreshHiddenCopy(_ key: SQLiteValue, changed: [Bool]) throws -> Bool {
        let assignments = table.quotedColumns.indices.filter { changed[$0] }.map {
            "\(table.hiddenColumns[$0]) = t.\(table.quotedColumns[$0])"
        }
        guard !assignments.isEmpty else { return false }
        try database.cached(
            "UPDATE \(table.hiddenTable) SET \(assignments.joined(separator: ", ")) "
                + "FROM \(table.qualifiedName) AS t WHERE \(table.hiddenTable).pk = ? AND t.\(table.quotedKey) = ?"
        ).run([key, key])
        return database.changes > 0
    }

    // MARK: Writing

    /// Writes the counter contributions that differ from `previous`.
    func writeCounters(_ key: SQLiteValue, _ registers: RowRegisters, previous: StoredRow?) throws {
        for index in table.counterColumns
        where registers.columns[index]?.contributions != previous?.registers.columns[index]?.contributions {
            try writeContributions(key, column: index, registers.columns[index]?.contributions ?? [])
        }
    }

    /// The values a row shows: each register's, or the column's default where it has none.
    func shownValues(_ registers: RowRegisters) -> [SQLiteValue] {
        registers.columns.enumerated().map { $1?.value ?? defaults[$0] }
    }

    /// The rows of this table whose `column` holds one of `values`, shown or hidden, each as its key and
    /// the value it holds there.
    ///
    /// The column's affinity may convert what is asked for (`'1.0'` finds `1` in an INTEGER column), so
    /// a caller that needs the exact value checks the one returned. A hidden copy keeps values as written,
    /// which the column may convert to one of `values` (`'07'` is `7` to an INTEGER column): the hidden
    /// values of a type the column converts are returned too, for the caller to check. (Values sort by
    /// type, numbers before text before blobs, so the column's index finds those in one range, empty in
    /// a column that holds its own type.) In no particular order.
    func keys(where column: Int, isOneOf values: [SQLiteValue]) throws -> [(key: SQLiteValue, value: SQLiteValue)] {
        let list = Array(repeating: "?", count: values.count).joined(separator: ", ")
        let shownColumn = table.quotedColumns[column]
        let shown = try database.cached(
            "SELECT \(table.quotedKey), \(shownColumn) FROM \(table.qualifiedName) WHERE \(shownColumn) IN (\(list))"
        ).all(values)
        let hiddenColumn = table.hiddenColumns[column]
        var hidden = try database.cached(
            "SELECT pk, \(hiddenColumn) FROM \(table.hiddenTable) WHERE \(hiddenColumn) IN (\(list))"
        ).all(values)
        let converted: String? =
            switch affinities?[column] ?? .blob {
            case .blob: nil
            case .text: "\(hiddenColumn) < ''"
            case .integer, .real, .numeric: "\(hiddenColumn) >= '' AND \(hiddenColumn) < x''"
            }
        if let converted {
            // Unordered (the caller sorts), so that SQLite takes the column's index rather than scan every
            // hidden copy in key order: a parent shown or hidden looks its children up here.
            hidden += try database.cached(
                "SELECT pk, \(hiddenColumn) FROM \(table.hiddenTable) WHERE \(converted)"
            ).all([])
        }
        return (shown + hidden).map { (key: $0[0], value: $0[1]) }
    }

    /// Moves the row stored at `version` to `newVersion`, registers unchanged.
    func move(from version: Int64, to newVersion: Int64) throws {
        try database.execute(
            "UPDATE \(table.rowsTable) SET ver = ? WHERE ver = ?", [.integer(newVersion), .integer(version)])
    }

    /// Removes the hidden copy of a row that is shown again.
    func deleteHidden(_ key: SQLiteValue) throws { try statement(.deleteHidden).run([key]) }

    /// Stores the stamps compactly: the most common stamp is the base, the rest are overrides.
    ///
    /// The row moves to `version` (a new, highest one); `previous` is its
    /// version until now, `nil` for a key not stored before. `seen` replaces
    /// what the writes of the row's registers saw; `nil` leaves it as it was,
    /// unless `clearingSeen` says it becomes none.
    func writeMetadata(
        _ key: SQLiteValue, _ registers: RowRegisters, version: Int64, previous: Int64?, seen: [Stamp?]? = nil,
        clearingSeen: Bool = false
    ) throws {
        // Most writes saw nothing of another device (an insert, an edit of one's own row): then the row's
        // seen stamps were none before either, and the statements without them leave them so.
        let packed = try seen.flatMap { try SeenStamps.encode($0, nodes: nodes) }
        let writesSeen = packed != nil || clearingSeen
        // The base is what most registers share; a register with the base stamp is stored as NULLs, one
        // that does not exist as (0, 0), so an absent register never reads back as one with the base stamp.
        // A row-policy row's columns all have the base stamp, which is (0, 0) when it has none.
        let base: Stamp?
        if table.hasColumnStamps {
            base = Self.mostCommon(registers.columns.map { $0?.stamp }) ?? registers.liveness.stamp
        } else {
            base = RowMerge.rowStamp(registers)
        }
        // Bound in place, in the column order of insertMetadataSQL and updateMetadataSQL: apply writes every row here.
        let slot: Slot =
            !writesSeen
            ? (previous == nil ? .insertMetadata : .updateMetadata)
            : (previous == nil ? .insertMetadataSeen : .updateMetadataSeen)
        var parameters = try Statement.Parameters(statement(slot))
        try parameters.bind(.integer(version))
        try parameters.bind(.integer(Int64(bitPattern: registers.liveness.causalLength)))
        try bind(base, into: &parameters)
        try bindOverride(registers.liveness.stamp, base: base, into: &parameters)
        if table.hasColumnStamps {
            for column in registers.columns { try bindOverride(column?.stamp, base: base, into: &parameters) }
        }
        if writesSeen { try parameters.bind(packed.map { .blob($0) } ?? .null) }
        if let previous {
            try parameters.bind(.integer(previous))
        } else {
            try parameters.bind(.integer(KeyHash.of(key)))
            try parameters.bind(key)
        }
        try parameters.run()
    }

    /// The stamp most columns share (the highest on a tie), counted in place: a row has few columns.
    static func mostCommon(_ stamps: [Stamp?]) -> Stamp? {
        var best: Stamp?
        var bestCount = 0
        for (index, candidate) in stamps.enumerated() {
            guard let candidate, !stamps[..<index].contains(candidate) else { continue }
            let count = stamps[index...].reduce(0) { $1 == candidate ? $0 + 1 : $0 }
            if count > bestCount || (count == bestCount && best.map { candidate > $0 } ?? true) {
                (best, bestCount) = (candidate, count)
            }
        }
        return best
    }

    /// Binds a stamp that may differ from the row's base: NULLs when it is the base, (0, 0) when there is none.
    private func bindOverride(_ stamp: Stamp?, base: Stamp?, into parameters: inout Statement.Parameters) throws {
        try bind(stamp == base ? nil : stamp, orNull: stamp == base, into: &parameters)
    }

    /// Binds a stamp's clock and node index; a missing stamp is (0, 0), or two NULLs with `orNull`.
    private func bind(_ stamp: Stamp?, orNull: Bool = false, into parameters: inout Statement.Parameters) throws {
        guard let stamp else {
            try parameters.bind(orNull ? .null : .integer(0))
            try parameters.bind(orNull ? .null : .integer(0))
            return
        }
        try parameters.bind(.integer(stamp.hlc.sqliteValue))
        try parameters.bind(.integer(try nodes.indexRegistering(stamp.node)))
    }
}
