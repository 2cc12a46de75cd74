import Concord

/// Every write the devices' apps made, as the registers each left behind.
///
/// After each step the simulation reads each device's new changes and keeps
/// the rows that carry a stamp of the device's own newer than any it had
/// issued before: those are writes of its app (or deletes its writes
/// cascaded to). The oracle computes the expected state from this ledger
/// alone, and the loss check asks what became of each entry.
///
/// ```swift
/// let fresh = try ledger.collect(from: device.replica, node: device.node, after: &newest, version: &version, step: 3)
/// ```
struct WriteLedger {
    /// One row a write left behind on the device that made it.
    struct Entry {
        let step: Int
        let node: NodeID
        let table: String
        let key: SQLiteValue
        let registers: RowRegisters
        /// The stamps in `registers` that this write issued.
        let stamps: [Stamp]
    }

    var entries: [Entry] = []

    /// Adds the rows `replica` changed since `version` that carry new stamps of `node`; returns how many.
    mutating func collect(
        from replica: Replica, node: NodeID, newest: inout Stamp?, version: inout Int64,
        step: Int
    ) throws -> [Entry] {
        let changes = try replica.changes(since: version)
        version = changes.upTo
        let known = newest
        var fresh: [Entry] = []
        for row in changes.rows {
            let registers = row.registers
            var stamps = registers.columns.compactMap { $0?.stamp }
            stamps += registers.columns.flatMap { $0?.contributions.map(\.stamp) ?? [] }
            stamps += [registers.liveness.stamp].compactMap { $0 }
            let own = Set(stamps.filter { stamp in stamp.node == node && known.map { stamp > $0 } ?? true }).sorted()
            guard !own.isEmpty else { continue }
            fresh.append(
                Entry(step: step, node: node, table: row.table, key: row.key, registers: registers, stamps: own))
            if newest.map({ own.last! > $0 }) ?? true { newest = own.last }
        }
        entries += fresh
        return fresh
    }
}
