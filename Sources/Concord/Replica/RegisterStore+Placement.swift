import ConcordCore

/// Where a row's values go: the user table or the hidden copy, and what the app's schema makes of that.
///
/// Split from ``RegisterStore`` because showing a row is where the app's schema answers back: a
/// constraint or a trigger of the app refuses the row, a DEFAULT that changes gives each device its
/// own value. Each answer is handled here so that the table never shows what the registers do not.
extension RegisterStore {
    /// Puts a row's values where `placement` says: the user table (with any
    /// stand-ins for parents that are not visible, the real values then kept
    /// in the hidden copy) or the hidden copy alone.
    ///
    /// Returns the placement taken: a row whose values would break a NOT NULL
    /// or CHECK constraint of the user table is parked instead of shown.
    /// `mayBeParked` says whether a parking record may exist to be removed.
    func materialize(
        _ key: SQLiteValue, _ registers: RowRegisters, _ placement: Placement,
        previous: StoredRow?, mayBeParked: Bool
    ) throws -> Placement {
        var values: [SQLiteValue] { shownValues(registers) }
        switch placement {
        case .shown(let overrides):
            let unset = unsetVolatileColumns(registers)
            var values = values
            for column in unset { values[column] = try evaluateDefault(of: column) }
            // The key, then the values (or their stand-ins), bound in place: apply shows every row here.
            var shown = try Statement.Parameters(statement(.upsertShown))
            let bound = values.indices.map { overrides.isEmpty ? values[$0] : overrides[$0] ?? values[$0] }
            do {
                try shown.bind(key)
                for value in bound { try shown.bind(value) }
                try shown.run()
                // Nothing changed, and the table shows other values: a BEFORE trigger of the app answered
                // RAISE(IGNORE). The row is not what its registers say, so it is parked, as when a trigger
                // answers RAISE(ABORT). (A trigger that ignores writes changing nothing is no matter.)
                if try !table.columns.isEmpty && database.changes == 0 && shownValues(of: key) != bound {
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
            if previous?.shown ?? false { try deleteShown(key) }
            if registers.columns.contains(where: { $0 != nil }) { try statement(.writeHidden).run([key] + values) }
            if let reason {
                try marks.park(table: table.id, key: key, reason: reason)
            } else if mayBeParked {
                try marks.unpark(table: table.id, key: key)
            }
        }
        return placement
    }

    /// Takes a row out of the user table, even where a BEFORE DELETE trigger of the app refuses.
    ///
    /// Why: the row is hidden because its registers say so (deleted here or on another device, or
    /// parked), and every device must then show it gone. A trigger answering `RAISE(IGNORE)` would
    /// leave it shown here alone, and `RAISE(ABORT)` would refuse every changeset holding the delete,
    /// for ever. So the delete is made again with triggers off; the app's other triggers on that
    /// delete (an FTS index's) do not run for it. `RAISE(ROLLBACK)` undoes the caller's whole
    /// transaction: nothing more may be written, and the error goes to the caller.
    private func deleteShown(_ key: SQLiteValue) throws {
        do {
            try statement(.deleteShown).run([key])
            guard database.changes == 0, try database.scalar(loadShownSQL, [key]) != nil else { return }
        } catch let error as SQLiteError where error.resultCode == .triggerConstraint && database.inTransaction {}
        try database.withoutTriggers { try database.prepare(sql(.deleteShown)).run([key]) }
    }

    private var loadShownSQL: String {
        "SELECT 1 FROM \(table.qualifiedName) WHERE \(table.quotedKey) = ?"
    }

    /// The values the user table shows for `key`, `nil` when it holds no such row.
    private func shownValues(of key: SQLiteValue) throws -> [SQLiteValue]? {
        try database.query(
            "SELECT \(table.quotedColumns.joined(separator: ", ")) FROM \(table.qualifiedName) WHERE \(table.quotedKey) = ?",
            [key]
        ).first
    }

    /// The reason a row is parked for when a trigger of the app ignored its write.
    static func ignoredByTrigger(_ table: String) -> String {
        "a trigger on \(table) ignored the write (RAISE(IGNORE))"
    }

    /// The columns of a column-policy row that no write has set, merged last-writer-wins, whose DEFAULT
    /// may give another value each time.
    ///
    /// Why: each device evaluating such a DEFAULT for itself (`CURRENT_TIMESTAMP`, `(random())`) would
    /// show its own value for good while every register agrees. The replica showing the row writes
    /// the value it evaluated as its own write (``logWritten(_:columns:)``), and last-writer-wins
    /// settles one value everywhere. Only for columns merged by last writer wins: under the row
    /// policy such a write would stamp the whole row, and a merge by value would join the value
    /// evaluated into others.
    private func unsetVolatileColumns(_ registers: RowRegisters) -> [Int] {
        guard table.hasColumnStamps else { return [] }
        return registers.columns.indices.filter {
            registers.columns[$0] == nil && volatileDefaults[$0] != nil && table.merges[$0] == .lww
        }
    }

    /// `column`'s DEFAULT evaluated now, as the column stores it.
    private func evaluateDefault(of column: Int) throws -> SQLiteValue {
        guard let sql = volatileDefaults[column], let value = try database.scalar("SELECT (\(sql))") else {
            return defaults[column]
        }
        guard let affinity = affinities?[column] else { return value }
        return try database.stored(value, as: affinity)
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
