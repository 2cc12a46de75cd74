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
    public func foldLocalWrites() throws -> Int { try foldLocalWrites(identityChecked: false) }

    /// ``foldLocalWrites()``, for a caller that has just checked the file's identity itself (an export).
    @discardableResult
    func foldLocalWrites(identityChecked: Bool) throws -> Int {
        try withForeignKeyEnforcementOffIfWriting {
            try checkSchemas()
            // Stamps are issued only under the file's own node id: a copy takes a new one first.
            if !identityChecked { try checkIdentity() }
            try logRowsLostUncaptured()
            var count = 0
            // A fold that showed rows may have fired an app trigger deleting others (logged by
            // `withoutCapture`): folded again at once, so those deletes are stamped with the fold that made them.
            for _ in 0..<Self.foldRounds {
                guard try hasWritesToFold() else { break }
                for table in tables { try requireMergeFunctions(table) }
                let session = try FoldSession(replica: self)
                try session.foldLog()
                try session.finish()
                count += session.count
            }
            return count
        }
    }

    /// How many times one fold folds the log again for the deletes its own showing of rows made through an
    /// app's trigger; what is left after that (a chain of triggers this long) waits for the next fold.
    ///
    /// Why: a fold shows a row; the app's trigger on it writes another row, whose merged value Concord
    /// writes back; a trigger on that deletes a third (the reminders app: showing a subtask reopens its
    /// reminder, putting back the reminder's done state clears its subtasks). The delete is this device's
    /// (``logRowsLostUncaptured()``). Stamped only at the next fold, it would travel with the app's next
    /// writes, after the ones the app made knowing the row gone.
    static let foldRounds = 4

    /// Whether the capture log holds writes of a table that is not refused (a refused table's wait there).
    /// (One constant statement while no table is refused, the usual case: every call asks.)
    private func hasWritesToFold() throws -> Bool {
        guard !refusedTables.isEmpty else { return try logHoldsWrites() }
        return try database.scalar(
            "SELECT EXISTS (SELECT 1 FROM \(Metadata.log) WHERE tbl NOT IN ("
                + tables.filter { isRefused($0.name) }.map { String($0.id) }.joined(separator: ", ") + "))")
            == .integer(1)
    }

    /// Whether the capture log holds any write, of any table.
    func logHoldsWrites() throws -> Bool {
        try database.scalar("SELECT EXISTS (SELECT 1 FROM \(Metadata.log))") == .integer(1)
    }

    /// How many logged writes a fold reads before trimming them from the log, unless the configuration
    /// says otherwise.
    @_spi(Simulation) public static let foldBatch = 1_000

    /// Whether any row is parked.
    func parkedRowsExist() throws -> Bool {
        try database.scalar("SELECT EXISTS (SELECT 1 FROM \(Metadata.parked))") == .integer(1)
    }

    /// Whether a key can sync: TEXT or BLOB (see DESIGN.md, "Capturing local writes").
    static func isSyncableKey(_ key: SQLiteValue) -> Bool {
        switch key {
        case .text, .blob: true
        default: false
        }
    }

    /// Throws unless every user-defined merge `table` declares is registered.
    func requireMergeFunctions(_ table: SyncedTable) throws {
        for (column, merge) in zip(table.columns, table.merges) {
            if case .custom(let name) = merge, configuration.merges[name] == nil {
                throw ReplicaError.unregisteredMerge(table: table.name, column: column, name: name)
            }
        }
    }

}

