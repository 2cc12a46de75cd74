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
    /// The projection is recomputed here from the registers alone (see
    /// ``Reprojection``): a row is shown exactly when it is visible, with
    /// stand-ins for parents that are not; a row that is alive but not shown is
    /// parked with its reason; a column no write has set reads NULL; a counter
    /// shows the sum of its current contributions and a union its canonical
    /// array. Every user row must have registers.
    ///
    /// It checks one consistent state: writes the log still holds are part of
    /// it (a delete may still have children to cascade to), so they are folded
    /// first, and the fold and every check run in one write transaction, so an
    /// app writing meanwhile (from any connection) waits for it rather than
    /// landing between the fold and the check.
    public func check() throws -> CheckReport {
        try withoutForeignKeyEnforcement {
            try foldLocalWrites()
            var problems: [String] = []
            let integrity = try database.query("PRAGMA integrity_check").compactMap { $0.first?.textValue }
            if integrity != ["ok"] { problems += integrity.map { "integrity check: \($0)" } }
            for row in try database.query("PRAGMA foreign_key_check") {
                problems.append("foreign key check: row \(row[1]) of \(row[0].textValue ?? "?") references missing \(row[2].textValue ?? "?")")
            }
            for table in tables { problems += try projectionProblems(table) }
            return CheckReport(problems: problems)
        }
    }

    private func projectionProblems(_ table: SyncedTable) throws -> [String] {
        var problems: [String] = []
        let parkedRows = try parkedRows(of: table)
        let parked = Dictionary(uniqueKeysWithValues: parkedRows.map { ($0.key, $0.reason) })
        let unsyncable = Set(parkedRows.filter { $0.kind == ParkReason.unsyncableKey(type: "").kind }.map(\.key))
        let unrecorded = try database.query(
            "SELECT t.\(table.quotedKey) FROM \(table.quotedName) AS t LEFT JOIN \(table.rowsTable) AS m "
                + "ON m.pk = t.\(table.quotedKey) WHERE m.pk IS NULL ORDER BY 1 LIMIT 20")
        problems += unrecorded.filter { !unsyncable.contains($0[0]) }.map {
            "\(table.name) \($0[0]): in the table but has no registers (written while capture was off?)"
        }
        let twice = try database.query(
            "SELECT pk FROM \(table.rowsTable) GROUP BY pk HAVING count(*) > 1 ORDER BY pk LIMIT 20")
        problems += twice.map { "\(table.name) \($0[0]): has more than one register row" }
        let reprojection = Reprojection(replica: self)
        let constrained = Set(parkedRows.filter { $0.kind == ParkReason.constraint("").kind }.map(\.key))
        let select = "SELECT \(table.quotedColumns.joined(separator: ", ")) FROM \(table.quotedName) WHERE \(table.quotedKey) = ?"
        var seen: Set<SQLiteValue> = []
        try store(table).forEachRow(since: .min) { key, row in
            seen.insert(key)
            let name = "\(table.name) \(key)"
            switch try reprojection.placement(RowRef(table: table.name, key: key)) {
            case .shown(let overrides):
                guard row.shown else {
                    if !constrained.contains(key) {
                        problems.append("\(name): visible but not shown (\(parked[key] ?? "not parked"))")
                    }
                    break
                }
                var expected = row.registers.columns.map { $0?.value ?? .null }
                for (index, value) in overrides { expected[index] = value }
                let shown = table.columns.isEmpty ? [] : try database.query(select, [key]).first ?? []
                if shown != expected { problems.append("\(name): shows \(shown), its registers give \(expected)") }
                if overrides.isEmpty == row.hasHiddenValues {
                    problems.append("\(name): " + (overrides.isEmpty ? "shown and also kept hidden" : "hidden copy missing"))
                }
                if parked[key] != nil { problems.append("\(name): shown but still parked") }
            case .hidden(let reason):
                let why = reason?.description ?? "deleted"
                if row.shown { problems.append("\(name): shown but \(why)") }
                if reason != nil && parked[key] == nil { problems.append("\(name): not shown (\(why)) but not parked") }
                if reason == nil && parked[key] != nil { problems.append("\(name): \(why) but parked") }
                if !row.hasHiddenValues && row.registers.columns.contains(where: { $0 != nil }) {
                    problems.append("\(name): hidden but its values are missing")
                }
            }
            for index in table.counterColumns {
                guard let register = row.registers.columns[index] else { continue }
                let sum = RowMerge.counterValue(register.contributions, life: row.registers.liveness.causalLength)
                if register.value != .integer(sum) {
                    problems.append("\(name).\(table.columns[index]): counter holds \(register.value) "
                        + "but its contributions add up to \(sum)")
                }
            }
            for (index, merge) in table.merges.enumerated() where merge == .union {
                guard let value = row.registers.columns[index]?.value, value != UnionValue.canonical(value) else { continue }
                problems.append("\(name).\(table.columns[index]): union holds \(value), not the canonical \(UnionValue.canonical(value))")
            }
        }
        for key in parked.keys.sorted() where !seen.contains(key) && !unsyncable.contains(key) {
            problems.append("\(table.name) \(key): parked but has no registers")
        }
        return problems
    }
}
