extension Replica {
    /// Stamps the writes the capture log holds and folds them into the registers.
    ///
    /// Every Concord operation that reads registers (export, apply, check,
    /// status) calls this first, in its own transaction, so the log never
    /// outlives the next sync. Writes are folded in the order they were made,
    /// each stamped with the hybrid-logical-clock reading for the time the
    /// trigger recorded — the same stamp it would have had if the trigger had
    /// computed it, at a fraction of the cost on the app's write path.
    ///
    /// Value-merged columns are joined here: a counter write becomes this
    /// node's contribution, and a `max`, `min`, `union` or custom column ends
    /// up holding the join of everything written to it, which is then what the
    /// table shows.
    ///
    /// Returns how many writes were folded.
    @discardableResult
    public func foldLocalWrites() throws -> Int {
        try withForeignKeysDeferred {
            try checkSchemas()
            // Stamps are issued only under the file's own node id: a copy takes a new one first.
            try checkIdentity()
            var count = 0
            var folded: [RowRef] = []
            var seen: Set<RowRef> = []
            // A delete whose parent cascades deletes the children this device shows, as
            // local writes of their own; with the app's foreign keys on, SQLite did so already.
            while try database.scalar("SELECT EXISTS (SELECT 1 FROM \(Metadata.log))") == .integer(1) {
                let deleted = try foldLog(&count, &folded, &seen)
                for parent in deleted {
                    for key in children(of: parent.table) where key.action == .cascade {
                        guard let child = syncedTables[key.child] else { continue }
                        try database.execute("DELETE FROM \(child.quotedName) WHERE \(quoteIdentifier(child.columns[key.column])) = ?",
                                             [parent.key])
                    }
                }
            }
            if !folded.isEmpty {
                // Showing or hiding related rows is Concord's doing, not the app's: the triggers must not capture it.
                try suspendCapture()
                try Reprojection(replica: self).reproject(folded)
                try resumeCapture()
            }
            return count
        }
    }

