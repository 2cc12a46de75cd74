@_spi(Simulation) import Concord
import ConcordTesting

/// A row a device stamped with a new stamp of its own: a write its app made, or one of the
/// foreign-key actions that write set off.
///
/// ```swift
/// let touched = try OwnWrite.collect(from: replica, node: node, newest: &newest, version: &version)
/// ```
struct OwnWrite {
    let row: RowRef
    /// The newest stamp of `node`'s the write left in the row's registers.
    let stamp: Stamp
    /// Every stamp the statement's writes of the row were given, oldest first: more than one when a
    /// trigger of the app's wrote the row again (an edit count, an `updated_at`), since Concord stamps
    /// each captured write.
    var stamps: [Stamp] = []
    /// The newest stamp of `node`'s each column holds (in its value or a counter contribution), by column.
    var columnStamps: [Stamp?] = []
    /// The row's liveness stamp, when it is one of `node`'s.
    var livenessStamp: Stamp?
    /// Whether the row's registers say `node` deleted it (its causal length is even, at a stamp of its own).
    var deleted = false

    /// The rows `replica` changed since `version` that carry stamps of `node` newer than `newest`, in the
    /// order it stored them; moves `version` and `newest` past them.
    static func collect(from replica: Replica, node: NodeID, newest: inout Stamp?, version: inout Int64) throws
        -> [OwnWrite]
    {
        // Nothing stored since the last reading and nothing captured to fold: the export would read nothing.
        // (Most devices on most steps; the export's fold and transaction cost more than the step's write.)
        if try replica.version == version, try replica.captureLogEnd() == 0 { return [] }
        let changes = try replica.changes(since: version)
        version = changes.upTo
        let known = newest
        var fresh: [OwnWrite] = []
        for row in changes.rows {
            let registers = row.registers
            var stamps = registers.columns.compactMap { $0?.stamp }
            stamps += registers.columns.flatMap { $0?.contributions.map(\.stamp) ?? [] }
            stamps += [registers.liveness.stamp].compactMap { $0 }
            let mine = { (stamp: Stamp) in stamp.node == node && known.map { stamp > $0 } ?? true }
            let owned = Set(stamps.filter(mine)).sorted()
            guard let own = owned.last else { continue }
            fresh.append(
                OwnWrite(
                    row: RowRef(table: row.table, key: row.key), stamp: own, stamps: owned,
                    columnStamps: registers.columns.map { column in
                        ([column?.stamp].compactMap { $0 } + (column?.contributions.map(\.stamp) ?? []))
                            .filter(mine).max()
                    },
                    livenessStamp: registers.liveness.stamp.flatMap { mine($0) ? $0 : nil },
                    deleted: registers.liveness.causalLength % 2 == 0
                        && registers.liveness.stamp.map(mine) == true))
            if newest.map({ own > $0 }) ?? true { newest = own }
        }
        return fresh
    }
}

extension OwnWrite {
    /// One ledger operation of a statement's writes of this row.
    struct Operation: Equatable {
        let stamp: Stamp
        let kind: Ledger.Kind
        let values: [Int: SQLiteValue]
    }

    /// The statement's write of this row as the ledger records it: one operation per stamp its writes
    /// left in the registers.
    ///
    /// Why: a statement whose trigger wrote the row again (`UPDATE t SET n = n + 1 WHERE id = NEW.id`)
    /// left two stamps in it, one per captured write, and the reference model must give each column the
    /// stamp its register holds. Each changed column goes with the stamp its register holds when that is
    /// one of ``stamps``, else (a later statement of the same fold wrote it again, or a join kept another
    /// value) with the newest; an insert goes first, at the row's liveness stamp, with the columns no later
    /// write of the statement took. A delete, a row-policy row and a row stamped once are one operation.
    ///
    /// ```swift
    /// write.operations(kind: .update, values: [1: "call", 4: 2], policy: .column)
    /// // [update at s1: title, update at s2: edits]
    /// ```
    func operations(kind: Ledger.Kind, values: [Int: SQLiteValue], policy: TablePolicy) -> [Operation] {
        guard stamps.count > 1, kind != .delete, policy == .column else {
            return [Operation(stamp: stamp, kind: kind, values: values)]
        }
        let taken = Set(stamps)
        var byStamp: [Stamp: [Int: SQLiteValue]] = [:]
        for (column, value) in values {
            let held = column < columnStamps.count ? columnStamps[column] : nil
            byStamp[held.flatMap { taken.contains($0) ? $0 : nil } ?? stamp, default: [:]][column] = value
        }
        var first = byStamp.keys.min() ?? stamp
        if kind == .insert {
            first = livenessStamp.flatMap { taken.contains($0) ? $0 : nil } ?? stamps[0]
            first = min(first, byStamp.keys.min() ?? first)
        }
        var result = [Operation(stamp: first, kind: kind, values: byStamp[first] ?? [:])]
        for later in byStamp.keys.sorted() where later > first {
            result.append(Operation(stamp: later, kind: .update, values: byStamp[later]!))
        }
        return result
    }
}
