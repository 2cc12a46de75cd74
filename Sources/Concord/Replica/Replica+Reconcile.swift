@_spi(Testing) import ConcordCore

extension Replica {
    /// Puts back the capture triggers of a table that lost them, and records what changed meanwhile.
    ///
    /// A migration that rebuilds a table (create a new one, copy, drop the
    /// old, rename) drops its triggers, so writes made until Concord looks
    /// again are not captured. The registers keep the stamps of the rows but
    /// not their values (a shown row's values are the user table's own), so
    /// which columns changed meanwhile cannot be known: every row the table
    /// holds is recorded as written by this replica, in every column (an
    /// insert where the registers say deleted or never seen), and every row
    /// the registers show but the table lost, as deleted. So nothing the app
    /// wrote meanwhile is lost. Those writes are dated when Concord last
    /// looked (its clock's last reading), the earliest the rebuild can have
    /// happened, not when it noticed: a rebuild copies the rows it keeps as
    /// they were, and dated at the sync that noticed it, those copies beat
    /// every edit another device made since — even one made after the
    /// rebuild, which then came undone on both devices while `check` said ok.
    /// An edit another device made before this replica's last look still
    /// loses to them. A row that keeps its values in a hidden copy while it
    /// shows others (a stand-in for a parent that is not visible, a value its
    /// column converts) is the exception: a column whose copy is what the row
    /// showed is not written, and the row shows its values again. Columns from
    /// position `first` on are new (a migration added
    /// them): a value other than the one a newer peer wrote there (relayed,
    /// and taken up first) counts as written, and where no peer wrote, one
    /// other than their default, or any value of a DEFAULT that changes
    /// (`CURRENT_TIMESTAMP`), which each device evaluated for itself.
    ///
    /// ```swift
    /// // After the app's migration rebuilt `reminders`:
    /// try replica.foldLocalWrites()   // reinstalls capture and reconciles
    /// ```
    func reconcile(_ table: SyncedTable, newColumnsFrom first: Int) throws {
        try withoutForeignKeyEnforcement {
            try database.execute(CaptureTriggers(table: table, facts: facts(of: table)).dropAllTriggersSQL)
            try installTriggersAndIndexes(for: table)
            // The pending writes come first, in the order they were made. Those of this table were made
            // before the rebuild, and folding them shows their joins (a counter's sum, a max, a union) over
            // what the app wrote since, which only the table holds: its value-merged columns are read first
            // and put back after, and what changed since is then recorded from them like the rest.
            let written = try joinedValues(of: table)
            try foldLocalWrites()
            try putBack(written, of: table)
            let facts = try facts(of: table)
            let defaults = facts.defaults
            let store = store(table)
            let parked = Set(try parkedRows(of: table).map(\.key))
            // Dated when Concord last looked (see above); a test may plant the date it noticed the rebuild.
            let dated =
                configuration.interceptor?.datesRebuildsAtLastLook ?? true
                ? "\(Metadata.julianDay(unixMilliseconds: Int64(clamping: try clock.last.milliseconds)))" : Metadata.now
            let log = try database.prepare(
                "INSERT INTO \(Metadata.log) (tbl, pk, op, at, mask) VALUES (?, ?, ?, \(dated), ?)")
            let joined = table.joinedColumns
            let values =
                joined.isEmpty
                ? nil
                : try database.prepare(
                    "INSERT INTO \(table.logValuesTable) (seq, "
                        + joined.flatMap { [Metadata.oldValueColumn($0), Metadata.newValueColumn($0)] }.joined(
                            separator: ", ")
                        + ") VALUES (last_insert_rowid()" + String(repeating: ", ?", count: 2 * joined.count) + ")")
            var present: Set<SQLiteValue> = []
            let formerStandIns = StandInCheck(
                replica: self, table: table, foreignKeys: parents(of: table.name), actionsMayHaveChanged: true)
            // Rows whose hidden copy keeps values as written that their old columns converted: shown again
            // at the end, as their new columns convert them (and the parked rows, below).
            var copies: [RowRef] = []
            // Made on the first row that needs it (one with a hidden copy): most rebuilt tables have none.
            var visibility: Reprojection?
            for row in try database.query(
                "SELECT \(([table.quotedKey] + table.quotedColumns).joined(separator: ", ")) "
                    + "FROM \(table.qualifiedName) ORDER BY \(table.quotedKey)")
            {
                let key = row[0]
                present.insert(key)
                let loaded = try store.load(key)
                let stored = loaded?.registers
                let isInsert = !(stored?.liveness.isAlive ?? false) || parked.contains(key)
                let kept = !isInsert && loaded?.hasHiddenValues == true ? stored : nil
                // What the row showed in place of its values: the stand-ins for parents that are not visible.
                var standIns: [Int: SQLiteValue] = [:]
                if kept != nil {
                    let ref = RowRef(table: table.name, key: key)
                    copies.append(ref)
                    let placing = visibility ?? Reprojection(replica: self)
                    visibility = placing
                    if case .shown(let shown) = try placing.placement(ref) { standIns = shown }
                }
                let changed = try table.columns.indices.map { column in
                    guard column >= first else {
                        // The rebuild copied what the old column showed of a value written elsewhere, or the
                        // stand-in it showed for a parent that is not visible.
                        guard let written = kept?.columns[column]?.value else { return true }
                        if let standIn = standIns[column], row[1 + column] == standIn { return false }
                        // The stand-in it showed under a key action the rebuild changed (SET NULL made CASCADE).
                        if try formerStandIns.isStandIn(row[1 + column], for: written, column: column) { return false }
                        return try !database.isCopy(row[1 + column], of: written, as: facts.affinities[column])
                    }
                    // A new column's register came from a newer peer (relayed): written if the table differs.
                    if let register = stored?.columns[column] { return row[1 + column] != register.value }
                    // A DEFAULT that changes (`CURRENT_TIMESTAMP`) gave this device a value of its own: written.
                    return row[1 + column] != defaults[column] || facts.volatileDefaults[column] != nil
                }
                if !isInsert && !changed.contains(true) { continue }
                try log.run([
                    .integer(table.id), key, .integer((isInsert ? Metadata.Operation.insert : .update).rawValue),
                    isInsert ? .null : ChangeMask.encode(changed),
                ])
                guard let values else { continue }
                try values.run(
                    joined.flatMap { column -> [SQLiteValue] in
                        let new = row[1 + column]
                        guard !isInsert, let register = stored?.columns[column] else {
                            return [column >= first ? defaults[column] : .null, new]
                        }
                        // What the column held before: a counter's sum of this life, any other the value itself.
                        let old =
                            table.merges[column] == .counter
                            ? .integer(
                                RowMerge.counterValue(register.contributions, life: stored?.liveness.causalLength ?? 0))
                            : new
                        return [old, new]
                    })
            }
            try logDeletes(of: table, except: present.union(parked), log: log)
            try foldLocalWrites()
            // Parked rows are placed again too: the rebuilt table's types may name other parents, and its
            // constraints may now take rows they refused.
            copies += parked.sorted().map { RowRef(table: table.name, key: $0) }
            try withoutCapture { try Reprojection(replica: self).reproject(copies) }
        }
    }