    /// Folds what the log holds now; returns the rows deleted, for cascading.
    ///
    /// The log is read and trimmed ``foldBatch`` writes at a time, so the
    /// pages its rows free are reused by the registers the fold writes rather
    /// than left empty in the file. Each write moves its row to a new version.
    private func foldLog(_ count: inout Int, _ folded: inout [RowRef], _ seen: inout Set<RowRef>) throws -> [RowRef] {
        for table in tables { try requireMergeFunctions(table) }
        var clock = try self.clock
        var version = versionFloor(after: try self.version)
        let writes = try database.prepare(
            "SELECT seq, tbl, pk, op, at, mask FROM \(Metadata.log) WHERE seq > ? ORDER BY seq LIMIT \(Self.foldBatch)")
        let trim = try database.prepare("DELETE FROM \(Metadata.log) WHERE seq > ? AND seq <= ?")
        var deleted: [RowRef] = []
        var joins = PendingJoins()
        let anyParked = try parkedRowsExist()
        var last = Int64.min
        var batch = 0
        repeat {
            try writes.bind([.integer(last)])
            let first = last
            var kept: [Int64] = []
            batch = 0
            while try writes.step() {
                batch += 1
                last = writes.int64(0)
                guard let name = tableNames[writes.int64(1)], let table = syncedTables[name],
                      let operation = Metadata.Operation(rawValue: writes.int64(3)) else { continue }
                // The update trigger logs an update that changed nothing with mask 0 rather than test every column twice.
                if operation == .update && writes.int64(5) == 0 { continue }
                let key = writes.column(2)
                guard Self.isSyncableKey(key) else {
                    // Only a row written before keys were checked (or with capture's guard gone) gets here:
                    // it stays in the table, unsynced and parked with the reason, and blocks nothing else.
                    let ref = RowRef(table: name, key: key)
                    try operation == .delete ? unpark(ref) : park(ref, reason: .unsyncableKey(type: key.typeName))
                    continue
                }
                let stamp = Stamp(hlc: clock.tick(physical: Metadata.unixMilliseconds(julianDay: writes.double(4))), node: nodeID)
                let store = store(table)
                var changed = operation == .update
                    ? Self.changedColumns(mask: writes.int64(5), count: table.columns.count)
                    : Array(repeating: operation == .insert, count: table.columns.count)
                if operation == .update, captureFacts[name]?.comparesTypes.contains(true) ?? false {
                    // A real zero written over a real zero changed only if its sign did.
                    for zero in try database.query("SELECT col, old, new FROM \(table.zerosTable) WHERE seq = ?",
                                                    [writes.column(0)]) where zero[1] == zero[2] {
                        if let column = zero[0].integerValue, changed.indices.contains(Int(column)) { changed[Int(column)] = false }
                    }
                    if !changed.contains(true) { continue }
                }
                let write: LocalWrite = switch operation {
                case .insert: .insert
                case .delete: .delete
                case .update: .update(changed: changed)
                }
                let before = try store.loadStamps(key)
                var after = write.applied(to: before?.registers, columnCount: table.columns.count, stamp: stamp,
                                          policy: table.policy)
                if !table.joinedColumns.isEmpty && operation != .delete {
                    try joins.fold(seq: writes.column(0), isInsert: operation == .insert, table: table, store: store,
                                   key: key, before: before?.registers, after: &after, changed: changed, stamp: stamp,
                                   replica: self)
                }
                version += 1
                try store.writeMetadata(key, after, version: version, previous: before?.version)
                if operation == .delete && table.policy == .column {
                    // A counter shows what its row's current life contributed: nothing, once deleted, as a merge settles it.
                    for index in table.counterColumns {
                        let life = after.liveness.causalLength
                        try store.setValue(key, column: index,
                                           .integer(RowMerge.counterValue(after.columns[index]?.contributions ?? [], life: life)))
                    }
                }
                if operation == .update && parents(of: name).contains(where: { !$0.action.hidesChild }) {
                    try store.refreshHiddenCopy(key, changed: changed)
                }
                // A known key inserted again may have a hidden copy to drop; see below.
                if operation == .insert && before != nil { kept.append(last) }
                let ref = RowRef(table: name, key: key)
                if hasRelations(name) {
                    if seen.insert(ref).inserted { folded.append(ref) }
                } else if operation != .update, anyParked {
                    // The app wrote a row that was parked (for a constraint): what it wrote is what shows.
                    try unpark(ref)
                }
                if operation == .delete && !children(of: name).isEmpty { deleted.append(ref) }
                count += 1
            }
            writes.reset()
            for (low, high) in zip([first] + kept, kept.map { $0 - 1 } + [last]) where low < high {
                try trim.run([.integer(low), .integer(high)])
            }
        } while batch == Self.foldBatch
        // A row re-inserted after a delete loses its hidden copy, unless a later delete
        // in the log made a new one: decided on the final liveness. Only those
        // re-inserts are left in the log by now, so this holds nothing in memory per write.
        let reinserts = try database.prepare("SELECT tbl, pk FROM \(Metadata.log) WHERE op = ? ORDER BY seq")
        try reinserts.bind([.integer(Metadata.Operation.insert.rawValue)])
        while try reinserts.step() {
            guard let name = tableNames[reinserts.int64(0)], let table = syncedTables[name] else { continue }
            let key = reinserts.column(1)
            if try store(table).loadStamps(key)?.registers.liveness.isAlive ?? false {
                try store(table).deleteHidden(key)
            }
        }
        if joins.isEmpty {
            try joins.write()
        } else {
            try suspendCapture()
            try joins.write()
            try resumeCapture()
        }
        try database.execute("DELETE FROM \(Metadata.log)")
        for table in tables where !table.joinedColumns.isEmpty {
            try database.execute("DELETE FROM \(table.logValuesTable)")
        }
        for table in tables where captureFacts[table.name]?.comparesTypes.contains(true) ?? false {
            try database.execute("DELETE FROM \(table.zerosTable)")
        }
        try storeClock(clock, version: version)
        return deleted
    }

    /// Whether a key can sync: TEXT or BLOB (see DESIGN.md, "Capturing local writes").
    static func isSyncableKey(_ key: SQLiteValue) -> Bool {
        switch key {
        case .text, .blob: true
        default: false
        }
    }

    /// How many logged writes a fold reads before trimming them from the log.
    static let foldBatch = 1_000

    /// Whether any row is parked.
    func parkedRowsExist() throws -> Bool {
        try database.scalar("SELECT EXISTS (SELECT 1 FROM \(Metadata.parked))") == .integer(1)
    }

