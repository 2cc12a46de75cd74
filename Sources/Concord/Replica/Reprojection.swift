@_spi(Testing) import ConcordCore

/// Brings the user tables in line with the registers after they change: the SQLite shell around ``Visibility``.
///
/// Visibility decides, from the registers alone, where each row belongs;
/// this writes the answer — shows, hides or parks rows — for the rows whose
/// registers changed and for every row whose placement changes because of
/// them (a child of a parent that is no longer visible, a parent a child
/// brought back).
final class Reprojection {
    /// Held for the one apply, fold or check that made this (the replica never holds a reprojection).
    let replica: Replica
    let rows: StoredRows
    private(set) var visibility: Visibility<StoredRows>
    /// Rows whose registers were merged and not yet materialized.
    private var remembered: Set<RowRef> = []
    /// What an apply changed in the user tables; `nil` when no one asked (a fold).
    var recorder: MergeRecorder?
    /// Rows shown or hidden though their registers did not change (a parent deleted, arrived or brought
    /// back), with the version each had, in the order they moved (see ``renumberMoved(after:)``).
    private var moved: [(row: RowRef, version: Int64)] = []
    private var movedRows: Set<RowRef> = []
    /// Per `SET DEFAULT` key with a default, the parent key that default names: worked out once, as every
    /// parent row that shows or hides asks it.
    private var defaultRows: [ForeignKey: SQLiteValue] = [:]

    /// A reprojection for `replica`; `recording` notes what changes in the user tables (see ``MergeReport``).
    init(replica: Replica, recording: Bool = false) {
        self.replica = replica
        recorder = recording ? MergeRecorder() : nil
        rows = StoredRows(replica: replica)
        visibility = Visibility(graph: rows)
        visibility.interceptor = replica.configuration.interceptor
    }

    /// Records registers just merged (not yet materialized) for `row`, stored under `version`;
    /// returns whether `row` is new to this reprojection's dirty rows (not remembered before).
    @discardableResult
    func remember(
        _ row: RowRef, _ registers: RowRegisters, version: Int64, previous: RegisterStore.StoredRow?
    ) throws -> Bool {
        try rows.remember(row, registers, version: version, previous: previous)
        visibility.arrived.insert(row)
        visibility.registersChanged()
        return remembered.insert(row).inserted
    }

    /// Where `row` belongs, from its registers and its parents'.
    func placement(_ row: RowRef) throws -> Placement { try visibility.placement(of: row) }

    /// Brings the user tables in line for `dirty` rows (whose registers changed)
    /// and for every row whose placement changes because of them; tries again to show the `parked` rows
    /// the app's schema refused for a reason other rows may have lifted (``Replica/rowsParkedByOthers()``).
    func reproject(_ dirty: [RowRef], retrying parked: [RowRef] = []) throws {
        var queue = dirty
        var queued = Set(queue)
        for row in parked where queued.insert(row).inserted { queue.append(row) }
        // A child that changed may have moved away from a parent it had brought back: look at those again.
        for parent in Set(dirty.flatMap { replica.parents(of: $0.table).filter(\.action.revivesParent).map(\.parent) })
            .sorted()
        {
            for key in try replica.revivedKeys(in: parent) where queued.insert(RowRef(table: parent, key: key)).inserted
            {
                queue.append(RowRef(table: parent, key: key))
            }
        }
        // A changed row is written and propagates once; after that, only a change of placement propagates.
        var changed = Set(dirty)
        visibility.retrying = changed.union(parked)
        var index = 0
        while index < queue.count {
            let row = queue[index]
            index += 1
            queued.remove(row)
            for next in try materialize(row, isChanged: changed.remove(row) != nil) {
                // A revived parent changes the placement of rows already decided, even of one
                // still waiting in the queue, whose placement a sibling may have looked up since.
                visibility.forget(next)
                if queued.insert(next).inserted { queue.append(next) }
            }
        }
    }

    /// Moves the rows this reprojection showed or hid without a change of their own to new versions after
    /// `version`, in the order they moved; returns the last version taken (`version` when none moved).
    ///
    /// Why: ``Replica/changedRows(since:)`` reads what changed from the
    /// versions alone, and a child hidden because its parent was deleted on
    /// another device changed what the app shows as surely as a merged row.
    /// (Peers get such a row again with its next export, unchanged: merging it
    /// changes nothing.)
    func renumberMoved(after version: Int64) throws -> Int64 {
        var version = version
        for (row, previous) in moved {
            guard let table = replica.syncedTables[row.table] else { continue }
            version += 1
            try replica.store(table).move(from: previous, to: version)
        }
        moved = []
        movedRows = []
        return version
    }

    /// Notes for the ``recorder`` where a row was (shown? with which registers?) and where it goes.
    func note(
        _ row: RowRef, before: RowRegisters?, wasShown: Bool, now: RowRegisters, _ placement: Placement,
        standInsChanged: Bool = false
    ) {
        // Only a row shown before can be *updated*; for any other, the values do not decide the word.
        let valuesChanged =
            wasShown
            && (standInsChanged
                || before.map { old in !zip(old.columns, now.columns).allSatisfy { $0?.value == $1?.value } } ?? true)
        recorder?.note(
            row.table, row.key, wasShown: wasShown, wasAlive: before?.liveness.isAlive ?? false,
            valuesChanged: valuesChanged, now: ShownChange.Destination(placement))
    }

