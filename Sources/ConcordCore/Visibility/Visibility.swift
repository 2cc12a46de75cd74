/// Decides, from the registers alone, which rows the user tables show and what they show.
///
/// A row is *visible* when it is alive — or, deleted, has been brought back
/// by a child written after the delete through a `RESTRICT`/`NO ACTION` key —
/// and every parent it references through a hiding key (`CASCADE`,
/// `RESTRICT`, `NO ACTION`) is visible, through a finite chain: rows on a
/// cycle of such keys are never visible (the least fixpoint). A visible row
/// whose `SET NULL`/`SET DEFAULT` parent is not visible shows NULL or the
/// default there, while its register keeps the real value. An alive row that
/// is not shown — for a missing or hidden parent, or because showing it would
/// break a NOT NULL or CHECK constraint — is *parked*, with a ``ParkReason``.
///
/// Nothing depends on the order changes arrived in, so every replica with
/// the same registers shows the same rows. It does no I/O beyond asking its
/// ``RowGraph``, and remembers each answer until told a row changed.
///
/// ```swift
/// var visibility = Visibility(graph: rows)
/// switch try visibility.placement(of: RowRef(table: "reminders", key: "r1")) {
/// case .shown(let overrides): show(overrides)
/// case .hidden(let reason?): park(reason)
/// case .hidden(nil): hide()
/// }
/// ```
public struct Visibility<Graph: RowGraph> {
    /// Where the registers and the foreign keys are read from.
    public let graph: Graph
    private var placements: [RowRef: Placement] = [:]
    /// Rows being materialized again because their registers changed: an old constraint parking no longer holds.
    public var retrying: Set<RowRef> = []
    /// Rows merged by the apply under way, for an interceptor that decides by arrival.
    public var arrived: Set<RowRef> = []
    /// Rows known to be on no cycle of hiding keys, through rows that could show (see ``leadsBack(from:to:)``);
    /// forgotten when registers change (``registersChanged()``), as the graph's shape may have.
    private var offCycle: Set<RowRef> = []
    /// Per deleted row asked about, whether a child brings it back (see ``mayShow(_:_:)``); forgotten when
    /// registers change.
    private var revived: [RowRef: Bool] = [:]
    /// Wraps decisions to re-create known bugs in tests; `nil` in an app.
    @_spi(Testing) public var interceptor: (any DecisionInterceptor)?
    /// Rows taken to show while they were still being decided, met again through a loop that a stand-in's
    /// key closes (see ``Visiting/closesHidingCycle(at:)``); each is checked once it is decided.
    private var assumedShown: Set<RowRef> = []
    /// The rows decided since the outermost decision began, in order: those decided under an assumption
    /// that turned out wrong are forgotten, to be decided again.
    private var decidedSince: [RowRef] = []

    /// A decider over `graph` that has answered nothing yet.
    public init(graph: Graph) { self.graph = graph }

    /// Where `row` belongs, from its registers and its parents'.
    public mutating func placement(of row: RowRef) throws -> Placement {
        if let known = placements[row] { return known }
        try decideRelativesFirst(of: row)
        var visiting = Visiting()
        return try placement(row, &visiting)
    }

    /// Decides the undecided rows `row`'s placement depends on, the furthest first, with a stack of its own,
    /// so that deciding `row` then finds its parents decided and recurses no further.
    ///
    /// Why: a row's placement depends on its parents', and theirs on their parents'. Decided by recursion
    /// alone, a chain of rows written child first (replies to replies, a linked list of 30,000 lines) took a
    /// frame per row and overflowed the thread's stack, which ends the process: every fold crashed the app.
    /// Deciding a row before its children gives it the answer it would get asked from below, as long as its
    /// ancestors do not lead back to the rows below; where they do (a cycle), this stops and leaves the
    /// rest to the recursion, which is what decides rows on cycles.
    ///
    /// ```swift
    /// // items: i30000 → i29999 → … → i0, the root
    /// try visibility.placement(of: RowRef(table: "items", key: "i30000"))   // decides i0 first, then i1, …
    /// ```
    private mutating func decideRelativesFirst(of row: RowRef) throws {
        guard !graph.parents(of: row.table).isEmpty else { return }
        var path: [(row: RowRef, relatives: [RowRef])] = [(row, try undecidedRelatives(of: row))]
        var onPath: Set<RowRef> = [row]
        while let last = path.last {
            if let next = path[path.count - 1].relatives.popLast() {
                guard placements[next] == nil else { continue }
                guard onPath.insert(next).inserted else { return }
                path.append((next, try undecidedRelatives(of: next)))
                continue
            }
            path.removeLast()
            onPath.remove(last.row)
            // `row` itself is left to the caller.
            guard !path.isEmpty else { return }
            var visiting = Visiting()
            _ = try placement(last.row, &visiting)
        }
    }

