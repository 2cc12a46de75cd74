/// Reads and writes the registers of one synced table's rows.
///
/// This is the SQLite shell around ``RowMerge``: it turns metadata rows plus
/// the user table (for shown rows) or the hidden table (for the rest) into
/// ``RowRegisters``, and writes merged registers back, materializing the row
/// in the user table when it is shown and moving its values to the hidden
/// table when it is not.
struct RegisterStore {
    let table: SyncedTable
    unowned let replica: Replica

    /// A row's registers and where its values live.
    struct StoredRow {
        var registers: RowRegisters
        /// The row is in the user table.
        var shown: Bool
        /// The row has values in the hidden table.
        var hasHiddenValues: Bool
    }

    private var database: Database { replica.database }

    /// `m.cl, m.hlc, m.node, m.clh, m.cln, [m.h_c, m.n_c]..., hidden?, shown?, values...`
    private var registerColumns: String {
        let stamps = table.stampColumns.map { "m.\($0)" }
        let values = table.quotedColumns.map { "CASE WHEN h.pk IS NOT NULL THEN h.\($0) ELSE t.\($0) END" }
        return (["m.cl", "m.hlc", "m.node", "m.clh", "m.cln"] + stamps
            + ["h.pk IS NOT NULL", "t.\(table.quotedKey) IS NOT NULL"] + values).joined(separator: ", ")
    }

    private var joins: String {
        "\(table.rowsTable) AS m LEFT JOIN \(table.hiddenTable) AS h ON h.pk = m.pk "
            + "LEFT JOIN \(table.quotedName) AS t ON t.\(table.quotedKey) = m.pk"
    }

    /// The stored registers of the row with `key`, or `nil` if this replica never heard of it.
    func load(_ key: SQLiteValue) throws -> StoredRow? {
        let statement = try database.cached("SELECT \(registerColumns) FROM \(joins) WHERE m.pk = ?")
        try statement.bind([key])
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return try decode(statement, from: 0)
    }

    /// Calls `body` with every row changed after `version`, in version then key order.
    func forEachRow(since version: Int64, _ body: (SQLiteValue, StoredRow) throws -> Void) throws {
        let statement = try database.prepare(
            "SELECT m.pk, \(registerColumns) FROM \(joins) WHERE m.ver > ? ORDER BY m.ver, m.pk")
        try statement.bind([.integer(version)])
        while try statement.step() {
            try body(statement.column(0), try decode(statement, from: 1))
        }
    }

    private func decode(_ statement: Statement, from first: Int32) throws -> StoredRow {
        var index = first
        func next() -> Int32 { defer { index += 1 }; return index }
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
        let hasHiddenValues = statement.int64(next()) != 0
        let shown = statement.int64(next()) != 0
        let columns = stamps.map { stamp in
            let value = statement.column(next())
            return stamp.map { ColumnRegister(value: value, stamp: $0) }
        }
        return StoredRow(
            registers: RowRegisters(liveness: Liveness(causalLength: causalLength, stamp: livenessStamp), columns: columns),
            shown: shown, hasHiddenValues: hasHiddenValues)
    }

    private func stamp(_ statement: Statement, _ hlcColumn: Int32, _ nodeColumn: Int32) throws -> Stamp? {
        let hlc = statement.int64(hlcColumn)
        guard let node = try replica.node(at: statement.int64(nodeColumn)) else { return nil }
        return Stamp(hlc: HLCTimestamp(sqliteValue: hlc), node: node)
    }

    /// Writes `registers` for `key` at `version`, showing the row in the user table or hiding it.
    func store(_ key: SQLiteValue, _ registers: RowRegisters, version: Int64, show: Bool, previous: StoredRow?) throws {
        try writeMetadata(key, registers, version: version)
        let values = registers.columns.map { $0?.value ?? .null }
        if show {
            try upsertShown(key, values)
            if previous?.hasHiddenValues == true {
                try database.execute("DELETE FROM \(table.hiddenTable) WHERE pk = ?", [key])
            }
        } else {
            if previous?.shown == true {
                try database.execute("DELETE FROM \(table.quotedName) WHERE \(table.quotedKey) = ?", [key])
            }
            if registers.columns.contains(where: { $0 != nil }) {
                let placeholders = Array(repeating: ", ?", count: values.count).joined()
                try database.execute(
                    "INSERT OR REPLACE INTO \(table.hiddenTable) (pk\(table.quotedColumns.map { ", \($0)" }.joined())) "
                        + "VALUES (?\(placeholders))", [key] + values)
            }
        }
    }

    private func upsertShown(_ key: SQLiteValue, _ values: [SQLiteValue]) throws {
        let columns = ([table.quotedKey] + table.quotedColumns).joined(separator: ", ")
        let placeholders = Array(repeating: "?", count: values.count + 1).joined(separator: ", ")
        let update = table.quotedColumns.isEmpty
            ? "NOTHING" : "UPDATE SET " + table.quotedColumns.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        try database.execute(
            "INSERT INTO \(table.quotedName) (\(columns)) VALUES (\(placeholders)) "
                + "ON CONFLICT (\(table.quotedKey)) DO \(update)", [key] + values)
    }

    /// Stores the stamps compactly: the most common stamp is the base, the rest are overrides.
    private func writeMetadata(_ key: SQLiteValue, _ registers: RowRegisters, version: Int64) throws {
        let columnStamps = registers.columns.map { $0?.stamp }
        let base: Stamp?
        if table.hasColumnStamps {
            var counts: [Stamp: Int] = [:]
            for case let stamp? in columnStamps { counts[stamp, default: 0] += 1 }
            base = counts.max { $0.value != $1.value ? $0.value < $1.value : $0.key < $1.key }?.key
                ?? registers.liveness.stamp
        } else {
            base = RowMerge.rowStamp(registers) ?? registers.liveness.stamp
        }
        var values: [SQLiteValue] = [key, .integer(Int64(bitPattern: registers.liveness.causalLength)), .integer(version)]
        values += try encode(base)
        values += registers.liveness.stamp == base ? [.null, .null] : try encode(registers.liveness.stamp)
        if table.hasColumnStamps {
            for stamp in columnStamps { values += stamp == base ? [.null, .null] : try encode(stamp) }
        }
        let names = (["pk", "cl", "ver", "hlc", "node", "clh", "cln"] + table.stampColumns).joined(separator: ", ")
        let placeholders = Array(repeating: "?", count: values.count).joined(separator: ", ")
        try database.execute("INSERT OR REPLACE INTO \(table.rowsTable) (\(names)) VALUES (\(placeholders))", values)
    }

    private func encode(_ stamp: Stamp?) throws -> [SQLiteValue] {
        guard let stamp else { return [.integer(0), .integer(0)] }
        return [.integer(stamp.hlc.sqliteValue), .integer(try replica.index(of: stamp.node))]
    }
}
