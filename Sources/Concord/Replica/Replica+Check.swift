extension Replica {
    /// Verifies that the user tables are exactly the projection of the registers,
    /// and that SQLite's own integrity and foreign-key checks pass.
    ///
    /// The projection is recomputed here from the registers alone (see
    /// `Reprojection`): a row is shown exactly when it is visible, with
    /// stand-ins for parents that are not; a row that is alive but not shown is
    /// parked with its reason; a column no write has set shows its default; a counter
    /// shows the sum of its current contributions and a union its canonical
    /// array. Every user row must have registers.
    ///
    /// It checks one consistent state: writes the log still holds are part of
    /// it (a delete may still have children to cascade to), so they are folded
    /// first, and the fold and every check run in one write transaction, so an
    /// app writing meanwhile (from any connection) waits for it rather than
    /// landing between the fold and the check.
    public func check() throws -> CheckReport {
        try withForeignKeyEnforcementOffIfWriting {
            try foldLocalWrites()
            var problems: [CheckReport.Problem] = []
            let integrity = try database.query("PRAGMA integrity_check").compactMap { $0.first?.textValue }
            if integrity != ["ok"] { problems += integrity.map(CheckReport.Problem.integrity) }
            // A refused table's rows are the app's alone until it syncs again (its writes wait unfolded, so an
            // orphan an app with foreign keys off wrote there is not parked yet).
            for row in try database.query("PRAGMA foreign_key_check") where !isRefused(row[0].textValue ?? "") {
                problems.append(
                    .foreignKey(table: row[0].textValue ?? "?", rowid: row[1], parent: row[2].textValue ?? "?"))
            }
            let version = try self.version
            for table in tables where !isRefused(table.name) {
                let open = try columnsWritableInPlace(table)
                if !open.isEmpty { problems.append(.writableInPlace(table: table.name, columns: open)) }
                problems += try ProjectionCheck(replica: self, table: table, version: version).problems()
            }
            for row in try database.query(
                "SELECT name, pk, ver FROM \(RelayStore.rows) WHERE ver > ? ORDER BY name, pk LIMIT 20",
                [.integer(version)])
            {
                let ref = RowRef(table: row[0].textValue ?? "?", key: row[1])
                problems.append(.versionAhead(ref, version: row[2].integerValue ?? 0, replica: version))
            }
            return CheckReport(problems: problems)
        }
    }
}

/// Checks one synced table against the projection of its registers.
private struct ProjectionCheck {
    let replica: Replica
    let table: SyncedTable
    let parked: [SQLiteValue: String]
    /// Rows parked because their key cannot sync (they are in the table, without registers).
    let unsyncable: Set<SQLiteValue>
    /// Rows parked because their values break a constraint of the table.
    let constrained: Set<SQLiteValue>
    let reprojection: Reprojection
    /// The replica's version: no register may be stored above it.
    let version: Int64

    init(replica: Replica, table: SyncedTable, version: Int64) throws {
        self.replica = replica
        self.table = table
        self.version = version
        let rows = try replica.parkedRows(of: table)
        parked = Dictionary(uniqueKeysWithValues: rows.map { ($0.key, $0.reason) })
        unsyncable = Set(rows.filter { $0.kind == ParkReason.unsyncableKey(type: "").kind }.map(\.key))
        constrained = Set(rows.filter { $0.kind == ParkReason.constraint("").kind }.map(\.key))
        reprojection = Reprojection(replica: replica)
    }

    private var database: Database { replica.database }

    private func ref(_ key: SQLiteValue) -> RowRef { RowRef(table: table.name, key: key) }

