/// The joined values and counter contributions a fold accumulates, row by row, in first-seen order.
///
/// A fold reads each write's logged old and new values of its value-merged
/// columns (``CaptureTriggers`` logs them), asks ``LocalJoin`` what the
/// register becomes, and keeps the running register here: a later write in
/// the same fold joins with it, and ``write()`` stores the last one once.
struct PendingJoins {
    private struct Row {
        let store: RegisterStore
        let key: SQLiteValue
        /// The running register of each value-merged column written in this fold.
        var registers: [Int: ColumnRegister] = [:]
    }

    private var rows: [Row] = []
    private var positions: [String: [SQLiteValue: Int]] = [:]

    var isEmpty: Bool { rows.isEmpty }

    /// One logged write of value-merged columns: which changed, and their old and new values.
    struct LoggedValues {
        let isInsert: Bool
        let changed: [Bool]
        /// `_concord_N_logvalues`' row: (seq, o<k>, v<k>, ...) for each joined column k; an insert's o<k> are
        /// the values of the row it replaced (`INSERT OR REPLACE`), NULL when it replaced none.
        let logged: [SQLiteValue]

        /// Whether an insert replaced a row the table held, whose values it then joins with as an update
        /// does. (A replaced row whose every value-merged column was NULL joins the same either way.)
        var replacedRow: Bool {
            isInsert && stride(from: 1, to: max(1, logged.count - 1), by: 2).contains { !logged[$0].isNull }
        }
    }

    /// Folds one insert or update's logged values into the row's running joins, and into `after`.
    /// `hiddenCopies` says the row may keep its values as written in a hidden copy (see
    /// ``RegisterStore/written(_:column:shown:)``). A counter's change is `creditStamp`'s, when given (a
    /// write a copy's credit covers, see ``CopyCredits``): its node's contribution, and the register's stamp.
    mutating func fold(
        _ write: LoggedValues, table: SyncedTable, store: RegisterStore, key: SQLiteValue,
        before: RowRegisters?, after: inout RowRegisters, stamp: Stamp, creditStamp: Stamp? = nil,
        functions: [String: MergeFunction], hiddenCopies: Bool = false
    ) throws {
        let position = position(of: key, table: table, store: store)
        for (slot, index) in table.joinedColumns.enumerated() where write.changed[index] {
            let old = write.logged.count > 2 * slot + 2 ? write.logged[1 + 2 * slot] : .null
            let new = write.logged.count > 2 * slot + 2 ? write.logged[2 + 2 * slot] : .null
            let merge = table.merges[index]
            let held = rows[position].registers[index] ?? before?.columns[index]
            let life = after.liveness.causalLength
            let register: ColumnRegister
            if merge == .counter {
                // An update, or an insert replacing a row the app holds (`INSERT OR REPLACE`, whose delete fired
                // no trigger), changes the count from what the counter showed: the replaced row's count is logged
                // (see `CaptureTriggers+Replace.swift`), also when the row was inserted since the last fold. So
                // does an insert of a row alive in this very life whose values are not kept aside: the app held
                // it, and a delete that fired no trigger took it. Any other insert changes the count from
                // nothing, as the app saw nothing there: a row alive here but not shown (hidden behind a parent
                // another device deleted, or parked) and inserted again keeps the counts its life holds, as an
                // increment made elsewhere would (refused-parent seed 49 took the app's 0 for the whole count
                // and dropped a tap the row's earlier writes had made). The hidden table tells the two apart,
                // rarely wrong: a row shown behind a stand-in keeps a copy there too, so one the app held and
                // lost to such a delete counts from nothing. The lookup runs only for such an insert.
                let heldByApp =
                    try write.isInsert && !write.replacedRow && before?.liveness.causalLength == life
                    && life % 2 == 1 && store.load(key)?.hasHiddenValues == false
                let from: Int64 =
                    if !write.isInsert || write.replacedRow { old.integerValue ?? 0 } else if heldByApp {
                        RowMerge.counterValue(held?.contributions ?? [], life: life)
                    } else { 0 }
                let delta = Int128(new.integerValue ?? 0) - Int128(from)
                // A credited change is the original's write of the counter: its register takes that stamp too.
                let contributor = creditStamp ?? stamp
                register = LocalJoin.counter(
                    LocalJoin.contribute(delta, to: held?.contributions ?? [], life: life, stamp: contributor),
                    life: life, stamp: contributor)
            } else {
                register = LocalJoin.join(
                    new, stamp: stamp,
                    base: try base(
                        index, held: held, old: hiddenCopies ? store.written(key, column: index, shown: old) : old,
                        write: write, position: position, store: store, key: key),
                    merge: merge, functions: functions)
            }
            rows[position].registers[index] = register
            after.columns[index] = register
        }
    }

    /// The register before this write: the running join, the previous value with its stamp, or,
    /// for an insert of a key the registers know (re-inserted after a delete, or parked and written
    /// again), what the row last held — a write joins with whatever its register held.
    private func base(
        _ index: Int, held: ColumnRegister?, old: SQLiteValue, write: LoggedValues, position: Int,
        store: RegisterStore, key: SQLiteValue
    ) throws -> ColumnRegister? {
        if let running = rows[position].registers[index] { return running }
        guard let held else { return nil }
        if !write.isInsert || write.replacedRow { return ColumnRegister(value: old, stamp: held.stamp) }
        return try store.load(key)?.registers.columns[index].map { ColumnRegister(value: $0.value, stamp: held.stamp) }
    }

    /// After a delete of a row with running counters: each now shows what the row's new life contributed.
    mutating func settleCounters(of key: SQLiteValue, in table: SyncedTable, life: UInt64) {
        guard let position = positions[table.name]?[key] else { return }
        for index in table.counterColumns {
            guard var register = rows[position].registers[index] else { continue }
            register.value = .integer(RowMerge.counterValue(register.contributions, life: life))
            rows[position].registers[index] = register
        }
    }

    private mutating func position(of key: SQLiteValue, table: SyncedTable, store: RegisterStore) -> Int {
        if let position = positions[table.name]?[key] { return position }
        rows.append(Row(store: store, key: key))
        positions[table.name, default: [:]][key] = rows.count - 1
        return rows.count - 1
    }

    /// Writes contributions and shows the joined values where each row's values live; returns the rows
    /// that have a hidden copy, to reproject (see ``RegisterStore/setValue(_:column:_:)``).
    func write() throws -> [RowRef] {
        var copied: [RowRef] = []
        for row in rows {
            var hasCopy = false
            for (index, register) in row.registers.sorted(by: { $0.key < $1.key }) {
                if row.store.table.merges[index] == .counter {
                    try row.store.writeContributions(row.key, column: index, register.contributions)
                }
                if try row.store.setValue(row.key, column: index, register.value) { hasCopy = true }
            }
            if hasCopy { copied.append(RowRef(table: row.store.table.name, key: row.key)) }
        }
        return copied
    }
}