/// One fold of the capture log, inside the caller's transaction: read the log in write
/// order, stamp each write, store its registers, then show the result.
///
/// The log is read and trimmed ``Replica/foldBatch`` writes at a time (or the configuration's), so the
/// pages its rows free are reused by the registers the fold writes rather
/// than left empty in the file. Each write moves its row to a new version.
final class FoldSession {
    private let replica: Replica
    private var clock: HybridLogicalClock
    private var version: Int64
    private var joins = PendingJoins()
    private let anyParked: Bool
    /// The tables this fold wrote (a parked row of one may show now, see ``Replica/rowsParkedByOthers(in:)``).
    private var writtenTables: Set<String> = []
    /// Rows of tables with foreign keys the fold touched, for the reprojection, in first-seen order.
    private var folded: [RowRef] = []
    private var seen: Set<RowRef> = []
    /// The registers folded rows of tables with `RESTRICT` parents had before this fold: a row that no longer
    /// references a parent it kept (brought back) has that parent looked at again, as after a merge.
    /// (`nil` for a row new to the registers.)
    private var registersBeforeFold: [RowRef: RowRegisters?] = [:]
    /// Per table id, whether its hidden table held rows (see ``mayHaveHiddenCopies(_:)``).
    private var hiddenCopies: [Int64: Bool] = [:]
    /// The last log position of each logged key, read on the first cascade (see ``cascade(from:at:time:)``).
    private var lastLogged: [RowRef: Int64]?
    /// The log position of the first insert of each logged key, read with ``lastLogged``.
    private var firstInsertLogged: [RowRef: Int64] = [:]
    /// The physical clock's reading when the fold began: the latest time a write it stamps can have.
    private let physical: Int64
    /// How many logged writes were folded.
    private(set) var count = 0
    /// The credits of a copy whose log held writes when it noticed it was one (``CopyCredits``): their
    /// counter changes are the original's.
    private let credits: CopyCredits

    /// One row of `_concord_log`.
    private struct LoggedWrite {
        let seq: Int64
        let table: SyncedTable
        let key: SQLiteValue
        let operation: Metadata.Operation
        /// The write's time, in Unix milliseconds.
        let time: Int64
        /// The columns an update changed (see ``ChangeMask``).
        let mask: SQLiteValue
    }

    init(replica: Replica) throws {
        self.replica = replica
        credits = try CopyCredits(of: replica)
        clock = try replica.clock
        physical = try replica.physicalTime()
        version = try replica.versionFloor(after: try replica.version)
        anyParked = try replica.parkedRowsExist()
    }

    private var database: Database { replica.database }

    /// Whether `table`'s hidden table held any row when this fold began (read once per table): only then
    /// may a row the app updates have a hidden copy to keep up to date.
    private func mayHaveHiddenCopies(_ table: SyncedTable) throws -> Bool {
        if let known = hiddenCopies[table.id] { return known }
        let known =
            try database.cached("SELECT EXISTS (SELECT 1 FROM \(table.hiddenTable))").all([]).first?.first
            != .integer(0)
        hiddenCopies[table.id] = known
        return known
    }

    /// Folds every write the log holds, in write order (see ``insertsFirst(_:full:)`` for the one exception).
    func foldLog() throws {
        // Kept prepared, as a fold runs after nearly every write (unless a fold is already reading it);
        // reset before folding what it read, so no read stays open.
        let writes = try database.idle(
            database.cached("SELECT seq, tbl, pk, op, at, mask FROM \(Metadata.log) WHERE seq > ? ORDER BY seq LIMIT ?")
        )
        defer { writes.reset() }
        let size = max(1, replica.configuration.foldBatch)
        let trim = try database.cached("DELETE FROM \(Metadata.log) WHERE seq > ? AND seq <= ?")
        var last = Int64.min
        var batch = 0
        var more = false
        // Updates of a new row whose insert the next batch may hold (see ``insertsFirst(_:full:)``).
        var waiting: [LoggedWrite] = []
        repeat {
            try writes.bind([.integer(last), .integer(Int64(size))])
            let first = last
            var kept: [Int64] = []
            var read: [LoggedWrite] = []
            batch = 0
            while try writes.step() {
                batch += 1
                last = writes.int64(0)
                guard let name = replica.tableNames[writes.int64(1)], let table = replica.syncedTables[name],
                    let operation = Metadata.Operation(rawValue: writes.int64(3))
                else { continue }
                // A table refused for a destructive schema change keeps its writes in the log until it is undone.
                if replica.isRefused(name) {
                    kept.append(last)
                    continue
                }
                read.append(
                    LoggedWrite(
                        seq: last, table: table, key: writes.column(2), operation: operation,
                        time: Metadata.unixMilliseconds(julianDay: writes.double(4)), mask: writes.column(5)))
            }
            writes.reset()
            let ordered: [LoggedWrite]
            (ordered, waiting) = try insertsFirst(waiting + read, full: batch == size)
            for write in ordered {
                // A known key inserted again may have a hidden copy to drop; see `finish()`.
                if try fold(write) { kept.append(write.seq) }
            }
            kept.sort()
            for (low, high) in zip([first] + kept, kept.map { $0 - 1 } + [last]) where low < high {
                try trim.run([.integer(low), .integer(high)])
            }
            // A fold may log writes of its own (a changing DEFAULT a shown row evaluated): folded now too.
            more = try batch > 0 && database.scalar(Self.loggedAfterSQL, [.integer(last)]) != .integer(0)
        } while batch == size || more
    }

