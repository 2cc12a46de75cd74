import ConcordCore

/// Where a row's values go: the user table or the hidden copy, and what the app's schema makes of that.
///
/// Split from ``RegisterStore`` because showing a row is where the app's schema answers back: a
/// constraint or a trigger of the app refuses the row, a DEFAULT that changes gives each device its
/// own value. Each answer is handled here so that the table never shows what the registers do not.
extension RegisterStore {
    /// Puts a row's values where `placement` says: the user table (with any
    /// stand-ins for parents that are not visible, and any value converted by
    /// its column's type, the registers' values then kept in the hidden copy)
    /// or the hidden copy alone.
    ///
    /// Returns the placement taken: a row whose values would break a NOT NULL
    /// or CHECK constraint of the user table is parked instead of shown.
    /// `mayBeParked` says whether a parking record may exist to be removed.
    /// `absent` says the caller knows the user table lacks the row (an apply's row the registers did not
    /// show, read with the table just before): it is inserted without reading the table first.
    func materialize(
        _ key: SQLiteValue, _ registers: RowRegisters, _ placement: Placement,
        previous: StoredRow?, mayBeParked: Bool, absent: Bool = false
    ) throws -> Placement {
        var values = shownValues(registers)
        switch placement {
        case .shown(let standIns):
            let unset = volatileColumns.filter { registers.columns[$0] == nil }
            for column in unset { values[column] = try evaluateDefault(of: column) }
            let overrides = try shownOverrides(of: values, standIns: standIns)
            let bound = overrides.isEmpty ? values : values.indices.map { overrides[$0] ?? values[$0] }
            do {
                // Nothing changed, and the table shows other values: a BEFORE trigger of the app answered
                // RAISE(IGNORE). The row is not what its registers say, so it is parked, as when a trigger
                // answers RAISE(ABORT). (A trigger that ignores writes changing nothing is no matter.)
                if try !show(key, bound, absent: absent) {
                    return try materialize(
                        key, registers, .hidden(.constraint(Self.ignoredByTrigger(table.name))),
                        previous: previous, mayBeParked: mayBeParked)
                }
            } catch let error as SQLiteError
                where error.resultCode.primary == .constraint && error.resultCode != .foreignKeyConstraint
                && database.inTransaction
            {
                // (Out of its transaction, a trigger answered RAISE(ROLLBACK): nothing may be written now, and
                // the error goes to the caller, whose whole operation was undone.)
                return try materialize(
                    key, registers, .hidden(.constraint(error.message)),
                    previous: previous, mayBeParked: mayBeParked)
            }
            if !overrides.isEmpty {
                try statement(.writeHidden).run([key] + values)
            } else if previous?.hasHiddenValues ?? false {
                try deleteHidden(key)
            }
            if mayBeParked { try marks.unpark(table: table.id, key: key) }
            if isRevivable {
                try marks.markRevived(table: table.id, key: key, !registers.liveness.isAlive)
            }
            try logWritten(key, columns: unset)
        case .hidden(let reason):
            if isRevivable { try marks.markRevived(table: table.id, key: key, false) }
            if previous?.shown ?? false { try deleteShown(key, hiding: registers.liveness.isAlive) }
            if registers.columns.contains(where: { $0 != nil }) { try statement(.writeHidden).run([key] + values) }
            if let reason {
                try marks.park(table: table.id, key: key, reason: reason)
            } else if mayBeParked {
                try marks.unpark(table: table.id, key: key)
            }
        }
        return placement
    }

    /// Makes the user table's row `key` show `values`, writing only what differs; returns `false` when a
    /// BEFORE trigger of the app ignored the write (`RAISE(IGNORE)`) and the row shows other values.
    ///
    /// Why not one `INSERT … ON CONFLICT DO UPDATE` of every column: SQLite fires an upsert's BEFORE
    /// INSERT triggers even when the row is there, and its UPDATE OF triggers for every column it sets.
    /// The app's own triggers then ran for writes no one made — a uniqueness or quota check refusing a
    /// row that was merely merged or folded (parking it, hidden with its children), a lock on one
    /// column refusing an edit of another, an audit row for each sync. So a row the table lacks is
    /// inserted, a row it holds has only the columns that differ updated, and a row showing its values
    /// already is not written at all: the app's triggers see what a write of the same change by the
    /// app would make them see.
    ///
    /// ```swift
    /// try show("n1", ["final", 1])   // UPDATE notes SET title = 'final' WHERE id = 'n1'; `locked` untouched
    /// ```
    private func show(_ key: SQLiteValue, _ values: [SQLiteValue], absent: Bool) throws -> Bool {
        if absent {
            do {
                try statement(.insertShown).run([key] + values)
                if database.changes > 0 { return true }
                // Nothing inserted: a BEFORE trigger ignored the row, or the table's own conflict clause on its
                // key (`ON CONFLICT IGNORE`) kept a row that was there after all.
                guard let current = try shownRow(of: key) else { return false }
                return try update(key, from: current, to: values)
            } catch let error as SQLiteError
                where error.resultCode == .primaryKeyConstraint || error.resultCode == .uniqueConstraint
            {
                // The table held the row after all (or a trigger's write met a unique index): read it below.
            }
        }
        guard let current = try shownRow(of: key) else {
            try statement(.insertShown).run([key] + values)
            return try database.changes > 0 || shownRow(of: key)?.dropFirst().elementsEqual(values) == true
        }
        return try update(key, from: current, to: values)
    }

