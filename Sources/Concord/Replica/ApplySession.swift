@_spi(Testing) import ConcordCore

/// One apply of a changeset: ``validate(_:)`` every row first, then ``merge(_:)`` them in one transaction.
///
/// Validation reads the rows once, outside any transaction, and refuses the
/// changeset before anything is written. Merging reads them again, checks
/// them again and requires the two readings to agree (so what is merged is
/// what was checked), merges each row with the pure ``RowMerge``, writes the
/// result, shows it through the ``Reprojection``, and records how far the
/// peer has been read. It says whether anything changed, so its caller
/// commits or rolls back.
final class ApplySession {
    let replica: Replica
    let source: NodeID
    let since: Int64
    let upTo: Int64
    let batchSize: Int
    private let plans: TablePlans
    /// The changeset's tables this replica does not sync: their rows are kept for relaying (see ``RelayStore``).
    private let relayPlans: [RelayPlan]
    private let relayed: TablePlans.Names
    private let relay: RelayStore
    /// What peers declared of tables and columns this replica lacks, as this changeset adds to it: stored by the merge.
    private let declarations: [TableSchema]
    /// The changeset's tables this replica refuses for now (a destructive schema change): their rows are held back.
    private let held: TablePlans.Names
    private let physical: Int64
    private var validated: RowValidator
    private var checksum: UInt32?
    private(set) var report = ApplyReport()
    /// Where values that lose to this replica's unseeing writes are kept, and how many this apply added.
    private let conflictLog: ConflictLog
    private var conflictsRecorded = 0
    /// The clock's reading at this replica's last export: its own writes stamped later never left it.
    private let exported: HLCTimestamp
    /// Rows the changeset names more than once (by table and key hash), found when the first loss is about to
    /// be recorded. No export repeats a row; in a changeset that does, which of its values lost would depend
    /// on the order of its rows (a value beaten by a later copy of its row here, by the stored one when applied
    /// again), so no conflict is listed for them, and applying it twice lists nothing the first time did not.
    private var repeatedRows: Set<Int64>?
    /// Reads the changeset again for ``repeatedRows`` (through a source of its own: the merge is reading the
    /// changeset at the time): set by the caller for the merge, which may need it.
    var findRepeatedRows: (() throws -> Set<Int64>)?
    /// Whether the source's read position moves (``Replica/apply(_:from:)``: not when the transport said
    /// another device sent the changeset).
    var movesReadPosition = true

    /// With `keptHere`, the rows are ones this replica accepted earlier and kept (``Replica/takeUpRelayedRows(of:)``):
    /// their stamps passed the drift check when they came, and the clock has read them since, so a clock set
    /// back meanwhile judges them by the reading it has passed, not by its slower physical time.
    init(
        replica: Replica, source: NodeID, since: Int64, upTo: Int64, tables: [TableSchema], batchSize: Int,
        keptHere: Bool = false
    ) throws {
        self.replica = replica
        self.source = source
        self.since = since
        self.upTo = upTo
        self.batchSize = batchSize
        let refused = tables.filter { replica.syncedTable(named: $0.name).map { replica.isRefused($0.name) } ?? false }
        let held = TablePlans.Names(refused.map(\.name))
        self.held = held
        relay = RelayStore(database: replica.database)
        var plans: [TablePlan] = []
        var relayPlans: [RelayPlan] = []
        var declarations: [TableSchema] = []
        for table in tables where !held.contains(table.name) {
            let stored = try relay.declaration(of: table.name)
            guard let local = replica.syncedTable(named: table.name) else {
                let plan = try RelayPlan(remote: table, stored: stored, functions: replica.configuration.merges)
                if plan.declared != stored { declarations.append(plan.declared) }
                relayPlans.append(plan)
                continue
            }
            var declared = stored
            if table.columns(lackedBy: local.columns) != nil {
                declared = try RelayStore.union(stored, table)
                if declared != stored { declarations.append(declared!) }
            }
            plans.append(try TablePlan(table, replica: replica, declared: declared))
        }
        self.plans = TablePlans(plans)
        self.relayPlans = relayPlans
        self.declarations = declarations
        relayed = TablePlans.Names(relayPlans.map(\.remote.name))
        physical =
            keptHere
            ? max(try replica.physicalTime(), Int64(clamping: try replica.clock.last.milliseconds))
            : try replica.physicalTime()
        conflictLog = ConflictLog(database: replica.database, nodes: replica.nodes)
        exported = HLCTimestamp(
            sqliteValue: try replica.database.scalar("SELECT exported FROM \(Metadata.state)")?.integerValue ?? 0)
        validated = RowValidator(clock: try replica.clock, physical: physical, node: replica.nodeID)
    }