    private static let loggedAfterSQL = "SELECT EXISTS (SELECT 1 FROM \(Metadata.log) WHERE seq > ?)"

    /// `writes` in log order, but for an insert logged after updates of its own row made in the same
    /// statement, which goes before them; and, when the batch is `full`, the updates whose insert may be
    /// in the next batch, held back for it.
    ///
    /// Why: SQLite fires the newest trigger first. An app trigger created after Concord's capture
    /// triggers (a later release's "every new list gets a welcome item", which counts the list's items
    /// in it) fires before the capture of the insert that set it off, so the updates it makes of the
    /// new row are logged before the row's insert. Folded in log order, the insert's values (the count
    /// as inserted, 0) replaced the updates' (1), on every device. Such an update is one of a row the
    /// registers do not hold alive, which no UPDATE can reach — unless a child brought the deleted row
    /// back, and the table shows it; the insert is the first later write of the row that is not an
    /// update, made at the same instant. A batch may end between them.
    ///
    /// Linear in the batch, and reads registers only for an update with such an insert after it, and for
    /// at most ``carriedChecks`` updates at the end of a full batch: a fold of plain updates pays nothing.
    private func insertsFirst(_ writes: [LoggedWrite], full: Bool) throws -> (
        ordered: [LoggedWrite], waiting: [LoggedWrite]
    ) {
        // Only an update can have come too early, and, in a batch that is not full, only before an insert.
        guard writes.contains(where: { $0.operation == .update }),
            full || writes.contains(where: { $0.operation == .insert })
        else { return (writes, []) }
        struct Row: Hashable {
            let table: Int64
            let key: SQLiteValue
        }
        // Per write, the next write of its row that is not an update, and the end of its instant's run.
        var nextOther = Array(repeating: -1, count: writes.count)
        var runEnd = Array(repeating: writes.count - 1, count: writes.count)
        var seen: [Row: Int] = [:]
        for index in writes.indices.reversed() {
            let write = writes[index]
            let row = Row(table: write.table.id, key: write.key)
            nextOther[index] = seen[row] ?? -1
            if write.operation != .update { seen[row] = index }
            if index + 1 < writes.count {
                runEnd[index] = writes[index + 1].time == write.time ? runEnd[index + 1] : index
            }
        }
        let notAlive = { (write: LoggedWrite) in
            guard let stored = try self.replica.store(write.table).loadStamps(write.key) else { return true }
            if stored.registers.liveness.isAlive { return false }
            // A deleted row a RESTRICT child brought back is in the table: an UPDATE reaches it.
            return try !self.replica.isShownRevived(RowRef(table: write.table.name, key: write.key))
        }
        // Each insert to move, with the first update of its row it goes before; a row this batch inserted
        // before the update is alive, whatever its registers say yet.
        var before: [Int: Int] = [:]
        var moved: Set<Int> = []
        var inserted: Set<Row> = []
        for index in writes.indices {
            let write = writes[index]
            let row = Row(table: write.table.id, key: write.key)
            guard write.operation == .update else {
                if write.operation == .insert { inserted.insert(row) } else { inserted.remove(row) }
                continue
            }
            let next = nextOther[index]
            guard next >= 0, next <= runEnd[index], writes[next].operation == .insert, !moved.contains(next),
                !inserted.contains(row), try notAlive(write)
            else { continue }
            before[index] = next
            moved.insert(next)
        }
        // Updates of rows not alive at the end of a full batch, whose instant may go on in the next one.
        var waiting: Set<Int> = []
        if full, let last = writes.indices.last {
            var checked = 0
            for index in (0...last).reversed() where runEnd[index] == last && checked < Self.carriedChecks {
                guard writes[index].operation == .update, nextOther[index] < 0 else { continue }
                checked += 1
                if try notAlive(writes[index]) { waiting.insert(index) }
            }
        }
        var ordered: [LoggedWrite] = []
        ordered.reserveCapacity(writes.count)
        for index in writes.indices where !moved.contains(index) && !waiting.contains(index) {
            if let insert = before[index] { ordered.append(writes[insert]) }
            ordered.append(writes[index])
        }
        return (ordered, writes.indices.filter(waiting.contains).map { writes[$0] })
    }

