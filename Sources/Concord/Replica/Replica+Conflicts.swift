extension Replica {
    /// The values that lost to a concurrent write that had not seen them, newest first, each beside its
    /// winner; only those of `table`, and of the row `key`, when given.
    ///
    /// Listed here: another device's value that lost to this replica's write
    /// (an edit, or a delete of the row) made without having seen it, and this
    /// replica's own value that lost to another device's write before it ever
    /// left this replica — decided from data, see ``ConflictRule``. A device's
    /// own successive edits, and edits of values already synced in, are never
    /// listed. Entries are kept for ``Configuration/conflictRetention``. The
    /// log is local knowledge: it is not synced, and another device may list
    /// different conflicts.
    ///
    /// ```swift
    /// for conflict in try replica.conflicts(table: "reminders") {
    ///     print("\(conflict.column): \(conflict.lost) lost to \(conflict.winner ?? "a delete")")
    /// }
    /// ```
    public func conflicts(table: String? = nil, key: SQLiteValue? = nil) throws -> [Conflict] {
        var conditions: [String] = []
        var values: [SQLiteValue] = []
        if let table {
            guard let synced = syncedTable(named: table) else { throw ReplicaError.notASyncedTable(table) }
            conditions.append("c.tbl = ?")
            values.append(.integer(synced.id))
        }
        if let key {
            // Keys compare as their bytes and type, as everywhere in Concord.
            conditions.append("c.pk = ? AND typeof(c.pk) = ?")
            values += [key, .text(key.typeName)]
        }
        let rows = try database.query(
            "SELECT c.id, c.tbl, c.pk, c.col, c.kind, c.value, c.hlc, c.node, c.wvalue, c.whlc, c.wnode, c.at "
                + "FROM \(Metadata.conflicts) AS c"
                + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
                + " ORDER BY c.at DESC, c.id DESC", values)
        return try rows.compactMap { row in
            guard let table = tables.first(where: { $0.id == row[1].integerValue }),
                let lostNode = try nodes.node(at: row[7].integerValue ?? 0),
                let winnerNode = try nodes.node(at: row[10].integerValue ?? 0)
            else { return nil }
            let column = Int(row[3].integerValue ?? -1)
            let kind: Conflict.Kind =
                row[4].integerValue == Int64(ConflictRule.Loss.Kind.deleted.rawValue) ? .delete : .edit
            return Conflict(
                id: row[0].integerValue ?? 0, table: table.name, key: row[2],
                column: table.columns.indices.contains(column) ? table.columns[column] : "#\(column)", kind: kind,
                lost: row[5],
                lostStamp: Stamp(hlc: HLCTimestamp(sqliteValue: row[6].integerValue ?? 0), node: lostNode),
                winner: kind == .delete ? nil : row[8],
                winnerStamp: Stamp(hlc: HLCTimestamp(sqliteValue: row[9].integerValue ?? 0), node: winnerNode),
                recordedAt: row[11].integerValue ?? 0)
        }
    }

    /// Writes a conflict's losing value back as a new local write, which syncs like any other, and
    /// removes it from the conflict log.
    ///
    /// The write is the one an app would make, through the same capture: an
    /// `UPDATE` of the column when the row shows, an `INSERT` of the row
    /// (with the values it had, and this one) when it was deleted. Under the
    /// row policy the whole losing row comes back: every column listed for
    /// the same write. Throws ``ReplicaError/unknownConflict(id:)`` for an id
    /// the log does not hold, and ``ReplicaError/conflictNotRestorable(id:reason:)``
    /// when the write cannot be made now; either way nothing changes.
    ///
    /// ```swift
    /// if let lost = try replica.conflicts(table: "reminders", key: "r1").first {
    ///     try replica.restore(conflict: lost.id)
    /// }
    /// ```
    public func restore(conflict id: Int64) throws {
        // The app's writes not folded yet first: a row its app just deleted is deleted, not "not shown".
        try foldLocalWrites()
        try database.transaction {
            guard
                let entry = try database.query(
                    "SELECT tbl, pk, col, value, hlc, node FROM \(Metadata.conflicts) WHERE id = ?", [.integer(id)]
                ).first,
                let table = tables.first(where: { $0.id == entry[0].integerValue })
            else { throw ReplicaError.unknownConflict(id: id) }
            if let refusal = refusedTables[table.name] {
                throw ReplicaError.conflictNotRestorable(id: id, reason: refusal.description)
            }
            let key = entry[1]
            // Under the row policy one write supplied the whole row: every column it lost comes back.
            let group =
                table.policy == .row
                ? try database.query(
                    "SELECT id, col, value FROM \(Metadata.conflicts) WHERE tbl = ? AND pk = ? AND typeof(pk) = ? "
                        + "AND hlc = ? AND node = ? ORDER BY col",
                    [entry[0], key, .text(key.typeName), entry[4], entry[5]])
                : [[.integer(id), entry[2], entry[3]]]
            var values: [Int: SQLiteValue] = [:]
            for row in group {
                guard let column = row[1].integerValue, table.columns.indices.contains(Int(column)) else { continue }
                values[Int(column)] = row[2]
            }
            let shown =
                try database.scalar(
                    "SELECT EXISTS (SELECT 1 FROM \(table.qualifiedName) WHERE \(table.quotedKey) = ?)", [key])
                == .integer(1)
            do {
                if shown {
                    let columns = values.keys.sorted()
                    guard !columns.isEmpty else { return }
                    try database.execute(
                        "UPDATE \(table.qualifiedName) SET "
                            + columns.map { "\(table.quotedColumns[$0]) = ?" }.joined(separator: ", ")
                            + " WHERE \(table.quotedKey) = ?", columns.map { values[$0]! } + [key])
                } else {
                    let store = store(table)
                    guard let stored = try store.load(key) else {
                        throw ReplicaError.conflictNotRestorable(id: id, reason: "its row is not known here")
                    }
                    if stored.registers.liveness.isAlive {
                        throw ReplicaError.conflictNotRestorable(
                            id: id,
                            reason: "its row exists but is not shown (parked, or its parent is not shown; "
                                + "`concord status DB` says why); restore it once the row shows")
                    }
                    var row = store.shownValues(stored.registers)
                    // A counter shows 0 while its row is deleted; the row comes back with the count it had.
                    let life = stored.registers.liveness.causalLength
                    for index in table.counterColumns where life >= 2 {
                        guard let register = stored.registers.columns[index] else { continue }
                        row[index] = .integer(RowMerge.counterValue(register.contributions, life: life - 1))
                    }
                    for (column, value) in values { row[column] = value }
                    try database.execute(
                        "INSERT INTO \(table.qualifiedName) (\(([table.quotedKey] + table.quotedColumns).joined(separator: ", "))) "
                            + "VALUES (\(Array(repeating: "?", count: row.count + 1).joined(separator: ", ")))",
                        [key] + row)
                }
            } catch let error as SQLiteError {
                throw ReplicaError.conflictNotRestorable(id: id, reason: error.description)
            }
            for row in group { try database.execute("DELETE FROM \(Metadata.conflicts) WHERE id = ?", [row[0]]) }
            // Folded at once: a row brought back whose parent is not visible is parked now, not left in its
            // table naming a missing parent until the next fold.
            try foldLocalWrites()
        }
    }
}
