@_spi(Testing) import ConcordCore

extension Replica {
    /// Moves the registers the relay store kept for `table`'s columns from position `first` on into the
    /// table's own registers, and shows them; inside the caller's transaction, after a migration added them.
    ///
    /// A device that had not migrated yet kept what newer peers wrote to these
    /// columns (see ``RelayStore``). Those registers are the row's state for
    /// the columns — under the row policy they are what the newest write
    /// supplied, carried along by this device's own edits — so they are moved,
    /// stamps and all, not merged as new writes: the device shows at once what
    /// upgraded peers show, and no peer needs to send anything again. Each row
    /// taken up moves to a new version, as do the rows it showed or hid: what
    /// the app shows changed, and ``changedRows(since:)`` reads that from the
    /// versions alone. (Peers get such a row again with the next export, unchanged.)
    ///
    /// ```swift
    /// try replica.database.execute("ALTER TABLE reminders ADD COLUMN priority INTEGER NOT NULL DEFAULT 0")
    /// try replica.foldLocalWrites()   // adopts `priority`, and shows what peers wrote to it
    /// ```
    func takeUpRelayedColumns(of table: SyncedTable, from first: Int) throws {
        guard first < table.columns.count else { return }
        let relay = RelayStore(database: database)
        // What was kept before the migration, and what stays kept after it.
        guard let declared = try relay.declaration(of: table.name),
            let kept = declared.columns(lackedBy: table.columns[..<first])
        else { return }
        let rest =
            declared.columns(lackedBy: table.columns)
            ?? TableSchema(name: table.name, key: table.key, columns: [], policy: table.policy)
        guard rest.columns.count < kept.columns.count else { return }
        var rows: [(key: SQLiteValue, registers: RowRegisters)] = []
        try relay.forEachRow(of: table.name, columns: kept.columns) { rows.append(($0, $1)) }
        let store = store(table)
        let rules = RowMerge.Rules(policy: table.policy, merges: table.merges, functions: configuration.merges)
        let reprojection = Reprojection(replica: self)
        var dirty: [RowRef] = []
        var version = try versionFloor(after: try self.version)
        for (key, registers) in rows {
            guard let stored = try store.load(key) else { continue }
            version += 1
            var merged = stored.registers
            for (position, column) in kept.columns.enumerated() {
                guard let register = registers.columns[position],
                    let local = table.columns.firstIndex(where: { SQLiteName.same($0, column) })
                else { continue }
                merged.columns[local] =
                    table.hasColumnStamps
                    ? RowMerge.mergeColumn(merged.columns[local], register, table.merges[local], configuration.merges)
                    : register
            }
            RowMerge.settle(&merged, rules)
            try store.writeMetadata(key, merged, version: version, previous: stored.version)
            try store.writeCounters(key, merged, previous: stored)
            let ref = RowRef(table: table.name, key: key)
            try reprojection.remember(ref, merged, version: version, previous: stored)
            // A row neither in the table nor kept in the hidden one left the table uncaptured (the same migration
            // rebuilt it without the row): nothing here can show it, and the reconcile records it deleted.
            if stored.shown || stored.hasHiddenValues { dirty.append(ref) }
            let left = rest.columns.map { column in
                kept.columns.firstIndex(where: { SQLiteName.same($0, column) }).flatMap { registers.columns[$0] }
            }
            try relay.write(rest, key: key, RowRegisters(liveness: .unknown, columns: left), version: version)
        }
        try withoutCapture { try reprojection.reproject(dirty) }
        version = try reprojection.renumberMoved(after: version)
        try database.execute("UPDATE \(Metadata.state) SET version = max(version, ?)", [.integer(version)])
        try ReadPositions(database: database).record(try self.version)
    }

    /// Merges the rows the relay store kept of `table` (sync was just enabled on it) as if a peer sent them;
    /// inside the caller's transaction.
    ///
    /// Rows of a table this replica did not sync waited in the relay store;
    /// now they meet the rows the app already had, under the same rules as any
    /// changeset, and show with visibility, parking and cascades applied. They were
    /// checked against this clock when they came: a clock set back since does
    /// not refuse them now (a migration failed on that).
    func takeUpRelayedRows(of table: SyncedTable) throws {
        let relay = RelayStore(database: database)
        guard let declared = try relay.declaration(of: table.name) else { return }
        var rows: [RowChange] = []
        try relay.forEachRow(of: table.name, columns: declared.columns) { key, registers in
            rows.append(RowChange(table: declared.name, key: key, registers: registers))
        }
        try relay.deleteRows(of: table.name)
        guard !rows.isEmpty else { return }
        let session: ApplySession
        do {
            session = try ApplySession(
                replica: self, source: nodeID, since: 0, upTo: 0, tables: [declared], batchSize: Self.applyBatch,
                keptHere: true)
            try session.validate(rows.makeIterator())
        } catch ReplicaError.policyMismatch(_, let local, let remote) {
            throw Self.declaredOtherwise(table, by: declared, local: local, remote: remote)
        } catch ReplicaError.schemaMismatch(_, let detail) {
            throw Self.declaredOtherwise(table, by: declared, local: nil, remote: detail)
        }
        _ = try session.merge(rows.makeIterator())
    }

    /// How Swift code spells `merge`: `.counter`, `.custom("longest")`.
    private static func swiftLiteral(_ merge: ColumnMerge) -> String {
        if case .custom(let name) = merge { return ".custom(\"\(name)\")" }
        return ".\(merge)"
    }

    /// Why `table` cannot be enabled as declared here: its peers, whose rows of it this replica kept while it
    /// did not sync here, declare it otherwise; with the declaration to repeat, on the command line and in Swift.
    ///
    /// Why: the refusal read as an import's ("the changeset merges table ...; nothing was applied") though
    /// no changeset was given, and did not say how to enable the table as the peers do.
    private static func declaredOtherwise(
        _ table: SyncedTable, by peers: TableSchema, local: String?, remote: String
    ) -> ReplicaError {
        let merged = zip(peers.columns, peers.merges).filter { $0.1 != .lww }
        let options =
            ["--table \(table.name)\(peers.policy == .row ? ":row" : "")"]
            + merged.map { "--merge \(table.name).\($0.0)=\($0.1)" }
        let swift =
            "enableSync(on: \"\(table.name)\", policy: .\(peers.policy.rawValue)"
            + (merged.isEmpty
                ? "" : ", merges: [\(merged.map { "\"\($0.0)\": \(swiftLiteral($0.1))" }.joined(separator: ", "))]")
            + ")"
        let what = local.map { "its peers declare it \(remote), and this enable declares \($0)" } ?? remote
        return .unsupportedTable(
            table: table.name,
            reason: "\(what); every replica must declare a table the same (this replica kept the peers' rows of it "
                + "while it did not sync here)",
            fix: "enable it as the peers declare it: concord enable DB \(options.joined(separator: " ")), or in Swift "
                + swift)
    }
}