    /// How many updates at the end of a full batch ``insertsFirst(_:full:)`` reads the registers of, looking
    /// for those to hold back: a batch of one long UPDATE reads a few, not all.
    private static let carriedChecks = 16

    /// Folds one logged write; returns whether it re-inserted a key the registers knew.
    private func fold(_ write: LoggedWrite) throws -> Bool {
        // The update trigger logs an update that changed nothing with mask 0 rather than test every column twice.
        if write.operation == .update && ChangeMask.isEmpty(write.mask, count: write.table.columns.count) {
            return false
        }
        let ref = RowRef(table: write.table.name, key: write.key)
        // Read only when a row is parked: no hashing per write otherwise.
        if anyParked { writtenTables.insert(write.table.name) }
        guard Replica.isSyncableKey(write.key) else {
            // Only a row written before keys were checked (or with capture's guard gone) gets here:
            // it stays in the table, unsynced and parked with the reason, and blocks nothing else.
            try write.operation == .delete
                ? replica.unpark(ref)
                : replica.park(ref, reason: .unsyncableKey(type: write.key.typeName))
            return false
        }
        guard let changed = try changedColumns(write) else { return false }
        let localWrite: LocalWrite =
            switch write.operation {
            case .insert: .insert
            case .delete where write.mask == .integer(Metadata.uncapturedMask):
                .deleteUncaptured(forgetting: LocalWrite.forgottenByUncapturedDelete(write.table.merges))
            case .delete: .delete
            case .update: .update(changed: changed)
            }
        let stamp = Stamp(hlc: clock.tick(physical: stampTime(of: write.time)), node: replica.nodeID)
        let store = replica.store(write.table)
        let before = try store.loadStamps(write.key)
        // Only a parked row can keep a parked parent, so only while rows are parked; with the values this
        // time (`loadStamps` reads none), before this fold's first write of the row.
        if anyParked, !seen.contains(ref), registersBeforeFold.index(forKey: ref) == nil,
            replica.parents(of: ref.table).contains(where: \.action.revivesParent)
        {
            registersBeforeFold[ref] = try store.load(write.key)?.registers
        }
        var after = localWrite.applied(
            to: before?.registers, columnCount: write.table.columns.count, stamp: stamp,
            policy: write.table.policy)
        if !write.table.joinedColumns.isEmpty && write.operation != .delete {
            let logged = try database.query(
                "SELECT * FROM \(write.table.logValuesTable) WHERE seq = ?", [.integer(write.seq)])
            try joins.fold(
                .init(isInsert: write.operation == .insert, changed: changed, logged: logged.first ?? []),
                table: write.table, store: store, key: write.key, before: before?.registers, after: &after,
                stamp: stamp, creditStamp: credits.credit(at: write.seq)?.stamp,
                functions: replica.configuration.merges,
                hiddenCopies: try write.operation == .update && mayHaveHiddenCopies(write.table))
        }
        // What this write saw of each column it wrote, kept for deciding later whether a value that loses to
        // it was a conflict (a delete writes no column; a new row saw nothing).
        let seenStamps =
            write.operation == .delete
            ? nil
            : ConflictRule.seen(
                written: changed, before: before?.registers, beforeSeen: before?.seen, stamp: stamp,
                policy: write.table.policy, merges: write.table.merges)
        try self.store(
            after, of: ref, before: before, changed: changed, operation: write.operation, seenStamps: seenStamps)
        report(write.seq, ref, stamp, after)
        if write.operation == .delete { try cascade(from: ref, at: write.seq, time: write.time) }
        return write.operation == .insert && before != nil
    }