    /// Reads and checks every row; remembers what the second reading must agree with.
    /// Checks every row; with `findingRepeatedRows`, also notes the rows the changeset repeats (for a caller
    /// that cannot read it again during the merge).
    func validate<Rows: ChangeIterator>(_ rows: Rows, findingRepeatedRows: Bool = false) throws {
        var identities = RowIdentities()
        var rows = rows
        while let row = try rows.next() {
            if held.contains(row.table) {
                report.heldBack += 1
                continue
            }
            try validated.check(row, plans, relayed: relayed)
            if findingRepeatedRows { identities.add(row) }
        }
        checksum = rows.checksum
        if findingRepeatedRows { repeatedRows = identities.repeated() }
    }

    /// The rows `rows` names more than once, as table-and-key hashes (see ``repeatedRows``): 8 bytes a row
    /// while it reads, then the repeated ones.
    static func repeatedRows<Rows: ChangeIterator>(in rows: Rows) throws -> Set<Int64> {
        var rows = rows
        var identities = RowIdentities()
        while let row = try rows.next() { identities.add(row) }
        return identities.repeated()
    }

    /// Rows' table-and-key hashes as they are read, 8 bytes a row, to find the repeated ones.
    private struct RowIdentities {
        private var hashes: [Int64] = []
        private var table = (name: "", hash: Int64(0))

        mutating func add(_ row: RowChange) {
            // Rows come table by table: the name's hash is worked out once per run of them.
            if row.table != table.name { table = (row.table, ApplySession.tableHash(row.table)) }
            hashes.append(KeyHash.of(row.key) &+ table.hash)
        }

        func repeated() -> Set<Int64> {
            let sorted = hashes.sorted()
            var repeated: Set<Int64> = []
            for index in sorted.indices.dropFirst() where sorted[index] == sorted[index - 1] {
                repeated.insert(sorted[index])
            }
            return repeated
        }
    }

    /// A row's table and key as one hash (two rows with the same one are taken for the same row).
    private static func identity(_ row: RowChange) -> Int64 {
        KeyHash.of(row.key) &+ tableHash(row.table)
    }

    /// What a table's name adds to the hash of each of its rows' keys.
    fileprivate static func tableHash(_ name: String) -> Int64 {
        var hash = FNV1a()
        hash.add(name)
        return Int64(bitPattern: hash.value &* 0x9E37_79B9_7F4A_7C15)
    }

    /// The newest stamp of this replica's own node the changeset holds (a sign it was rolled back).
    var newestOwnStamp: HLCTimestamp? { validated.newestOwn }

    /// Whether a merged row held a write of this replica's own that its registers had lost (see
    /// ``RowMerge/holdsLostWrite(of:local:remote:remoteSeen:rules:)``): this file was rolled back.
    private(set) var heldLostWrite = false

    /// Merges every row, inside the caller's transaction; returns whether anything changed.
    func merge<Rows: ChangeIterator>(_ rows: Rows) throws -> Bool {
        let folded = try replica.foldLocalWrites()
        let silences = replica.configuration.interceptor?.suspendsCapture ?? true
        let changed = try silences ? replica.withoutCapture { try mergeRows(rows) } : mergeRows(rows)
        return changed || folded > 0
    }