    /// The rows `row`'s placement looks up that are not decided yet: its parents through every key, and the
    /// rows its `SET DEFAULT` keys' defaults name. None when it cannot show whatever they are (deleted).
    private mutating func undecidedRelatives(of row: RowRef) throws -> [RowRef] {
        guard placements[row] == nil, let registers = try graph.registers(of: row),
            try mayShow(row, registers)
        else { return [] }
        var relatives: [RowRef] = []
        for key in graph.parents(of: row.table) {
            if let parent = try parent(of: registers, through: key) { relatives.append(parent) }
            if key.action == .setDefault, !key.defaultValue.isNull {
                let named = try graph.parentKey(of: key.defaultValue, through: key)
                relatives.append(RowRef(table: key.parent, key: named))
            }
        }
        return relatives.filter { placements[$0] == nil && $0 != row }.reversed()
    }

    /// Forgets what was decided about `row`, whose registers or relatives changed.
    public mutating func forget(_ row: RowRef) { placements[row] = nil }

    /// Forgets what was learned of the graph's shape and of which deleted rows children bring back, as some
    /// row's registers changed (its keys may name other rows now).
    public mutating func registersChanged() {
        offCycle = []
        revived = [:]
    }

    /// Records where `row` went when it was materialized (a constraint may have parked it).
    public mutating func settle(_ row: RowRef, at placement: Placement) { placements[row] = placement }

    private mutating func placement(
        _ row: RowRef, _ visiting: inout Visiting, throughStandIn: Bool = false
    ) throws -> Placement {
        if let known = placements[row] { return known }
        guard let registers = try graph.registers(of: row) else { return .hidden(nil) }
        guard try mayShow(row, registers) else {
            placements[row] = .hidden(nil)
            return .hidden(nil)
        }
        let firstDecided = decidedSince.count
        visiting.enter(row, throughStandIn: throughStandIn)
        var result = try hidingParent(of: row, registers, &visiting).map(Placement.hidden) ?? .shown
        if case .shown = result {
            let (overrides, unshowable) = try standIns(for: row, registers, &visiting)
            result = unshowable.map(Placement.hidden) ?? .shown(overrides: overrides)
            // A row whose own values break a constraint of its table stays parked until its registers change.
            if unshowable == nil, !retrying.contains(row), !mayShowStandIns(row, registers),
                let message = try graph.constraint(of: row)
            {
                result = .hidden(.constraint(message))
            }
        }
        visiting.leave(row)
        // Rows decided while this one was taken to show, when it does not, are decided again when asked.
        if assumedShown.remove(row) != nil, !result.isShown {
            for decided in decidedSince[firstDecided...] { placements[decided] = nil }
            decidedSince.removeSubrange(firstDecided...)
        }
        placements[row] = result
        if visiting.isEmpty {
            decidedSince.removeAll(keepingCapacity: true)
            assumedShown.removeAll(keepingCapacity: true)
        } else {
            decidedSince.append(row)
        }
        return result
    }

    /// Whether a `SET NULL` or `SET DEFAULT` key of `row` names a parent, so that what the row shows, and
    /// whether its table's constraints take it, depend on whether that parent shows.
    ///
    /// Why: such a row parked by a constraint (a `NOT NULL` column showing NULL for its deleted parent) must
    /// show again when the parent does; held until its own registers changed, it stayed parked on every
    /// device that had seen the delete, while a device that never had showed it.
    private func mayShowStandIns(_ row: RowRef, _ registers: RowRegisters) -> Bool {
        graph.parents(of: row.table).contains { key in
            !key.action.hidesChild && !(registers.columns[key.column]?.value.isNull ?? true)
        }
    }