    /// The physical time a write made at `time` is stamped at: its own, unless that is further ahead of the
    /// fold's clock than any peer accepts (``Replica/Configuration/maxDrift``), when it is the fold's.
    ///
    /// Why: no write is made after the fold that stamps it, so such a time was read from a clock that ran
    /// fast for a while (the app's write dated a day, or a millennium, ahead; the clock set right since).
    /// Stamped there, it would hold this replica's clock ahead, and every peer would refuse all its
    /// changes, older and newer, until real time caught up. A time ahead by less is kept: peers accept it,
    /// and the clock may as well have been set back since.
    ///
    /// ```swift
    /// stampTime(of: now + 86_400_000)   // now: the app wrote while the clock ran a day fast
    /// ```
    private func stampTime(of time: Int64) -> Int64 {
        let (ahead, overflow) = time.subtractingReportingOverflow(physical)
        return time > physical && (overflow || ahead > replica.configuration.maxDrift) ? physical : time
    }

    /// Which columns an update changed, from its mask and, for a real zero written over a real
    /// zero, the logged values (SQL cannot tell 0.0 from -0.0; here they are told apart).
    /// `nil` when it changed nothing after all.
    private func changedColumns(_ write: LoggedWrite) throws -> [Bool]? {
        let count = write.table.columns.count
        guard write.operation == .update else { return Array(repeating: write.operation == .insert, count: count) }
        var changed = ChangeMask.decode(write.mask, count: count)
        guard replica.captureFacts[write.table.name]?.comparesTypes.contains(true) ?? false else { return changed }
        for zero in try database.query(
            "SELECT col, old, new FROM \(write.table.zerosTable) WHERE seq = ?",
            [.integer(write.seq)]) where zero[1] == zero[2]
        {
            if let column = zero[0].integerValue, changed.indices.contains(Int(column)) { changed[Int(column)] = false }
        }
        return changed.contains(true) ? changed : nil
    }

    /// Stores a row's registers after a local write, and what else that write changes.
    private func store(
        _ after: RowRegisters, of ref: RowRef, before: RegisterStore.StoredRow?, changed: [Bool],
        operation: Metadata.Operation, seenStamps: [Stamp?]? = nil
    ) throws {
        let table = replica.syncedTables[ref.table]!
        let store = replica.store(table)
        version += 1
        try store.writeMetadata(ref.key, after, version: version, previous: before?.version, seen: seenStamps)
        if operation == .delete && table.policy == .column && !table.counterColumns.isEmpty {
            // A counter shows what its row's current life contributed: nothing, once deleted, as a merge settles it.
            // Silenced: when the app inserted the key again before this fold, the table holds that new row, and
            // this is Concord's write to it, not the app's (the new life's own writes are folded after).
            let life = after.liveness.causalLength
            try replica.withoutCapture {
                for index in table.counterColumns {
                    try store.setValue(
                        ref.key, column: index,
                        .integer(RowMerge.counterValue(after.columns[index]?.contributions ?? [], life: life)))
                }
            }
            joins.settleCounters(of: ref.key, in: table, life: life)
        }
        // A shown row keeps a hidden copy behind a stand-in or a value its column converts: what the app
        // wrote goes there too, and the row is placed again (the copy may no longer be needed).
        let copied =
            try operation == .update && mayHaveHiddenCopies(table)
            && store.refreshHiddenCopy(ref.key, changed: changed)
        if replica.hasRelations(ref.table) || copied {
            if seen.insert(ref).inserted { folded.append(ref) }
        } else if operation != .update, anyParked {
            // The app wrote a row that was parked (for a constraint): what it wrote is what shows.
            try replica.unpark(ref)
        }
        count += 1
    }