    /// ``merge(_:)`` once the log is folded: merges the rows, then shows and records what changed.
    private func mergeRows<Rows: ChangeIterator>(_ rows: Rows) throws -> Bool {
        var rows = rows
        let floor = try replica.versionFloor(after: try replica.version)
        // Rows parked before this apply for what other rows of their table held: tried again if it writes
        // their table.
        let parked = try replica.parkedRowsExist() ? replica.rowsParkedByOthers(in: Set(replica.syncedTables.keys)) : []
        var run = MergeRun(
            version: floor,
            recheck: RowValidator(clock: try replica.clock, physical: physical, node: replica.nodeID),
            reprojection: Reprojection(replica: replica, recording: true))
        run.watchesWrites = !parked.isEmpty
        for plan in plans.all where try plan.store.isEmpty() { plan.newKeys = [] }
        for declaration in declarations { try relay.declare(declaration) }
        var batch: [RowChange] = []
        repeat {
            batch.removeAll(keepingCapacity: true)
            while batch.count < batchSize, let row = try rows.next() {
                if held.contains(row.table) { continue }
                try run.recheck.check(row, plans, relayed: relayed)
                if relayed.contains(row.table) {
                    try mergeRelayed(row, into: &run)
                    continue
                }
                batch.append(row)
            }
            for index in ApplyOrder.writeOrder(batch, plans) { try merge(batch[index], into: &run) }
        } while batch.count == batchSize
        if replica.configuration.interceptor?.commitsRegistersBeforeRows ?? false {
            try replica.database.commitAndBeginAgain()
        }
        // Rows merged (each took a version) may have lifted what keeps a parked row from showing.
        try run.reprojection.reproject(run.dirty, retrying: parked.filter { run.written.contains($0.table) })
        run.version = try run.reprojection.renumberMoved(after: run.version)
        report.changes = MergeReport(run.reprojection.recorder ?? MergeRecorder())
        guard run.recheck.newest == validated.newest, run.recheck.rows == validated.rows, rows.checksum == checksum
        else {
            throw ReplicaError.changesetChanged
        }
        if conflictsRecorded > 0 { try conflictLog.prune(replica.configuration.conflictRetention, now: physical) }
        // A peer held a write of this node's that its registers lost: peers read it again under a new id. Taken
        // in this transaction, before the read position below, so that applying the same changes again finds
        // the same node (its former id a peer like any other) and changes nothing.
        if heldLostWrite { try replica.adoptNewNodeID() }
        // Rows held back must come again: the peer's read position moves only when none was.
        let peerMoved =
            report.heldBack == 0 && movesReadPosition
            ? try replica.recordPeer(source, since: since, upTo: upTo, at: physical) : false
        if report.applied > 0 {
            // The clock reads what it has not read yet; the version moves whatever the stamps.
            var clock = try replica.clock
            if let newest = validated.newestUnread {
                try clock.receive(newest.hlc, from: newest.node, physical: physical)
            }
            try replica.storeClock(clock, version: run.version)
        }
        return report.applied > 0 || peerMoved || !declarations.isEmpty || conflictsRecorded > 0 || heldLostWrite
    }

    /// What merging the rows of one apply carries from row to row.
    private struct MergeRun {
        var version: Int64
        var recheck: RowValidator
        let reprojection: Reprojection
        /// Whether a row is parked for what other rows held, so that ``written`` is kept (no hashing per
        /// merged row otherwise).
        var watchesWrites = false
        /// The tables whose rows were merged (a parked row of one may show now).
        var written: Set<String> = []
        /// Rows of related tables merged, to reproject at the end.
        var dirty: [RowRef] = []
    }

