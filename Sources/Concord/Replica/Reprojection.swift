/// A row of a synced table.
struct RowRef: Hashable, CustomStringConvertible {
    let table: String
    let key: SQLiteValue
    var description: String { "\(table)/\(ParkReason.describe(key))" }
}

/// Decides, from the registers alone, which rows the user tables show and
/// what they show, and brings the tables in line after registers change.
///
/// A row is *visible* when it is alive — or, deleted, has been brought back
/// by a child written after the delete through a `RESTRICT`/`NO ACTION` key —
/// and every parent it references through a hiding key (`CASCADE`,
/// `RESTRICT`, `NO ACTION`) is visible, through a finite chain: rows on a
/// cycle of such keys are never visible (the least fixpoint). A visible row
/// whose `SET NULL`/`SET DEFAULT` parent is not visible shows NULL or the
/// default there, while its hidden copy keeps the real value. An alive row
/// that is not shown — for a missing or hidden parent, or because showing it
/// would break a NOT NULL or CHECK constraint — is *parked*, with its reason
/// in `_concord_parked`.
///
/// Nothing depends on the order changes arrived in, so every replica with
/// the same registers shows the same rows.
final class Reprojection {
    enum Placement: Equatable {
        /// Shown, with these columns showing a stand-in for a parent that is not visible.
        case shown(overrides: [Int: SQLiteValue])
        /// Not shown: parked for a reason when the row is alive, `nil` when it is deleted or unknown.
        case hidden(ParkReason?)

        var isShown: Bool { if case .shown = self { true } else { false } }

        /// Where a row of a table without foreign keys belongs: shown exactly when alive.
        static func withoutRelations(_ registers: RowRegisters) -> Placement {
            registers.liveness.isAlive ? .shown(overrides: [:]) : .hidden(nil)
        }
    }

    unowned let replica: Replica
    private var rows: [RowRef: RegisterStore.StoredRow?] = [:]
    private var placements: [RowRef: Placement] = [:]

    private var parkedRowsExist: Bool?
    /// Rows whose registers were merged and not yet materialized.
    private var remembered: Set<RowRef> = []
    /// Rows being materialized again because their registers changed: an old constraint parking no longer holds.
    private var retrying: Set<RowRef> = []
    /// Rows merged in by the current apply (kept for the `cascadesInArrivalOrder` bug).
    private var arrived: Set<RowRef> = []

    init(replica: Replica) { self.replica = replica }

    /// Whether any row is parked; when none is, no row needs unparking.
    func mayHaveParkedRows() throws -> Bool {
        if let known = parkedRowsExist { return known }
        let known = try replica.parkedRowsExist()
        parkedRowsExist = known
        return known
    }

    /// Notes that a row was just parked.
    func noteParked() { parkedRowsExist = true }

    // MARK: Registers

    /// The stored row, loaded once.
    func stored(_ ref: RowRef) throws -> RegisterStore.StoredRow? {
        if let row = rows[ref] { return row }
        let row = try replica.syncedTables[ref.table].flatMap { try replica.store($0).load(ref.key) }
        rows[ref] = row
        return row
    }

    /// Records registers just merged (not yet materialized) for `ref`, stored under `version`;
    /// returns whether `ref` is new to this reprojection's dirty rows (not remembered before).
    @discardableResult
    func remember(_ ref: RowRef, _ registers: RowRegisters, version: Int64, previous: RegisterStore.StoredRow?) -> Bool {
        let isNew = remembered.insert(ref).inserted
        rows[ref] = RegisterStore.StoredRow(registers: registers, shown: previous?.shown ?? false,
                                            hasHiddenValues: previous?.hasHiddenValues ?? false, version: version)
        if replica.configuration.injectedBugs.contains(.cascadesInArrivalOrder) { arrived.insert(ref) }
        return isNew
    }

    // MARK: Visibility

    /// Where `ref` belongs, from its registers and its parents'.
    func placement(_ ref: RowRef) throws -> Placement {
        var visiting: Set<RowRef> = []
        return try placement(ref, &visiting)
    }