    /// Throws unless every user-defined merge `table` declares is registered.
    func requireMergeFunctions(_ table: SyncedTable) throws {
        for (column, merge) in zip(table.columns, table.merges) {
            if case .custom(let name) = merge, configuration.merges[name] == nil {
                throw ReplicaError.unregisteredMerge(table: table.name, column: column, name: name)
            }
        }
    }

    /// Decodes an update's change mask; columns past ``Metadata/maskBits`` share its last bit.
    static func changedColumns(mask: Int64, count: Int) -> [Bool] {
        (0..<count).map { mask & (1 << Int64(min($0, Metadata.maskBits))) != 0 }
    }
}

/// The joined values and counter contributions a fold accumulates, row by row, in first-seen order.
private struct PendingJoins {
    struct Row {
        let store: RegisterStore
        let key: SQLiteValue
        /// The running register of each value-merged column written in this fold.
        var registers: [Int: ColumnRegister] = [:]
    }

    private var rows: [Row] = []
    private var positions: [String: [SQLiteValue: Int]] = [:]

    var isEmpty: Bool { rows.isEmpty }

    /// Folds one insert or update's logged values into the row's running joins, and into `after`.
    mutating func fold(seq: SQLiteValue, isInsert: Bool, table: SyncedTable, store: RegisterStore, key: SQLiteValue,
                       before: RowRegisters?, after: inout RowRegisters, changed: [Bool], stamp: Stamp,
                       replica: Replica) throws {
        let logged = try replica.database.query("SELECT * FROM \(table.logValuesTable) WHERE seq = ?", [seq]).first ?? []
        let position = positions[table.name]?[key] ?? {
            rows.append(Row(store: store, key: key))
            positions[table.name, default: [:]][key] = rows.count - 1
            return rows.count - 1
        }()
        for (slot, index) in table.joinedColumns.enumerated() where changed[index] {
            // `_concord_N_logvalues` holds (seq, o<k>, v<k>, ...) for each joined column k; an insert leaves o<k> NULL.
            let old = logged[1 + 2 * slot], new = logged[2 + 2 * slot]
            let merge = table.merges[index]
            let held = rows[position].registers[index] ?? before?.columns[index]
            if merge == .counter {
                var entries = held?.contributions ?? []
                let delta = (new.integerValue ?? 0) &- (isInsert ? 0 : old.integerValue ?? 0)
                let life = after.liveness.causalLength
                if let mine = entries.firstIndex(where: { $0.stamp.node == stamp.node }) {
                    let amount = entries[mine].causalLength == life ? entries[mine].amount &+ delta : delta
                    entries[mine] = CounterContribution(causalLength: life, amount: amount, stamp: stamp)
                } else {
                    entries.append(CounterContribution(causalLength: life, amount: delta, stamp: stamp))
                    entries.sort { $0.stamp.node < $1.stamp.node }
                }
                let register = ColumnRegister(value: .integer(RowMerge.counterValue(entries, life: life)),
                                              stamp: stamp, contributions: entries)
                rows[position].registers[index] = register
                after.columns[index] = register
                continue
            }
            // The register before this write: the running join, the previous value with its
            // stamp, or, for a re-insert, what the deleted row last held.
            var base: ColumnRegister? = rows[position].registers[index]
            if base == nil, let held, !isInsert {
                base = ColumnRegister(value: old, stamp: held.stamp)
            } else if base == nil, let held, isInsert, before.map({ !$0.liveness.isAlive }) ?? false {
                base = try store.load(key)?.registers.columns[index].map { ColumnRegister(value: $0.value, stamp: held.stamp) }
            }
            let written = ColumnRegister(value: merge == .union ? UnionValue.canonical(new) : new, stamp: stamp)
            let joined = RowMerge.mergeColumn(base, written, merge, replica.configuration.merges) ?? written
            rows[position].registers[index] = joined
            after.columns[index] = joined
        }
    }

    /// Writes contributions and shows the joined values where each row's values live.
    func write() throws {
        for row in rows {
            for (index, register) in row.registers.sorted(by: { $0.key < $1.key }) {
                if row.store.table.merges[index] == .counter {
                    try row.store.writeContributions(row.key, column: index, register.contributions)
                }
                try row.store.setValue(row.key, column: index, register.value)
            }
        }
    }
}
