extension Replica {
    /// A canonical text dump of the synced tables and their registers.
    ///
    /// Two replicas that received the same changes produce byte-identical
    /// dumps: rows come in key order, stamps name full node ids, and nothing
    /// local to one replica (versions, node indexes) appears. The simulator and
    /// the convergence tests compare these.
    ///
    /// ```swift
    /// #expect(try laptop.canonicalDump() == phone.canonicalDump())
    /// ```
    public func canonicalDump() throws -> String {
        var lines: [String] = []
        try withForeignKeyEnforcementOffIfWriting {
            try foldLocalWrites()
            for table in tables {
                lines.append(
                    "table \(table.name) key \(table.key) policy \(table.policy.rawValue) columns \(table.columns)")
                let columns = ([table.quotedKey] + table.quotedColumns).joined(separator: ", ")
                for row in try database.query(
                    "SELECT \(columns) FROM \(table.qualifiedName) ORDER BY \(table.quotedKey)")
                {
                    lines.append("  row " + row.map(\.description).joined(separator: " | "))
                }
                var registers: [(SQLiteValue, String)] = []
                try store(table).forEachRow(since: .min) { key, row in
                    registers.append((key, Self.describe(key, row.registers, columns: table.columns)))
                }
                lines += registers.sorted { $0.0 < $1.0 }.map(\.1)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func describe(_ key: SQLiteValue, _ registers: RowRegisters, columns: [String]) -> String {
        let liveness = registers.liveness
        var text = "  reg \(key) cl \(liveness.causalLength) @\(liveness.stamp.map(describe) ?? "-")"
        for (name, register) in zip(columns, registers.columns) {
            text += " | \(name)=" + (register.map { "\($0.value) @\(describe($0.stamp))" } ?? "-")
        }
        return text
    }

    private static func describe(_ stamp: Stamp) -> String { "\(stamp.hlc.rawValue):\(stamp.node)" }
}

extension Replica {
    /// The registers of one row, after folding pending local writes; `nil` for a row never heard of.
    public func registers(of table: String, key: SQLiteValue) throws -> RowRegisters? {
        try registers(of: table, keys: [key])[0]
    }

    /// The registers of several rows of one table, in the order of `keys`, after folding pending local
    /// writes once; `nil` for a row never heard of.
    ///
    /// ```swift
    /// let rows = try replica.registers(of: "reminders", keys: [.text("r1"), .text("r2")])
    /// ```
    public func registers(of table: String, keys: [SQLiteValue]) throws -> [RowRegisters?] {
        guard let synced = syncedTables[table] else { throw ReplicaError.tableNotSynced(table: table) }
        try foldLocalWrites()
        let store = store(synced)
        return try database.readTransaction { try keys.map { try store.load($0)?.registers } }
    }
}