    private func placement(_ ref: RowRef, _ visiting: inout Set<RowRef>) throws -> Placement {
        if let known = placements[ref] { return known }
        guard let row = try stored(ref) else { return .hidden(nil) }
        guard try row.registers.liveness.isAlive || isRevived(ref, row) else {
            placements[ref] = .withoutRelations(row.registers)
            return .withoutRelations(row.registers)
        }
        visiting.insert(ref)
        defer { visiting.remove(ref) }
        var result = Placement.shown(overrides: [:])
        for key in replica.parents(of: ref.table) where key.action.hidesChild {
            guard let parent = parentRef(row, key) else { continue }
            if visiting.contains(parent) {
                result = .hidden(.onCycle(table: parent.table, key: parent.key))
                break
            }
            if case .hidden = try placement(parent, &visiting) {
                let missing = try stored(parent) == nil
                if arrived.contains(ref) && !missing { continue }
                result = .hidden(missing ? .missingParent(table: parent.table, key: parent.key)
                                         : .hiddenParent(table: parent.table, key: parent.key))
                break
            }
        }
        if case .shown = result {
            var overrides: [Int: SQLiteValue] = [:]
            for key in replica.parents(of: ref.table) where !key.action.hidesChild {
                guard let parent = parentRef(row, key) else { continue }
                var fresh: Set<RowRef> = []
                if case .hidden = try placement(parent, &fresh) {
                    overrides[key.column] = key.action == .setNull ? .null : key.defaultValue
                }
            }
            result = .shown(overrides: overrides)
            // A row whose values break a constraint of its table stays parked until its registers change.
            if !retrying.contains(ref), try mayHaveParkedRows(), let message = try replica.constraintParking(ref) {
                result = .hidden(.constraint(message))
            }
        }
        placements[ref] = result
        return result
    }

    private func parentRef(_ row: RegisterStore.StoredRow, _ key: ForeignKey) -> RowRef? {
        guard let value = row.registers.columns[key.column]?.value, !value.isNull else { return nil }
        return RowRef(table: key.parent, key: value)
    }

    /// A deleted row comes back while an alive child references it through a
    /// RESTRICT or NO ACTION key written after the delete.
    private func isRevived(_ ref: RowRef, _ row: RegisterStore.StoredRow) throws -> Bool {
        guard let deleted = row.registers.liveness.stamp else { return false }
        for key in replica.children(of: ref.table) where key.action.revivesParent {
            for child in try replica.childKeys(of: ref, through: key) {
                guard let register = try stored(RowRef(table: key.child, key: child))?.registers,
                      register.liveness.isAlive, let link = register.columns[key.column],
                      link.value == ref.key, link.stamp > deleted else { continue }
                return true
            }
        }
        return false
    }

    // MARK: Materializing

    /// Brings the user tables in line for `dirty` rows (whose registers changed)
    /// and for every row whose placement changes because of them.
    func reproject(_ dirty: [RowRef]) throws {
        var queue = dirty
        // A child that changed may have moved away from a parent it had brought back: look at those again.
        let revivable = Set(dirty.map(\.table)).sorted().flatMap { table in
            replica.parents(of: table).filter(\.action.revivesParent).map(\.parent)
        }
        var queued = Set(queue)
        for parent in Set(revivable).sorted() {
            for key in try replica.revivedKeys(in: parent) where queued.insert(RowRef(table: parent, key: key)).inserted {
                queue.append(RowRef(table: parent, key: key))
            }
        }
        // A changed row is written and propagates once; after that, only a change of placement propagates.
        var changed = Set(dirty)
        retrying = changed
        var index = 0
        while index < queue.count {
            let ref = queue[index]
            index += 1
            queued.remove(ref)
            guard let row = try stored(ref), let table = replica.syncedTables[ref.table] else { continue }
            let computed = try placement(ref)
            var placement = computed
            let wasShown = row.shown
            let isChanged = changed.remove(ref) != nil
            if isChanged || placement.isShown != wasShown || placement != .shown(overrides: [:]) {
                placement = try replica.store(table).materialize(ref.key, row.registers, placement, previous: row,
                                                                 mayBeParked: try mayHaveParkedRows())
                placements[ref] = placement
                if case .hidden(_?) = placement { noteParked() }
                rows[ref] = RegisterStore.StoredRow(
                    registers: row.registers, shown: placement.isShown,
                    hasHiddenValues: placement != .shown(overrides: [:]) && row.registers.columns.contains { $0 != nil },
                    version: row.version)
            }
            // Children depend only on whether this row shows; a revived parent depends on its children.
            var next: [RowRef] = []
            // (A changed row may have been shown by the app's own write, so it propagates too; so does a row
            // its table refused to show, whose children looked it up as shown.)
            if isChanged || placement.isShown != wasShown || placement != computed {
                for key in replica.children(of: ref.table) {
                    next += try replica.childKeys(of: ref, through: key).map { RowRef(table: key.child, key: $0) }
                }
            }
            for key in replica.parents(of: ref.table) where key.action.revivesParent && isChanged {
                if let parent = parentRef(row, key) { next.append(parent) }
            }
            for ref in next {
                // A revived parent changes the placement of rows already decided, even of one
                // still waiting in the queue, whose placement a sibling may have looked up since.
                placements[ref] = nil
                if queued.insert(ref).inserted { queue.append(ref) }
            }
        }
    }
}
