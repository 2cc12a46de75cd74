@_spi(Simulation) import Concord
import ConcordTesting

/// Every write the devices' apps made, as the operations of a ConcordTesting `Ledger`, with the step
/// and device of each: what the oracle derives the expected state from.
///
/// It records what the app did, not what the engine made of it. Around each
/// accepted statement the simulation reads the synced tables as the app sees
/// them, before and after (a ``Statement``); the device's new captured changes
/// then say which rows the statement touched and the stamp each write got
/// (``OwnWrite``). The kind of each write is the statement's for a row of the
/// table it names; a row of another table is a foreign-key action: gone from
/// its table, an `ON DELETE CASCADE` delete, still there, a `SET NULL` / `SET
/// DEFAULT` update. The values are what the statement left in the table (for a
/// `counter` column, the change it made), and `seen` is what the device knew of
/// the row (its ``Knowledge``). Causal lengths, liveness and merged values are
/// never read from the engine: the model derives them.
///
/// ```swift
/// let before = try TableSnapshot(of: replica)
/// try replica.database.execute(sql)
/// let statement = Statement(sql: sql, before: before, after: try TableSnapshot(of: replica))
/// let touched = try OwnWrite.collect(from: replica, node: node, newest: &newest, version: &version)
/// ledger.record(statement, touched: touched, tables: tables, node: node, origin: origin, knowledge: &known)
/// ```
struct AppLedger {
    /// Where an operation was made.
    struct Origin {
        let step: Int
        let device: Int
    }

    /// The operations, in the order made; `seen` sets name earlier ones.
    private(set) var ledger = Ledger()
    /// The step and device of each operation, by id.
    private(set) var origins: [Origin] = []
    /// The rows whose deletes keep no values: rows a rebuild dropped.
    private(set) var deletedWithoutValues: Set<RowRef> = []

    /// Records one operation per row `statement` touched, in the order the device stamped them; returns them.
    /// `standIns` names, by table, the columns of `SET NULL` / `SET DEFAULT` keys (see ``realValues(_:of:_:known:)``).
    /// `credited` when `node` is a copy that folded the statement its original's app ran before the copy:
    /// its writes are the statement's but for the counter changes, which are the original's (its own record
    /// of the statement has them).
    @discardableResult
    mutating func record(
        _ statement: Statement, touched: [OwnWrite], tables: [String: TableSchema], standIns: [String: Set<Int>] = [:],
        node: NodeID, origin: Origin, knowledge: inout Knowledge, credited: Bool = false
    ) -> [Ledger.Operation] {
        var recorded: [Ledger.Operation] = []
        for write in touched {
            guard let table = tables[write.row.table] else { continue }
            let kind = statement.kind(of: write.row)
            var values = statement.values(of: write.row, kind: kind, table: table)
            // A rebuild's copy of a column whose hidden copy is what the row showed (a stand-in, a converted
            // value) is not a write: the columns the reconcile stamped are the ones it wrote.
            if statement.rebuilds || statement.takesUpColumns, kind == .update, table.policy == .column {
                values = values.filter { $0.key < write.columnStamps.count && write.columnStamps[$0.key] != nil }
            }
            // A copy's fold of its original's statement: the counter changes are the original's, whatever the
            // copy's registers say (the original's own record of the statement has them).
            if credited { values = values.filter { table.merges[$0.key] != .counter } }
            if kind == .update, table.policy == .row, let columns = standIns[write.row.table] {
                let unchanged = columns.filter { statement.before[write.row]?[$0] == values[$0] }
                realValues(&values, of: write.row, unchanged, known: knowledge.of(write.row))
            }
            // A row a rebuild dropped left its values with it, as a trigger's delete does (``recordDelete(_:stamp:node:origin:knowledge:)``).
            if statement.rebuilds, kind == .delete { deletedWithoutValues.insert(write.row) }
            // A row the statement replaced by deleting it: its delete came first, at the statement's first stamp.
            if statement.deletesReplacedRows, kind == .insert, statement.before[write.row] != nil,
                let deleted = write.stamps.first, deleted < write.stamp
            {
                let id = ledger.record(
                    node: node, stamp: deleted, row: write.row, kind: .delete, values: [:],
                    seen: knowledge.of(write.row))
                origins.append(origin)
                knowledge.learn([id], of: write.row)
                recorded.append(ledger.operations[id])
            }
            for operation in write.operations(kind: kind, values: values, policy: table.policy) {
                let id = ledger.record(
                    node: node, stamp: operation.stamp, row: write.row, kind: operation.kind,
                    values: operation.values, seen: knowledge.of(write.row))
                origins.append(origin)
                knowledge.learn([id], of: write.row)
                recorded.append(ledger.operations[id])
            }
        }
        return recorded
    }

    /// Records `node`'s delete of `row` at `stamp`, made by no statement of its app: a trigger of the app
    /// deleted it while Concord merged a change.
    ///
    /// SQLite makes such a delete whatever Concord answers, with the capture triggers silenced. Concord keeps
    /// the row's values by reading them as SQLite deletes the row (with the preupdate hook, or with TEMP
    /// triggers where a device does without it), so the oracle expects them.
    mutating func recordDelete(
        _ row: RowRef, stamp: Stamp, node: NodeID, origin: Origin, knowledge: inout Knowledge
    ) {
        let id = ledger.record(node: node, stamp: stamp, row: row, kind: .delete, values: [:], seen: knowledge.of(row))
        origins.append(origin)
        knowledge.learn([id], of: row)
    }

    /// An update of a row-policy row carries its whole row, but a `SET NULL` / `SET DEFAULT` column the
    /// statement left alone may show a stand-in (NULL, the default) for a parent that is not visible,
    /// while the row's register keeps the real reference: that is what the update carries on. So, for
    /// `columns` the statement did not change, the value of the latest write of `row` its device holds.
    private func realValues(
        _ values: inout [Int: SQLiteValue], of row: RowRef, _ columns: Set<Int>, known ids: Set<Int>
    ) {
        guard !columns.isEmpty else { return }
        let known = ids.map { ledger.operations[$0] }.filter { $0.kind != .delete }
        guard let latest = known.max(by: { $0.stamp < $1.stamp }) else { return }
        for column in columns { if let real = latest.values[column] { values[column] = real } }
    }
}