    /// A local delete of a parent deletes, right after it and as this device's writes, the
    /// children it showed through an `ON DELETE CASCADE` key, and theirs.
    ///
    /// With the app's foreign keys on, SQLite deleted them already (the log holds
    /// those deletes, before the parent's). With them off, the children are still
    /// in the table: those that reference the parent now and that no later write
    /// in the log touched are the ones it showed when it was deleted. A child
    /// inserted, moved or deleted after the parent's delete is that later
    /// write's business, and is left alone.
    ///
    /// Depth first, in the order of the keys and then of the children's keys, with a stack of its own: a
    /// chain 30,000 rows deep must not take a frame per row.
    private func cascade(from parent: RowRef, at seq: Int64, time: Int64) throws {
        // Per row on the way down, its children still to delete, the next one last.
        var stack = [try cascadingChildren(of: parent).reversed() as [RowRef]]
        while !stack.isEmpty {
            guard let ref = stack[stack.count - 1].popLast() else {
                stack.removeLast()
                continue
            }
            guard let child = replica.syncedTables[ref.table], try (lastWrite(of: ref) ?? .min) <= seq,
                Replica.isSyncableKey(ref.key)
            else { continue }
            let store = replica.store(child)
            let before = try store.loadStamps(ref.key)
            guard before?.registers.liveness.isAlive ?? false else { continue }
            if (firstInsertLogged[ref] ?? .max) < seq {
                // Inserted again since its last delete: its hidden copy, kept for `finish()` to drop, holds
                // that earlier life's values; the table shows this life's, which the delete must keep.
                try store.refreshHiddenCopy(ref.key, changed: child.columns.map { _ in true })
            }
            let stamp = Stamp(hlc: clock.tick(physical: stampTime(of: time)), node: replica.nodeID)
            let after = LocalWrite.delete.applied(
                to: before?.registers, columnCount: child.columns.count,
                stamp: stamp, policy: child.policy)
            try self.store(after, of: ref, before: before, changed: [], operation: .delete)
            report(seq, ref, stamp, after)
            stack.append(try cascadingChildren(of: ref).reversed())
        }
    }

    /// The rows of `parent`'s children tables that name it through an `ON DELETE CASCADE` key, by key and then
    /// by the child's key.
    private func cascadingChildren(of parent: RowRef) throws -> [RowRef] {
        var children: [RowRef] = []
        for key in replica.children(of: parent.table) where key.action == .cascade {
            // A refused child table is left as it is; its own writes wait in the log.
            guard let child = replica.syncedTables[key.child], !replica.isRefused(child.name) else { continue }
            // The column's affinity may find a child that names another key ('1.0' finds 1): each is checked.
            children += try database.query(
                "SELECT \(child.quotedKey), \(child.quotedColumns[key.column]) FROM \(child.qualifiedName) "
                    + "WHERE \(child.quotedColumns[key.column]) = ? ORDER BY \(child.quotedKey)", [parent.key]
            ).filter { try replica.parentKey(of: $0[1], through: key) == parent.key }.map {
                RowRef(table: child.name, key: $0[0])
            }
        }
        return children
    }

    /// Tells the replica's ``Replica/foldObserver``, if any, that the write at `seq` stamped `row`, when its
    /// registers hold the stamp.
    private func report(_ seq: Int64, _ row: RowRef, _ stamp: Stamp, _ registers: RowRegisters) {
        guard let observer = replica.foldObserver, FoldedWrite.holds(stamp, in: registers) else { return }
        observer(FoldedWrite(seq: seq, row: row, stamp: stamp))
    }

