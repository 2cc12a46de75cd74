/// What ``Replica/check()`` found.
public struct CheckReport: Hashable, Sendable, CustomStringConvertible {
    /// Each problem, in a stable order; empty when the replica is consistent.
    public var problems: [String]

    public var isConsistent: Bool { problems.isEmpty }

    public var description: String {
        isConsistent ? "ok" : problems.map { "- " + $0 }.joined(separator: "\n")
    }
}

extension Replica {
    /// Verifies that the user tables are exactly the projection of the registers,
    /// and that SQLite's own integrity and foreign-key checks pass.
    ///
    /// The projection is recomputed here from the registers alone: a row is
    /// shown when it is alive; a shown row has no hidden copy, a column no
    /// write has set reads NULL, a counter shows the sum of its current
    /// contributions and a union its canonical array. Every user row must have
    /// registers.
    public func check() throws -> CheckReport {
        var problems: [String] = []
        let integrity = try database.query("PRAGMA integrity_check").compactMap { $0.first?.textValue }
        if integrity != ["ok"] { problems += integrity.map { "integrity check: \($0)" } }
        for row in try database.query("PRAGMA foreign_key_check") {
            problems.append("foreign key check: row \(row[1]) of \(row[0].textValue ?? "?") references missing \(row[2].textValue ?? "?")")
        }
        try database.transaction {
            try foldLocalWrites()
            for table in tables { problems += try projectionProblems(table) }
        }
        return CheckReport(problems: problems)
    }

    private func projectionProblems(_ table: SyncedTable) throws -> [String] {
        var problems: [String] = []
        let unrecorded = try database.query(
            "SELECT t.\(table.quotedKey) FROM \(table.quotedName) AS t LEFT JOIN \(table.rowsTable) AS m "
                + "ON m.pk = t.\(table.quotedKey) WHERE m.pk IS NULL ORDER BY 1 LIMIT 20")
        problems += unrecorded.map { "\(table.name) \($0[0]): in the table but has no registers (written while capture was off?)" }
        try store(table).forEachRow(since: .min) { key, row in
            let shouldShow = row.registers.liveness.isAlive
            if shouldShow != row.shown {
                problems.append("\(table.name) \(key): \(row.shown ? "shown" : "not shown") but "
                    + "\(shouldShow ? "alive" : "deleted") (causal length \(row.registers.liveness.causalLength))")
            }
            if row.shown && row.hasHiddenValues {
                problems.append("\(table.name) \(key): shown and also kept hidden")
            }
            if !row.shown && !row.hasHiddenValues && row.registers.columns.contains(where: { $0 != nil }) {
                problems.append("\(table.name) \(key): hidden but its values are missing")
            }
            for index in table.counterColumns {
                guard let register = row.registers.columns[index] else { continue }
                let sum = RowMerge.counterValue(register.contributions, life: row.registers.liveness.causalLength)
                if register.value != .integer(sum) {
                    problems.append("\(table.name) \(key).\(table.columns[index]): counter holds \(register.value) "
                        + "but its contributions add up to \(sum)")
                }
            }
            for (index, merge) in table.merges.enumerated() where merge == .union {
                guard let value = row.registers.columns[index]?.value, value != UnionValue.canonical(value) else { continue }
                problems.append("\(table.name) \(key).\(table.columns[index]): union holds \(value), "
                    + "not the canonical \(UnionValue.canonical(value))")
            }
            for (name, register) in zip(table.columns, row.registers.columns) where row.shown {
                if register == nil, let value = try database.scalar(
                    "SELECT \(quoteIdentifier(name)) FROM \(table.quotedName) WHERE \(table.quotedKey) = ?", [key]),
                    !value.isNull {
                    problems.append("\(table.name) \(key).\(name): shows \(value) but no write has set it")
                }
            }
        }
        return problems
    }
}