    /// Merges one row and writes the result (a related row is shown at the end, by the reprojection).
    private func merge(_ row: RowChange, into run: inout MergeRun) throws {
        let plan = plans[row.table]!
        let store = plan.store
        let ref = RowRef(table: plan.local.name, key: row.key)
        // A related row merged earlier in this changeset is materialized only at the end:
        // what it holds now is what the reprojection remembers, not what the tables show yet.
        let stored =
            plan.isNew(row.key)
            ? nil
            : plan.isRelated ? try run.reprojection.rows.stored(ref) : try store.load(row.key)
        guard let remote = try incoming(row, plan: plan, stored: stored, run: run) else { return report.ignored += 1 }
        let remoteSeen = plan.localSeen(row.seen)
        if !heldLostWrite {
            heldLostWrite = RowMerge.holdsLostWrite(
                of: replica.nodeID, local: stored?.registers, remote: remote, remoteSeen: remoteSeen, rules: plan.rules)
        }
        if let extras = plan.extras {
            return try merge(row, remote, extras, plan: plan, stored: stored, into: &run)
        }
        let outcome = RowMerge.merge(local: stored?.registers, remote: remote, rules: plan.rules)
        // A value may lose to a register held here without changing anything here.
        if let stored { try recordLosses(row, stored, remote, remoteSeen, outcome.merged, plan: plan) }
        guard outcome.changed else { return report.ignored += 1 }
        report.applied += 1
        run.version += 1
        // Most rows' writes saw nothing of another device, here or there: then neither does the merge.
        let seen =
            ConflictRule.sawNothing(seen: stored?.seen, remoteSeen: remoteSeen)
            ? nil
            : ConflictRule.mergedSeen(
                local: stored?.registers, seen: stored?.seen, remote: remote, remoteSeen: remoteSeen,
                merged: outcome.merged, rules: plan.rules)
        try write(row.key, outcome.merged, seen: seen, plan: plan, stored: stored, into: &run)
    }

    /// Merges a row of a table that has extra columns: its own and its extra registers as one row (under the
    /// row policy the newest write supplies both), the extra ones kept in the relay store.
    private func merge(
        _ row: RowChange, _ remote: RowRegisters, _ extras: TableSchema, plan: TablePlan,
        stored: RegisterStore.StoredRow?, into run: inout MergeRun
    ) throws {
        let keptExtras = try relay.load(extras.name, key: row.key, columns: extras.columns)?.columns
        let own = plan.local.columns.count
        var local = stored.map {
            RowRegisters(
                liveness: $0.registers.liveness,
                columns: $0.registers.columns + (keptExtras ?? Array(repeating: nil, count: extras.columns.count)))
        }
        if local != nil { RowMerge.settle(&local!, plan.unionRules) }
        let union = RowRegisters(
            liveness: remote.liveness, columns: remote.columns + plan.extraRegisters(row.registers))
        let outcome = RowMerge.merge(local: local, remote: union, rules: plan.unionRules)
        let merged = RowRegisters(liveness: outcome.merged.liveness, columns: Array(outcome.merged.columns[..<own]))
        let mergedExtras = RowRegisters(liveness: .unknown, columns: Array(outcome.merged.columns[own...]))
        let remoteSeen = plan.localSeen(row.seen)
        if let stored {
            try recordLosses(row, stored, remote, remoteSeen, merged, plan: plan)
        }
        let ownChanged = merged != stored?.registers
        let extrasChanged = local.map { mergedExtras.columns != Array($0.columns[own...]) } ?? true
        guard ownChanged || extrasChanged else { return report.ignored += 1 }
        report.applied += 1
        run.version += 1
        if extrasChanged { try relay.write(extras, key: row.key, mergedExtras, version: run.version) }
        if ownChanged {
            let seen = ConflictRule.mergedSeen(
                local: stored?.registers, seen: stored?.seen, remote: remote, remoteSeen: remoteSeen, merged: merged,
                rules: plan.rules)
            try write(row.key, merged, seen: seen, plan: plan, stored: stored, into: &run)
        } else {
            // Only the extra registers changed: the row moves to the new version all the same, so it is exported.
            try plan.store.writeMetadata(row.key, merged, version: run.version, previous: stored?.version)
            if plan.isRelated {
                // What the reprojection remembers must carry the new version too.
                try run.reprojection.remember(
                    RowRef(table: plan.local.name, key: row.key), merged, version: run.version, previous: stored)
            }
        }
    }

