import Concord

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

    /// The rows `replica` changed since `version` that carry stamps of `node` newer than `newest`, in the
    /// order it stored them; moves `version` and `newest` past them.
    static func collect(from replica: Replica, node: NodeID, newest: inout Stamp?, version: inout Int64) throws
        -> [OwnWrite]
    {
        let changes = try replica.changes(since: version)
        version = changes.upTo
        let known = newest
        var fresh: [OwnWrite] = []
        for row in changes.rows {
            let registers = row.registers
            var stamps = registers.columns.compactMap { $0?.stamp }
            stamps += registers.columns.flatMap { $0?.contributions.map(\.stamp) ?? [] }
            stamps += [registers.liveness.stamp].compactMap { $0 }
            guard let own = stamps.filter({ stamp in stamp.node == node && known.map { stamp > $0 } ?? true }).max()
            else { continue }
            fresh.append(OwnWrite(row: RowRef(table: row.table, key: row.key), stamp: own))
            if newest.map({ own > $0 }) ?? true { newest = own }
        }
        return fresh
    }
}