    /// Shows, hides or parks one row as visibility says; returns the rows to look at again because of it.
    private func materialize(_ row: RowRef, isChanged: Bool) throws -> [RowRef] {
        guard let stored = try rows.stored(row), let table = replica.syncedTables[row.table] else { return [] }
        let computed = try visibility.placement(of: row)
        var placement = computed
        // Why a row parked before is parked now may change with no change of its own: a cycle closed or
        // opened above it. Its children's reasons follow from its own, so they are looked at again too.
        var reasonChanged = false
        // Whether a deleted row that can be brought back, and bring back its own parents, was brought back
        // (shown, or parked with a reason) before this; read only for such a row, as merged deletes pass here.
        let keepsParents =
            !stored.registers.liveness.isAlive && replica.isRevivable(row.table)
            && replica.parents(of: row.table).contains { $0.action.revivesParent }
        let wasKept =
            try keepsParents
            ? replica.isShownRevived(row) || replica.store(table).marks.reason(table: table.id, key: row.key) != nil
            : nil
        // A row shown with a stand-in keeps its real values hidden: once its parent shows again, it is
        // shown as it is, and its hidden copy goes.
        if isChanged || placement.isShown != stored.shown || placement != .shown || stored.hasHiddenValues {
            let store = replica.store(table)
            // Where a stand-in may come or go, the registers do not say whether what the row shows changed
            // (its hidden copy may keep values its columns convert, too): it is read before and after, for the
            // report and for the versions ``Replica/changedRows(since:)`` reads (a `SET NULL` child showing its
            // parent key again changed for the app as surely as a merged row).
            let mayShowOther =
                stored.shown && placement.isShown && (stored.hasHiddenValues || placement != .shown)
            let shownBefore = mayShowOther ? try store.shownRow(of: row.key) : nil
            let reasonBefore =
                !isChanged && !stored.shown && !placement.isShown
                ? try store.marks.reason(table: table.id, key: row.key) : nil
            placement = try store.materialize(
                row.key, stored.registers, placement, previous: stored,
                mayBeParked: try rows.mayHaveParkedRows())
            let standInsChanged = try mayShowOther && placement.isShown && store.shownRow(of: row.key) != shownBefore
            if let reasonBefore, case .hidden(let reason?) = placement {
                reasonChanged = reason.description != reasonBefore
            }
            if recorder != nil {
                note(
                    row, before: rows.registersBefore(row) ?? stored.registers, wasShown: stored.shown,
                    now: stored.registers, placement, standInsChanged: standInsChanged)
            }
            if !isChanged, stored.version != 0, placement.isShown != stored.shown || standInsChanged,
                movedRows.insert(row).inserted
            {
                moved.append((row, stored.version))
            }
            visibility.settle(row, at: placement)
            rows.materialized(row, stored, at: placement)
        }
        // Children depend only on whether this row shows; a revived parent depends on its children.
        // (A changed row may have been shown by the app's own write, so it propagates too; so does a row
        // its table refused to show, whose children looked it up as shown.)
        var next: [RowRef] = []
        if isChanged || placement.isShown != stored.shown || placement != computed || reasonChanged {
            for key in replica.children(of: row.table) {
                next += try replica.childKeys(of: row, through: key).map { RowRef(table: key.child, key: $0) }
                // A row whose default names this one shows its default, or parks, as this one does.
                if key.action == .setDefault, !key.defaultValue.isNull, try defaultRow(of: key) == row.key {
                    next += try replica.keysOnDefault(through: key).map { RowRef(table: key.child, key: $0) }
                }
            }
        }
        // A deleted row a grandchild brings back, or no longer does, brings back its own parents, or no longer.
        // One still brought back is looked at again from its parents too: which of them it brings back depends
        // on how late what keeps it was written (a newer grandchild keeps a parent deleted after the older one).
        let kept = placement != .hidden(nil)
        let keptChanged = wasKept.map { $0 != kept } ?? false
        let stillKept = keepsParents && kept
        for key in replica.parents(of: row.table)
        where key.action.revivesParent && (isChanged || keptChanged || stillKept) {
            if let parent = try visibility.parent(of: stored.registers, through: key) { next.append(parent) }
            // The parent a changed row referenced before, which it may have kept (shown or parked) and no longer.
            if isChanged, let old = rows.registersBefore(row) ?? nil,
                let former = try visibility.parent(of: old, through: key)
            {
                next.append(former)
            }
        }
        next += try cycleAbove(row, placement, changed: isChanged || reasonChanged)
        return next
    }

    /// The other rows of the cycle a changed `row` is on, from its parent up, to decide again.
    ///
    /// Why: a row that moved onto a cycle may have closed a new one through rows already on an old one
    /// (2 and 3 on a cycle, 1 below 3; 2 moves under 1). Their children's reasons read the same as before
    /// ("on a cycle through" the same parent), so looking again at children stops there, and a row the
    /// new cycle runs through kept "parent not visible" where every other device said "on a cycle"
    /// (`batched-wide` seed 70374). The walk follows each member's cycle reason as decided so far; the
    /// first member is always taken, and whatever it decides anew propagates from it.
    private func cycleAbove(_ row: RowRef, _ placement: Placement, changed: Bool) throws -> [RowRef] {
        guard changed, case .hidden(.onCycle(let table, let key)?) = placement else { return [] }
        var members: [RowRef] = []
        var member = RowRef(table: table, key: key)
        var seen: Set<RowRef> = [row]
        while seen.insert(member).inserted {
            members.append(member)
            guard case .hidden(.onCycle(let table, let key)?) = try visibility.placement(of: member) else { break }
            member = RowRef(table: table, key: key)
        }
        return members
    }

    /// The parent key `key`'s default names.
    private func defaultRow(of key: ForeignKey) throws -> SQLiteValue {
        if let known = defaultRows[key] { return known }
        let named = try replica.parentKey(of: key.defaultValue, through: key)
        defaultRows[key] = named
        return named
    }
}
