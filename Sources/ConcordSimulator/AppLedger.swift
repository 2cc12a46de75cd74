import Concord
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

    /// Records one operation per row `statement` touched, in the order the device stamped them; returns them.
    @discardableResult
    mutating func record(
        _ statement: Statement, touched: [OwnWrite], tables: [String: TableSchema], node: NodeID,
        origin: Origin, knowledge: inout Knowledge
    ) -> [Ledger.Operation] {
        var recorded: [Ledger.Operation] = []
        for write in touched {
            guard let table = tables[write.row.table] else { continue }
            let kind = statement.kind(of: write.row)
            let id = ledger.record(
                node: node, stamp: write.stamp, row: write.row, kind: kind,
                values: statement.values(of: write.row, kind: kind, table: table), seen: knowledge.of(write.row))
            origins.append(origin)
            knowledge.learn([id], of: write.row)
            recorded.append(ledger.operations[id])
        }
        return recorded
    }
}
