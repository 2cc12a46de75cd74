import ConcordCore
import ConcordTesting

/// A device made of the core alone: registers in memory, local writes through ``LocalWrite`` and
/// ``LocalJoin`` as the engine's fold makes them, merges through ``RowMerge``, and what shows
/// through ``Visibility``. It records every write it makes in a ``Ledger``, with what it knew.
final class PureDevice: RowGraph {
    let node: NodeID
    let tables: [String: TableSchema]
    let foreignKeys: [ForeignKey]
    private(set) var clock = HybridLogicalClock()
    var time: Int64
    private(set) var rows: [RowRef: RowRegisters] = [:]
    /// For each row, the ledger's writes of it this device knows of.
    private(set) var knowledge: [RowRef: Set<Int>] = [:]

    init(node: NodeID, tables: [TableSchema], foreignKeys: [ForeignKey], time: Int64) {
        self.node = node
        self.tables = Dictionary(uniqueKeysWithValues: tables.map { ($0.name, $0) })
        self.foreignKeys = foreignKeys
        self.time = time
    }

    // MARK: Writing

    /// Makes a local write, as an app's write folded by the engine; a delete cascades to the children this
    /// device shows through `ON DELETE CASCADE` keys, as the engine's fold does. `values` are written values
    /// (for a counter, the change made).
    func write(_ kind: Ledger.Kind, _ row: RowRef, values: [Int: SQLiteValue], ledger: inout Ledger) throws {
        let cascaded = kind == .delete ? try shownChildren(of: row) : []
        let table = tables[row.table]!
        let stamp = Stamp(hlc: clock.tick(physical: time), node: node)
        let before = rows[row]
        let write: LocalWrite =
            switch kind {
            case .insert: .insert
            case .delete: .delete
            case .update: .update(changed: table.columns.indices.map { values[$0] != nil })
            }
        var after = write.applied(to: before, columnCount: table.columns.count, stamp: stamp, policy: table.policy)
        for (index, value) in values.sorted(by: { $0.key < $1.key }) {
            after.columns[index] = written(
                value, column: index, table: table, kind: kind, before: before, after: after, stamp: stamp)
        }
        if kind == .delete { settleCounters(&after, table) }
        rows[row] = after
        let id = ledger.record(
            node: node, stamp: stamp, row: row, kind: kind, values: values, seen: knowledge[row] ?? [])
        knowledge[row, default: []].insert(id)
        for child in cascaded { try self.write(.delete, child, values: [:], ledger: &ledger) }
    }

    /// A column's register after a local write of `value` (a counter: a change by `value`).
    private func written(
        _ value: SQLiteValue, column index: Int, table: TableSchema, kind: Ledger.Kind,
        before: RowRegisters?, after: RowRegisters, stamp: Stamp
    ) -> ColumnRegister {
        let held = before?.columns[index]
        let life = after.liveness.causalLength
        switch table.policy == .row ? .lww : table.merges[index] {
        case .lww:
            return ColumnRegister(value: value, stamp: stamp)
        case .counter:
            let entries = LocalJoin.contribute(
                Int128(value.integerValue ?? 0), to: held?.contributions ?? [], life: life, stamp: stamp)
            return LocalJoin.counter(entries, life: life, stamp: stamp)
        case let merge:
            // A write joins with what the register held.
            return LocalJoin.join(value, stamp: stamp, base: held, merge: merge, functions: [:])
        }
    }

    private func settleCounters(_ registers: inout RowRegisters, _ table: TableSchema) {
        guard table.policy == .column else { return }
        for index in table.columns.indices where table.merges[index] == .counter {
            guard var register = registers.columns[index] else { continue }
            register.value = .integer(
                RowMerge.counterValue(register.contributions, life: registers.liveness.causalLength))
            registers.columns[index] = register
        }
    }

    /// The children this device shows of `row` through cascading keys, in key order.
    private func shownChildren(of row: RowRef) throws -> [RowRef] {
        var visibility = Visibility(graph: self)
        var children: [RowRef] = []
        for key in foreignKeys where key.parent == row.table && key.action == .cascade {
            for child in try keys(referencing: row, through: key).map({ RowRef(table: key.child, key: $0) })
            where try visibility.placement(of: child).isShown {
                children.append(child)
            }
        }
        return children
    }

    // MARK: Syncing

    /// Merges everything `other` holds into this device, as applying its full changeset would.
    func receive(from other: PureDevice) throws {
        var newest: Stamp?
        for (row, remote) in other.rows.sorted(by: { ($0.key.table, $0.key.key) < ($1.key.table, $1.key.key) }) {
            let table = tables[row.table]!
            let rules = RowMerge.Rules(policy: table.policy, merges: table.merges)
            let outcome = RowMerge.merge(local: rows[row], remote: remote, rules: rules)
            if outcome.changed {
                rows[row] = outcome.merged
                newest = max(newest ?? outcome.merged.latestStamp!, outcome.merged.latestStamp ?? newest!)
            }
            knowledge[row, default: []].formUnion(other.knowledge[row] ?? [])
        }
        if let newest { try clock.receive(newest.hlc, from: newest.node, physical: time) }
    }

    // MARK: RowGraph

    func registers(of row: RowRef) throws -> RowRegisters? { rows[row] }

    func parents(of table: String) -> [ForeignKey] { foreignKeys.filter { $0.child == table } }

    func children(of table: String) -> [ForeignKey] { foreignKeys.filter { $0.parent == table } }

    func keys(referencing parent: RowRef, through key: ForeignKey) throws -> [SQLiteValue] {
        rows.filter {
            $0.key.table == key.child && ($0.value.columns[key.column]?.value).map(key.parentKey(of:)) == parent.key
        }.map(\.key.key)
            .sorted()
    }

    func parentKey(of value: SQLiteValue, through key: ForeignKey) -> SQLiteValue { key.parentKey(of: value) }
    func constraint(of row: RowRef) throws -> String? { nil }
}