    /// Asks the core which values lost to writes that had not seen them, and keeps those in the conflict log.
    private func recordLosses(
        _ row: RowChange, _ stored: RegisterStore.StoredRow, _ remote: RowRegisters, _ remoteSeen: [Stamp?]?,
        _ merged: RowRegisters, plan: TablePlan
    ) throws {
        let key = row.key
        let losses = ConflictRule.losses(
            local: stored.registers, seen: stored.seen ?? [], remote: remote, remoteSeen: remoteSeen, merged: merged,
            rules: plan.rules, node: replica.nodeID, exported: exported)
        guard !losses.isEmpty else { return }
        if repeatedRows == nil { repeatedRows = try findRepeatedRows?() ?? [] }
        guard !repeatedRows!.contains(Self.identity(row)) else { return }
        conflictsRecorded += try conflictLog.record(table: plan.local.id, key: key, losses, at: physical)
    }

    /// Merges a row of a table this replica does not sync into the rows it keeps for relaying.
    private func mergeRelayed(_ row: RowChange, into run: inout MergeRun) throws {
        let plan = relayPlans.first { SQLiteName.Key($0.remote.name) == SQLiteName.Key(row.table) }!
        let declared = plan.declared
        var local = try relay.load(declared.name, key: row.key, columns: declared.columns)
        if local != nil { RowMerge.settle(&local!, plan.rules) }
        let outcome = RowMerge.merge(local: local, remote: plan.declaredRegisters(row.registers), rules: plan.rules)
        guard outcome.changed else { return report.ignored += 1 }
        report.applied += 1
        run.version += 1
        try relay.write(declared, key: row.key, outcome.merged, version: run.version)
    }

    /// Writes a row's merged registers under the run's version and shows them (a related row at the end).
    private func write(
        _ key: SQLiteValue, _ merged: RowRegisters, seen: [Stamp?]?, plan: TablePlan, stored: RegisterStore.StoredRow?,
        into run: inout MergeRun
    ) throws {
        let store = plan.store
        if run.watchesWrites { run.written.insert(plan.local.name) }
        try store.writeMetadata(
            key, merged, version: run.version, previous: stored?.version, seen: seen,
            clearingSeen: seen == nil && stored?.seen != nil)
        try store.writeCounters(key, merged, previous: stored)
        if plan.isRelated {
            let ref = RowRef(table: plan.local.name, key: key)
            if try run.reprojection.remember(ref, merged, version: run.version, previous: stored) {
                run.dirty.append(ref)
            }
        } else {
            // `stored`, when there is one, was read with the user table; a row the registers never knew is in
            // no table once the log is folded. A row not shown is inserted without reading the table again
            // (a key conflict, should the table hold it after all, falls back to reading it).
            let placement = try store.materialize(
                key, merged, .withoutRelations(merged), previous: stored,
                mayBeParked: try run.reprojection.rows.mayHaveParkedRows(), absent: !(stored?.shown ?? false))
            run.reprojection.note(
                RowRef(table: plan.local.name, key: key), before: stored?.registers, wasShown: stored?.shown ?? false,
                now: merged, placement)
        }
    }

    /// The registers `row` is merged as: in this table's columns, with its values as written, and as an
    /// interceptor (in the simulator's tests) would have them; `nil` when an interceptor drops the row.
    private func incoming(
        _ row: RowChange, plan: TablePlan, stored: RegisterStore.StoredRow?,
        run: MergeRun
    ) throws -> RowRegisters? {
        let remote = plan.localRegisters(row.registers)
        guard let interceptor = replica.configuration.interceptor else { return remote }
        return try interceptor.incoming(
            remote, stored: stored?.registers, row: row, source: source,
            parents: replica.parents(of: plan.local.name),
            isKnown: { try run.reprojection.rows.stored($0) != nil })
    }
}
