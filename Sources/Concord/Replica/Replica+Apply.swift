@_spi(Testing) import ConcordCore

/// What applying a changeset did.
public struct ApplyReport: Hashable, Sendable, CustomStringConvertible {
    /// Rows whose registers changed.
    public var applied: Int
    /// Rows that held nothing new (already seen, or superseded here).
    public var ignored: Int

    public init(applied: Int = 0, ignored: Int = 0) {
        self.applied = applied
        self.ignored = ignored
    }

    public var description: String { "applied \(applied), ignored \(ignored)" }
}

extension Replica {
    /// Merges a changeset into this replica, atomically and idempotently.
    ///
    /// Everything is checked before anything is written: the tables must be
    /// synced here under the same declaration, keys must be TEXT or BLOB, and
    /// no stamp may be more than `maxDrift` ahead of this replica's clock. Then
    /// one transaction merges every row; if no register changed, nothing is
    /// written at all, so applying a changeset twice, or one's own changes,
    /// leaves the file as it was.
    @discardableResult
    public func apply(_ changeset: Changeset) throws -> ApplyReport {
        try apply(source: changeset.source, since: changeset.since, upTo: changeset.upTo, tables: changeset.tables,
                  batchSize: max(changeset.rows.count, 1)) { changeset.rows.makeIterator() }
    }

    /// Applies a stream of rows; `rows` is called twice, once to validate and once to apply.
    public func apply<Rows: ChangeIterator>(
        source: NodeID, since: Int64, upTo: Int64, tables: [TableSchema], rows: () throws -> Rows
    ) throws -> ApplyReport {
        try apply(source: source, since: since, upTo: upTo, tables: tables, batchSize: Self.applyBatch, rows: rows)
    }

    /// How many rows of a streamed changeset are held and put in key order at a time.
    static let applyBatch = 16_384

    /// Merges rows `batchSize` at a time, each batch in ``writeOrder(_:_:)``.
    ///
    /// Rows are merged one by one, but not in the order they arrive: a batch
    /// of rows of a table without foreign keys is written in key order, so the
    /// user table's key index (and the file's pages) grow at one end instead
    /// of at random places, which on a UUID key more than halves the cost of
    /// writing them. Merges commute, and a key met twice keeps its arrival
    /// order, so the registers, the rows shown and the report are the same.
    func apply<Rows: ChangeIterator>(
        source: NodeID, since: Int64, upTo: Int64, tables: [TableSchema], batchSize: Int, rows: () throws -> Rows
    ) throws -> ApplyReport {
        try checkSchemas()
        let plans = try tables.map { try plan(for: $0) }
        let plansByName = Dictionary(uniqueKeysWithValues: plans.map { (SQLiteName.Key($0.remote.name), $0) })
        let physical = configuration.clock.unixMilliseconds()
        var validator = RowValidator(clock: try self.clock, physical: physical, node: nodeID)
        var validation = try rows()
        while let row = try validation.next() { try validator.check(row, plansByName) }
        // A peer holding a stamp of this node newer than any it remembers: this file was rolled back.
        try adoptNewNodeIDIfRolledBack(newestOwnStamp: validator.newestOwn)
        let newest = validator.newest

        var report = ApplyReport()
        do {
            try withForeignKeysDeferred {
                let folded = try foldLocalWrites()
                let suspends = configuration.interceptor?.suspendsCapture ?? true
                if suspends { try suspendCapture() }
                var applying = try rows()
                var version = versionFloor(after: try self.version)
                // The rows are read again: check them again, so what is merged is what was checked.
                var recheck = RowValidator(clock: try self.clock, physical: physical, node: nodeID)
                let reprojection = Reprojection(replica: self)
                var dirty: [RowRef] = []
                for plan in plans where try store(plan.local).isEmpty() { plan.newKeys = [] }
                var batch: [RowChange] = []
                var exhausted = false
                while !exhausted {
                    batch.removeAll(keepingCapacity: true)
                    while batch.count < batchSize {
                        guard let row = try applying.next() else { exhausted = true; break }
                        try recheck.check(row, plansByName)
                        batch.append(row)
                    }
                    for index in writeOrder(batch, plansByName) {
                        let row = batch[index]
                        let plan = plansByName[SQLiteName.Key(row.table)]!
                        let store = store(plan.local)
                        var remote = try store.conform(plan.localRegisters(row.registers))
                        let ref = RowRef(table: plan.local.name, key: row.key)
                        // A related row merged earlier in this changeset is materialized only at the end:
                        // what it holds now is what the reprojection remembers, not what the tables show yet.
                        let stored = plan.isNew(row.key) ? nil
                            : plan.isRelated ? try reprojection.rows.stored(ref) : try store.load(row.key)
                        if let interceptor = configuration.interceptor {
                            guard let intercepted = try interceptor.incoming(
                                remote, stored: stored?.registers, row: row, source: source, parents: parents(of: plan.local.name),
                                isKnown: { try reprojection.rows.stored($0) != nil })
                            else { report.ignored += 1; continue }
                            remote = intercepted
                        }
                        var outcome = RowMerge.merge(local: stored?.registers, remote: remote, rules: plan.rules)
                        // A merge may make values (a custom join's) the table stores otherwise.
                        if outcome.changed {
                            outcome.merged = try store.conform(outcome.merged)
                            outcome.changed = outcome.merged != stored?.registers
                        }
                        guard outcome.changed else { report.ignored += 1; continue }
                        report.applied += 1
                        version += 1
                        try store.writeMetadata(row.key, outcome.merged, version: version, previous: stored?.version)
                        try store.writeCounters(row.key, outcome.merged, previous: stored)
                        guard plan.isRelated else {
                            _ = try store.materialize(row.key, outcome.merged, .withoutRelations(outcome.merged),
                                                      previous: stored, mayBeParked: try reprojection.rows.mayHaveParkedRows())
                            continue
                        }
                        if reprojection.remember(ref, outcome.merged, version: version, previous: stored) { dirty.append(ref) }
                    }
                }
                try reprojection.reproject(dirty)
                guard recheck.newest == newest, recheck.rows == validator.rows, applying.checksum == validation.checksum else {
                    throw ReplicaError.changesetChanged
                }
                let peerMoved = try recordPeer(source, since: since, upTo: upTo)
                guard report.applied > 0 || peerMoved || folded > 0 else { throw NothingToApply() }
                if report.applied > 0, let newest {
                    var clock = try self.clock
                    try clock.receive(newest.hlc, from: newest.node, physical: physical)
                    try storeClock(clock, version: version)
                }
                if suspends { try resumeCapture() }
            }
        } catch is NothingToApply {
            forgetNodeCache()
        } catch {
            forgetNodeCache()
            throw error
        }
        return report
    }