    /// Why a parent through a hiding key keeps `row` from showing, or `nil` when none does.
    private mutating func hidingParent(
        of row: RowRef, _ registers: RowRegisters,
        _ visiting: inout Visiting
    ) throws -> ParkReason? {
        for key in graph.parents(of: row.table) where key.action.hidesChild {
            guard let parent = try self.parent(of: registers, through: key) else { continue }
            if visiting.contains(parent) {
                if visiting.closesHidingCycle(at: parent) { return .onCycle(table: parent.table, key: parent.key) }
                // Met again through a stand-in's key: its hiding keys are being followed, or let it show; it
                // is taken to show, and what follows from that is forgotten if it does not.
                assumedShown.insert(parent)
                continue
            }
            guard case .hidden = try placement(parent, &visiting) else { continue }
            let missing = try graph.registers(of: parent) == nil
            if let interceptor, !interceptor.parentHides(row, parentKnown: !missing, arrivedNow: arrived.contains(row))
            {
                continue
            }
            if missing { return .missingParent(table: parent.table, key: parent.key) }
            // The same reason whichever row of a cycle is asked about first.
            return try leadsBack(from: parent, to: row)
                ? .onCycle(table: parent.table, key: parent.key)
                : .hiddenParent(table: parent.table, key: parent.key)
        }
        return nil
    }

    /// Whether following hiding keys up from `start`, through rows that could show, reaches `target`.
    ///
    /// Asked only of a hidden parent, so parked rows pay for it and shown ones do not. Only alive (or
    /// revived) rows are followed, as ``placement(of:)`` follows them: a deleted row on the way ends the chain.
    ///
    /// `target` names `start` through a hiding key, so a row that reaches `target` is on a cycle: the walk
    /// stops at rows known to be on none (``offCycle``), and a walk that met no row twice adds the rows it
    /// went through. Why: every row of a parked chain 30,000 rows deep asks this of its parent, and a walk
    /// to the top each time took minutes.
    private mutating func leadsBack(from start: RowRef, to target: RowRef) throws -> Bool {
        guard !offCycle.contains(start) else { return false }
        var seen: Set<RowRef> = [start]
        var pending = [start]
        var metTwice = false
        while let row = pending.popLast() {
            guard let registers = try graph.registers(of: row),
                try mayShow(row, registers)
            else { continue }
            for key in graph.parents(of: row.table) where key.action.hidesChild {
                guard let parent = try self.parent(of: registers, through: key) else { continue }
                if parent == target { return true }
                if offCycle.contains(parent) { continue }
                if seen.insert(parent).inserted { pending.append(parent) } else { metTwice = true }
            }
        }
        // What it went through is a tree hanging from rows on no cycle: none of it is on one.
        if !metTwice { offCycle.formUnion(seen) }
        return false
    }

    /// The stand-ins a shown row shows for `SET NULL` / `SET DEFAULT` parents that are not visible; and why
    /// it cannot show at all, when a `SET DEFAULT` stand-in names a parent that does not show either (SQLite
    /// itself refuses to delete a parent when its child's default names no row: the row would break its key).
    ///
    /// A row whose placement is being decided further up (`visiting`: these keys lead back to it) is taken
    /// to show as a parent, since nothing there hides it, and not to as a default's row, which must show first.
    private mutating func standIns(
        for row: RowRef, _ registers: RowRegisters, _ visiting: inout Visiting
    ) throws -> ([Int: SQLiteValue], ParkReason?) {
        var overrides: [Int: SQLiteValue] = [:]
        for key in graph.parents(of: row.table) where !key.action.hidesChild {
            guard let parent = try self.parent(of: registers, through: key) else { continue }
            if visiting.contains(parent) {
                assumedShown.insert(parent)
                continue
            }
            guard case .hidden = try placement(parent, &visiting, throughStandIn: true) else { continue }
            let standIn = key.action == .setNull ? SQLiteValue.null : key.defaultValue
            overrides[key.column] = standIn
            guard !standIn.isNull else { continue }
            let named = RowRef(table: key.parent, key: try graph.parentKey(of: standIn, through: key))
            guard named != row else { continue }
            if visiting.contains(named) { return (overrides, .onCycle(table: named.table, key: named.key)) }
            guard case .hidden = try placement(named, &visiting, throughStandIn: true) else { continue }
            return (
                overrides,
                try graph.registers(of: named) == nil
                    ? .missingParent(table: named.table, key: named.key)
                    : .hiddenParent(table: named.table, key: named.key)
            )
        }
        return (overrides, nil)
    }