    /// The key and value-merged columns of every row of `table`, in key order (none without such columns).
    private func joinedValues(of table: SyncedTable) throws -> [[SQLiteValue]] {
        guard !table.joinedColumns.isEmpty else { return [] }
        return try database.query(
            "SELECT \(([table.quotedKey] + table.joinedColumns.map { table.quotedColumns[$0] }).joined(separator: ", ")) "
                + "FROM \(table.qualifiedName) ORDER BY \(table.quotedKey)")
    }

    /// Writes `rows` (from ``joinedValues(of:)``) back where the table now holds other values, uncaptured.
    private func putBack(_ rows: [[SQLiteValue]], of table: SyncedTable) throws {
        guard !rows.isEmpty else { return }
        let columns = table.joinedColumns.map { table.quotedColumns[$0] }
        let read = try database.prepare(
            "SELECT \(columns.joined(separator: ", ")) FROM \(table.qualifiedName) WHERE \(table.quotedKey) = ?")
        let write = try database.prepare(
            "UPDATE \(table.qualifiedName) SET \(columns.enumerated().map { "\($1) = ?\($0 + 2)" }.joined(separator: ", ")) "
                + "WHERE \(table.quotedKey) = ?1")
        try withoutCapture {
            for row in rows {
                guard let now = try read.all([row[0]]).first, now != Array(row.dropFirst()) else { continue }
                try write.run(row)
            }
        }
    }

    /// Logs a delete of every row the registers show alive that is not among `kept`: the table lost it
    /// while its triggers were gone. The table no longer has its values, so its hidden copy holds NULLs.
    private func logDeletes(of table: SyncedTable, except kept: Set<SQLiteValue>, log: Statement) throws {
        try store(table).forEachRow(since: .min) { key, stored in
            guard stored.registers.liveness.isAlive, !kept.contains(key) else { return }
            try logLostRow(key, of: table, log: log)
        }
    }

    /// Logs, as this replica's delete, a row that left its table while nothing captured it (a table rebuilt
    /// without its triggers, an app trigger's delete while Concord merged), with a hidden copy to keep it
    /// by; its values left with it. `log` is a statement of ``logWriteSQL``.
    func logLostRow(_ key: SQLiteValue, of table: SyncedTable, log: Statement) throws {
        try database.execute("INSERT OR IGNORE INTO \(table.hiddenTable) (pk) VALUES (?)", [key])
        try log.run([
            .integer(table.id), key, .integer(Metadata.Operation.delete.rawValue), .integer(Metadata.uncapturedMask),
        ])
    }

    /// Appends one write to the capture log, as the capture triggers do: table id, key, operation, mask.
    static let logWriteSQL = "INSERT INTO \(Metadata.log) (tbl, pk, op, at, mask) VALUES (?, ?, ?, \(Metadata.now), ?)"
}