    /// The order in which a batch's rows are merged: rows of tables with
    /// foreign keys first, as they came (their reprojection follows arrival
    /// order too); then each other table's rows by key, in SQLite's order
    /// (text before blobs, bytewise), and a key met twice in arrival order.
    private func writeOrder(_ batch: [RowChange], _ plans: [SQLiteName.Key: TablePlan]) -> [Int] {
        // Sorted as compact items, a rank (0: foreign keys; then per other table by name, text keys before
        // blobs) and the key's first eight bytes; whole keys are compared only when those tie.
        let unrelated = plans.values.filter { !$0.isRelated }.map(\.remote.name).sorted {
            $0.utf8.lexicographicallyPrecedes($1.utf8)
        }
        let ranks = Dictionary(uniqueKeysWithValues: unrelated.enumerated().map { (SQLiteName.Key($1), 2 * $0 + 1) })
        var items: [(rank: Int, prefix: UInt64, index: Int)] = []
        items.reserveCapacity(batch.count)
        for (index, row) in batch.enumerated() {
            guard let rank = ranks[SQLiteName.Key(row.table)] else {
                items.append((0, 0, index))
                continue
            }
            switch row.key {
            case .blob(let bytes): items.append((rank + 1, KeyOrder.prefix(bytes), index))
            case .text(let text): items.append((rank, KeyOrder.prefix(text.bytes), index))
            default: items.append((rank, 0, index))
            }
        }
        items.sort { a, b in
            if a.rank != b.rank { return a.rank < b.rank }
            if a.prefix != b.prefix { return a.prefix < b.prefix }
            guard a.rank != 0 else { return a.index < b.index }
            let keys = KeyOrder.compare(batch[a.index].key, batch[b.index].key)
            return keys != 0 ? keys < 0 : a.index < b.index
        }
        return items.map(\.index)
    }