    func problems() throws -> [CheckReport.Problem] {
        var problems = try unrecordedRows() + duplicateRegisters()
        var seen: Set<SQLiteValue> = []
        try replica.store(table).forEachRow(since: .min) { key, row in
            seen.insert(key)
            problems += try placementProblems(key, row) + valueProblems(key, row)
            if row.version > version {
                problems.append(.versionAhead(ref(key), version: row.version, replica: version))
            }
        }
        for key in parked.keys.sorted() where !seen.contains(key) && !unsyncable.contains(key) {
            problems.append(.parkedWithoutRegisters(ref(key)))
        }
        return problems
    }

    private func unrecordedRows() throws -> [CheckReport.Problem] {
        try database.query(
            "SELECT t.\(table.quotedKey) FROM \(table.qualifiedName) AS t LEFT JOIN \(table.rowsTable) AS m "
                + "ON m.pk = t.\(table.quotedKey) WHERE m.pk IS NULL ORDER BY 1 LIMIT 20"
        ).filter { !unsyncable.contains($0[0]) }.map { .unrecorded(ref($0[0])) }
    }

    private func duplicateRegisters() throws -> [CheckReport.Problem] {
        try database.query("SELECT pk FROM \(table.rowsTable) GROUP BY pk HAVING count(*) > 1 ORDER BY pk LIMIT 20")
            .map { .duplicateRegisters(ref($0[0])) }
    }

    /// Whether the row is shown, hidden or parked as visibility says, with the values it should show.
    private func placementProblems(_ key: SQLiteValue, _ row: RegisterStore.StoredRow) throws -> [CheckReport.Problem] {
        let name = ref(key)
        switch try reprojection.placement(name) {
        case .shown(let standIns):
            guard row.shown else {
                return constrained.contains(key) ? [] : [.visibleButNotShown(name, parked: parked[key])]
            }
            var problems: [CheckReport.Problem] = []
            let store = replica.store(table)
            var expected = store.shownValues(row.registers)
            let overrides = try store.shownOverrides(of: expected, standIns: standIns)
            for (index, value) in overrides { expected[index] = value }
            let select =
                "SELECT \(table.quotedColumns.joined(separator: ", ")) FROM \(table.qualifiedName) WHERE \(table.quotedKey) = ?"
            let shown = table.columns.isEmpty ? [] : try database.query(select, [key]).first ?? []
            if shown != expected { problems.append(.wrongValues(name, shown: shown, expected: expected)) }
            if overrides.isEmpty == row.hasHiddenValues {
                problems.append(.hiddenCopy(name, missing: !overrides.isEmpty))
            }
            if parked[key] != nil { problems.append(.shownButParked(name)) }
            return problems
        case .hidden(let reason):
            var problems: [CheckReport.Problem] = []
            if row.shown { problems.append(.shownButHidden(name, reason: reason?.description ?? "deleted")) }
            if let reason, parked[key] == nil { problems.append(.notParked(name, reason: reason.description)) }
            if reason == nil && parked[key] != nil { problems.append(.deletedButParked(name)) }
            if !row.hasHiddenValues && row.registers.columns.contains(where: { $0 != nil }) {
                problems.append(.hiddenValuesMissing(name))
            }
            return problems
        }
    }

    /// Counters hold the sum of their contributions, unions their canonical form.
    private func valueProblems(_ key: SQLiteValue, _ row: RegisterStore.StoredRow) -> [CheckReport.Problem] {
        var problems: [CheckReport.Problem] = []
        for index in table.counterColumns {
            guard let register = row.registers.columns[index] else { continue }
            let sum = RowMerge.counterValue(register.contributions, life: row.registers.liveness.causalLength)
            if register.value != .integer(sum) {
                problems.append(.counterSum(ref(key), column: table.columns[index], holds: register.value, sum: sum))
            }
        }
        for (index, merge) in table.merges.enumerated() where merge == .union {
            guard let value = row.registers.columns[index]?.value, value != UnionValue.canonical(value) else {
                continue
            }
            problems.append(
                .unionNotCanonical(
                    ref(key), column: table.columns[index], holds: value,
                    canonical: UnionValue.canonical(value)))
        }
        return problems
    }
}