    /// The row `registers` reference through `key`, if the column holds a value.
    public func parent(of registers: RowRegisters, through key: ForeignKey) throws -> RowRef? {
        guard let value = registers.columns[key.column]?.value, !value.isNull else { return nil }
        return RowRef(table: key.parent, key: try graph.parentKey(of: value, through: key))
    }

    /// Whether `row` may show at all: it is alive, or brought back (``isRevived(_:_:)``, remembered until
    /// registers change).
    ///
    /// Why remembered: each child that changes puts its parent's placement up for deciding again, and the
    /// answer reads every child of the parent. A list deleted on one device while another edited its 1,600
    /// items took 17 s to merge, reading 1,600 children once per child.
    private mutating func mayShow(_ row: RowRef, _ registers: RowRegisters) throws -> Bool {
        if registers.liveness.isAlive { return true }
        if let known = revived[row] { return known }
        let answer = try isRevived(row, registers)
        revived[row] = answer
        return answer
    }

    /// A deleted row comes back while a child references it through a `RESTRICT` or `NO ACTION` key written
    /// after the delete — an alive child, or one that is deleted and brought back itself by a grandchild
    /// written after both deletes.
    ///
    /// Why the chain: a device deletes a child, then its parent (legal: the parent had no child left),
    /// while another adds a grandchild under the child. The grandchild brought the child back, but the child
    /// needed its deleted parent, so neither showed: the concurrent grandchild was parked, not kept.
    ///
    /// ```swift
    /// // p ← c ← g, RESTRICT: c deleted, then p; g written under c after both
    /// try visibility.isRevived(p, registers(p))   // true: g keeps c, and c keeps p
    /// ```
    public func isRevived(_ row: RowRef, _ registers: RowRegisters) throws -> Bool {
        guard let deleted = registers.liveness.stamp else { return false }
        var path: Set<RowRef> = [row]
        var failed: [RowRef: Stamp] = [:]
        return try isKept(row, after: deleted, path: &path, failed: &failed)
    }

    /// Whether a child keeps `row` through a `RESTRICT` or `NO ACTION` key by a write newer than `threshold`:
    /// an alive child's link, or what keeps a deleted child, newer than its own delete too.
    ///
    /// A row that was not kept after some threshold is not kept after a later one (`failed`); a row on the
    /// `path` is not followed again, as what keeps it the second time kept it the first.
    private func isKept(
        _ row: RowRef, after threshold: Stamp, path: inout Set<RowRef>, failed: inout [RowRef: Stamp]
    ) throws -> Bool {
        if let lowest = failed[row], threshold >= lowest { return false }
        for key in graph.children(of: row.table) where key.action.revivesParent {
            for child in try graph.keys(referencing: row, through: key) {
                let ref = RowRef(table: key.child, key: child)
                guard let register = try graph.registers(of: ref), let link = register.columns[key.column],
                    try graph.parentKey(of: link.value, through: key) == row.key
                else { continue }
                if register.liveness.isAlive {
                    if link.stamp > threshold { return true }
                    continue
                }
                guard let deleted = register.liveness.stamp, path.insert(ref).inserted else { continue }
                defer { path.remove(ref) }
                if try isKept(ref, after: max(threshold, deleted), path: &path, failed: &failed) { return true }
            }
        }
        failed[row] = min(failed[row] ?? threshold, threshold)
        return false
    }
}