    /// Runs `body` in a transaction in which the user tables may pass through
    /// states their foreign keys forbid, as long as the end state is whole.
    ///
    /// Concord decides itself what each table shows; SQLite's own actions
    /// (a cascade fired by hiding a parent) must not second-guess it. Every
    /// public entry point that folds or merges opens its transaction here, as
    /// SQLite can switch foreign keys off only outside one; called inside a
    /// transaction the app opened with foreign keys on, hiding a parent that
    /// has a RESTRICT child shown may still be refused.
    func withForeignKeysDeferred<T>(_ body: () throws -> T) throws -> T {
        guard !database.inTransaction else { return try database.transaction(body) }
        let enforced = try database.scalar("PRAGMA foreign_keys") == .integer(1)
        if enforced { try database.execute("PRAGMA foreign_keys = OFF") }
        defer { if enforced { try? database.execute("PRAGMA foreign_keys = ON") } }
        return try database.transaction(body)
    }

    /// How far this replica has read each peer's changes.
    public func peerVersion(_ node: NodeID) throws -> Int64 {
        try database.scalar("SELECT version FROM \(Metadata.peers) WHERE node = ?", [.blob(node.bytes)])?
            .integerValue ?? 0
    }

    /// Advances the recorded version of `source` when the changeset continues from it.
    private func recordPeer(_ source: NodeID, since: Int64, upTo: Int64) throws -> Bool {
        guard source != nodeID else { return false }
        let known = try peerVersion(source)
        guard since <= known, upTo > known else { return false }
        try database.execute("INSERT OR REPLACE INTO \(Metadata.peers) (node, version) VALUES (?, ?)",
                             [.blob(source.bytes), .integer(upTo)])
        return true
    }

    /// Checks a changeset's table declaration against this replica's.
    private func plan(for remote: TableSchema) throws -> TablePlan {
        guard let local = syncedTable(named: remote.name) else { throw ReplicaError.tableNotSynced(table: remote.name) }
        guard remote.key == local.key else {
            throw ReplicaError.schemaMismatch(table: local.name,
                                              detail: "its key is '\(remote.key)', here it is '\(local.key)'")
        }
        guard remote.policy == local.policy else {
            throw ReplicaError.policyMismatch(table: local.name, local: "\(local.policy.rawValue) policy",
                                              remote: "\(remote.policy.rawValue) policy")
        }
        try requireMergeFunctions(local)
        var positions: [Int?] = Array(repeating: nil, count: local.columns.count)
        for (remoteIndex, name) in remote.columns.enumerated() {
            guard let localIndex = local.columns.firstIndex(where: { SQLiteName.same($0, name) }) else {
                throw ReplicaError.schemaMismatch(
                    table: local.name, detail: "it has a column '\(name)' this replica does not sync: the sender's "
                        + "schema is newer, and this version of Concord syncs a table only between replicas whose "
                        + "columns match; keep one schema on every device until Concord syncs schema changes")
            }
            let (mine, theirs) = (local.merges[localIndex], remote.merges[remoteIndex])
            guard mine == theirs else {
                throw ReplicaError.policyMismatch(table: local.name, local: "\(name)=\(mine)", remote: "\(name)=\(theirs)")
            }
            positions[localIndex] = remoteIndex
        }
        return TablePlan(remote: remote, local: local, positions: positions,
                         rules: RowMerge.Rules(policy: local.policy, merges: local.merges, functions: configuration.merges),
                         isRelated: hasRelations(local.name))
    }
}

/// The checks every row of a changeset passes before anything is merged, and what they learn.
private struct RowValidator {
    let clock: HybridLogicalClock
    let physical: Int64
    let node: NodeID
    /// The newest stamp seen, and the newest of this replica's own node.
    private(set) var newest: Stamp?
    private(set) var newestOwn: HLCTimestamp?
    private(set) var rows = 0

    init(clock: HybridLogicalClock, physical: Int64, node: NodeID) {
        self.clock = clock
        self.physical = physical
        self.node = node
    }