    /// Updates the columns of the shown row `key` (read as `current`, key first) whose values differ from
    /// `values`; returns `false` when a BEFORE trigger ignored the update and the row shows other values.
    private func update(_ key: SQLiteValue, from current: [SQLiteValue], to values: [SQLiteValue]) throws -> Bool {
        let differing = values.indices.filter { current[1 + $0] != values[$0] }
        guard !differing.isEmpty else { return true }
        try updateShown(differing).run(differing.map { values[$0] } + [key])
        return try database.changes > 0 || shownRow(of: key)?.dropFirst().elementsEqual(values) == true
    }

    /// Takes a row out of the user table, even where a BEFORE DELETE trigger of the app refuses.
    ///
    /// Why: the row is hidden because its registers say so (deleted here or on another device, or
    /// parked), and every device must then show it gone. A trigger answering `RAISE(IGNORE)` would
    /// leave it shown here alone, and `RAISE(ABORT)` would refuse every changeset holding the delete,
    /// for ever. So the delete is made again with triggers off; the app's other triggers on that
    /// delete (an FTS index's) do not run for it. `RAISE(ROLLBACK)` undoes the caller's whole
    /// transaction: nothing more may be written, and the error goes to the caller.
    ///
    /// `hiding` says the row is alive, only not visible (parked, on a cycle, under a parent that is not):
    /// no one deleted it. An app trigger that deletes synced rows along with it (a cascade by hand, in an
    /// app that leaves foreign keys off) would make those deletes for good, recorded as this device's
    /// (``Replica/logRowsLostUncaptured()``), and the rows would not come back with it. Such a hide is
    /// also made with triggers off.
    private func deleteShown(_ key: SQLiteValue, hiding: Bool = false) throws {
        let delete = try statement(.deleteShown)
        deletingKey = key
        defer { deletingKey = nil }
        do {
            if hiding, !delete.deletesThroughTriggers.isEmpty {
                if try hideKeepingOtherRows(key, delete), try shownRow(of: key) == nil { return }
            } else {
                try delete.run([key])
                guard database.changes == 0, try shownRow(of: key) != nil else { return }
            }
        } catch let error as SQLiteError where error.resultCode == .triggerConstraint && database.inTransaction {}
        try database.withoutTriggers { try database.prepare(sql(.deleteShown)).run([key]) }
    }

    /// Runs `delete` of the row `key` in a savepoint, undone when the app's triggers deleted rows of the
    /// synced tables it codes deletes from (their row counts fell); returns whether it stands.
    private func hideKeepingOtherRows(_ key: SQLiteValue, _ delete: Statement) throws -> Bool {
        struct Undo: Error {}
        let tables = Array(Set(delete.deletesThroughTriggers)).sorted()
        let counts = {
            try tables.map { try self.database.scalar("SELECT count(*) FROM main.\(quoteIdentifier($0))") }
        }
        do {
            try database.savepoint {
                let before = try counts()
                try delete.run([key])
                if try counts() != before { throw Undo() }
            }
        } catch is Undo {
            return false
        }
        return true
    }

    /// The user table's row with `key` (the key, then the synced columns), `nil` when it holds none.
    func shownRow(of key: SQLiteValue) throws -> [SQLiteValue]? {
        let columns = ([table.quotedKey] + table.quotedColumns).joined(separator: ", ")
        return try database.query(
            "SELECT \(columns) FROM \(table.qualifiedName) WHERE \(table.quotedKey) = ?", [key]
        ).first
    }

    /// The reason a row is parked for when a trigger of the app ignored its write.
    static func ignoredByTrigger(_ table: String) -> String {
        "a trigger on \(table) ignored the write (RAISE(IGNORE))"
    }

    /// `column`'s DEFAULT evaluated now, as the column stores it.
    private func evaluateDefault(of column: Int) throws -> SQLiteValue {
        try volatileDefaults[column].flatMap { try database.evaluatedDefault($0, as: affinities?[column]) }
            ?? defaults[column]
    }

    /// Appends to the capture log an update of `columns` of the row `key`, which the next fold stamps as
    /// this replica's write of the values the row shows.
    private func logWritten(_ key: SQLiteValue, columns: [Int]) throws {
        guard !columns.isEmpty else { return }
        let changed = table.columns.indices.map(columns.contains)
        try database.cached(Replica.logWriteSQL).run([
            .integer(table.id), key, .integer(Metadata.Operation.update.rawValue), ChangeMask.encode(changed),
        ])
    }
}