    /// The position of the last write the log holds for `row`; reading the log for it the first time, also
    /// where each key's first logged insert is (``firstInsertLogged``), in the same query.
    private func lastWrite(of row: RowRef) throws -> Int64? {
        if lastLogged == nil {
            var last: [RowRef: Int64] = [:]
            for entry in try database.query(
                "SELECT tbl, pk, max(seq), min(CASE WHEN op = \(Metadata.Operation.insert.rawValue) THEN seq END) "
                    + "FROM \(Metadata.log) GROUP BY tbl, pk")
            {
                guard let name = replica.tableNames[entry[0].integerValue ?? 0] else { continue }
                last[RowRef(table: name, key: entry[1])] = entry[2].integerValue
                firstInsertLogged[RowRef(table: name, key: entry[1])] = entry[3].integerValue
            }
            lastLogged = last
        }
        return lastLogged?[row]
    }

    /// Drops stale hidden copies, stores joins and the clock, empties the log, and shows the result.
    func finish() throws {
        // A row re-inserted after a delete loses its hidden copy, unless a later delete
        // in the log made a new one: decided on the final liveness. Only those
        // re-inserts are left in the log by now, so this holds nothing in memory per write.
        let reinserts = try database.idle(
            database.cached("SELECT tbl, pk FROM \(Metadata.log) WHERE op = ? ORDER BY seq"))
        defer { reinserts.reset() }
        try reinserts.bind([.integer(Metadata.Operation.insert.rawValue)])
        while try reinserts.step() {
            guard let name = replica.tableNames[reinserts.int64(0)], let table = replica.syncedTables[name],
                !replica.isRefused(name)
            else { continue }
            let key = reinserts.column(1)
            if try replica.store(table).loadStamps(key)?.registers.liveness.isAlive ?? false {
                try replica.store(table).deleteHidden(key)
            }
        }
        let refused = replica.tables.filter { replica.isRefused($0.name) }
        // Cached: every fold runs them, and compiling them cost more than running them on an emptied log.
        try database.cached(
            "DELETE FROM \(Metadata.log) WHERE tbl NOT IN (\(refused.map { String($0.id) }.joined(separator: ", ")))"
        ).run()
        let live = replica.tables.filter { !replica.isRefused($0.name) }
        for table in live where !table.joinedColumns.isEmpty {
            try database.cached("DELETE FROM \(table.logValuesTable)").run()
        }
        for table in live where replica.captureFacts[table.name]?.comparesTypes.contains(true) ?? false {
            try database.cached("DELETE FROM \(table.zerosTable)").run()
        }
        // Keys kept for writes an app's trigger vetoed (see `CaptureTriggers+NumericKeys.swift`); no statement
        // is under way now.
        try database.cached("DELETE FROM \(Metadata.pendingKeys)").run()
        try credits.narrow(in: database)
        try replica.storeClock(clock, version: version, stamped: true)
        // The app wrote: a row parked for what other rows of its table held may show now. (Read before the
        // reprojection, which parks no row of these tables for such a reason but by trying to show it.)
        let retrying = anyParked ? try replica.rowsParkedByOthers(in: writtenTables) : []
        guard !joins.isEmpty || !folded.isEmpty || !retrying.isEmpty else { return }
        // Showing joined values, and showing or hiding related rows, is Concord's doing, not the app's:
        // the triggers must not capture it.
        try replica.withoutCapture {
            for ref in try joins.write() where seen.insert(ref).inserted { folded.append(ref) }
            guard !folded.isEmpty || !retrying.isEmpty else { return }
            let reprojection = Reprojection(replica: replica)
            reprojection.rows.rememberBeforeFold(registersBeforeFold.compactMapValues { $0 })
            try reprojection.reproject(folded, retrying: retrying)
            let last = try reprojection.renumberMoved(after: version)
            if last != version {
                version = last
                try replica.storeClock(clock, version: version, stamped: true)
            }
        }
    }
}