    /// Refuses a row of a table the changeset does not declare, a key that is not TEXT or BLOB,
    /// and a stamp (liveness, column or counter contribution) too far ahead of this replica's clock.
    mutating func check(_ row: RowChange, _ plans: [SQLiteName.Key: TablePlan]) throws {
        guard let plan = plans[SQLiteName.Key(row.table)] else { throw ReplicaError.tableNotSynced(table: row.table) }
        guard Replica.isSyncableKey(row.key) else {
            throw ReplicaError.invalidKey(table: plan.local.name, key: row.key.description)
        }
        rows += 1
        try check(row.registers.liveness.stamp)
        for column in row.registers.columns {
            try check(column?.stamp)
            for contribution in column?.contributions ?? [] { try check(contribution.stamp) }
        }
    }

    private mutating func check(_ stamp: Stamp?) throws {
        guard let stamp else { return }
        try clock.check(stamp.hlc, from: stamp.node, physical: physical)
        if newest.map({ stamp > $0 }) ?? true { newest = stamp }
        if stamp.node == node && newestOwn.map({ stamp.hlc > $0 }) ?? true { newestOwn = stamp.hlc }
    }
}

/// A stream of row changes, as a decoder or an array yields them.
public protocol ChangeIterator {
    mutating func next() throws -> RowChange?
    /// A digest of every byte the rows came from, once they are all read (`nil` for rows held in memory).
    var checksum: UInt32? { get }
}

extension ChangeIterator {
    public var checksum: UInt32? { nil }
}

extension IndexingIterator: ChangeIterator where Elements == [RowChange] {}

/// How one changeset table maps onto the local table.
private final class TablePlan {
    let remote: TableSchema
    let local: SyncedTable
    /// For each local column, its position in the changeset's column list.
    let positions: [Int?]
    let rules: RowMerge.Rules
    /// The table takes part in a foreign key, so its rows are reprojected.
    let isRelated: Bool
    /// The changeset lists the same columns in the same order.
    let isIdentity: Bool
    /// For a table that held no registers when the merge began, the hashes of
    /// the keys merged since; `nil` otherwise (or once it grew past ``newKeysLimit``).
    var newKeys: Set<Int64>?

    /// How many key hashes a merge keeps per table (8 bytes each, some 16 MB with the set's spare room).
    static let newKeysLimit = 1 << 20

    init(remote: TableSchema, local: SyncedTable, positions: [Int?], rules: RowMerge.Rules, isRelated: Bool) {
        self.remote = remote
        self.local = local
        self.positions = positions
        self.rules = rules
        self.isRelated = isRelated
        isIdentity = positions.count == remote.columns.count && positions.indices.allSatisfy { positions[$0] == $0 }
    }

    func localRegisters(_ remote: RowRegisters) -> RowRegisters {
        if isIdentity { return remote }
        return RowRegisters(liveness: remote.liveness, columns: positions.map { $0.flatMap { remote.columns[$0] } })
    }

    /// Whether `key` certainly has no registers here: its table had none and
    /// no key with its hash was merged since. A hash met again is looked up.
    func isNew(_ key: SQLiteValue) -> Bool {
        guard newKeys != nil else { return false }
        if newKeys!.count >= Self.newKeysLimit {
            newKeys = nil
            return false
        }
        return newKeys!.insert(KeyHash.of(key)).inserted
    }
}

/// Keys in the order a key column's index keeps them: text before blobs, each bytewise.
enum KeyOrder {
    /// Negative, zero or positive as `a` sorts before, with or after `b`; only text and blob keys are told apart.
    static func compare(_ a: SQLiteValue, _ b: SQLiteValue) -> Int {
        switch (a, b) {
        case (.text(let x), .text(let y)): return compare(x.bytes, y.bytes)
        case (.blob(let x), .blob(let y)): return compare(x, y)
        case (.text, .blob): return -1
        case (.blob, .text): return 1
        default: return 0
        }
    }

    /// The first eight bytes, big-endian, zero-padded: a key whose prefix is smaller sorts first.
    static func prefix<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var value: UInt64 = 0
        var count = 0
        for byte in bytes.prefix(8) {
            value = value << 8 | UInt64(byte)
            count += 1
        }
        return count == 0 ? 0 : value << (8 * (8 - count))
    }

    private static func compare<A: Collection<UInt8>, B: Collection<UInt8>>(_ a: A, _ b: B) -> Int {
        if a.elementsEqual(b) { return 0 }
        return a.lexicographicallyPrecedes(b) ? -1 : 1
    }
}

/// Signals that an apply changed nothing, so its transaction is rolled back.
private struct NothingToApply: Error {}
