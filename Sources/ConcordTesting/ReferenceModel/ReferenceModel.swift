import ConcordCore

/// An independent model of DESIGN.md's semantics: from a ``Ledger`` of writes alone, what every
/// replica must hold — registers and what shows — once all changes are exchanged.
///
/// It shares no code with the engine's merge, fold or visibility: causal
/// lengths come from each write's kind and what its device had seen; per
/// column, the latest write wins (`lww`), or the extreme value (`max`,
/// `min`, ties to the later write), or the union of every value (`union`),
/// or each device's increments in the row's current life add up (`counter`);
/// under the row policy the latest write supplies the whole row; and a row
/// shows by the least fixpoint of "alive (or brought back by a later
/// `RESTRICT` child) and every hiding parent shows", and, when told which
/// columns are NOT NULL, the values it would show put no NULL in one. It reads
/// and writes sets with its own ``ReferenceUnion``, compares with SQLite's
/// value order, and uses nothing else of the engine.
///
/// ```swift
/// let model = ReferenceModel(tables: [lists, items], foreignKeys: [itemsToLists], ledger: ledger)
/// model.registers[RowRef(table: "items", key: "i1")]   // what every replica must hold
/// model.placement(of: RowRef(table: "items", key: "i1"))
/// ```
public struct ReferenceModel: Sendable {
    /// The synced tables the ledger's rows belong to, by name.
    public let tables: [String: TableSchema]
    /// The foreign keys that decide which rows show (the same declarations the engine is given).
    public let foreignKeys: [ForeignKey]
    /// For each table, the positions of its columns declared NOT NULL; see ``init(tables:foreignKeys:ledger:notNull:defaults:functions:)``.
    public let notNull: [String: Set<Int>]
    /// For each table, column position → the value a row shows there while no write has set it (its DEFAULT).
    public let defaults: [String: [Int: SQLiteValue]]
    /// The user-defined merges, by name, that `.custom` columns join their values with; a custom merge not
    /// here is last-writer-wins, as the engine treats one it has no function for.
    public let functions: [String: MergeFunction]
    /// The tables' other constraints (CHECK), which a ``TableSchema`` does not carry either: whether a
    /// table takes a row of a key showing these values (every column, in order); `nil` when none can fail.
    public let accepts: (@Sendable (_ table: String, _ key: SQLiteValue, _ values: [SQLiteValue]) -> Bool)?
    /// What every replica must hold, by row.
    public private(set) var registers: [RowRef: RowRegisters] = [:]
    private var visible: Set<RowRef> = []
    /// The causal length before and after each write, by operation id.
    private let lengths: [(before: UInt64, after: UInt64)]

    /// Derives every row's registers and visibility from `ledger`; rows of tables not in `tables` are left out.
    ///
    /// A table's rows are shown only with values its constraints accept, so a row whose shown values
    /// would put NULL in a NOT NULL column is parked (as a child whose parent does not show is), and
    /// so are its children through hiding keys. SQLite's schema is not part of a ``TableSchema``:
    /// name those columns in `notNull` (table → column positions, as in ``TableSchema/columns``). A
    /// column no write has set — one a migration added after the row was written — shows its DEFAULT,
    /// given in `defaults` (table → column position → value), or NULL when `defaults` has none. Leave
    /// `notNull` empty when no constraint can break. A row whose shown values `accepts` refuses (a CHECK
    /// constraint; one that holds whatever a stand-in column shows) is parked too. A `.custom` column joins
    /// every value written with the ``MergeFunction`` of its name in `functions`.
    ///
    /// ```swift
    /// // reminders(list_id, title NOT NULL, ..., priority NOT NULL DEFAULT 0 added later): a reminder
    /// // whose title would show NULL is parked; one written before `priority` existed shows 0 there.
    /// let model = ReferenceModel(tables: [lists, reminders], foreignKeys: keys, ledger: ledger,
    ///                            notNull: ["reminders": [1, 3]], defaults: ["reminders": [3: 0]])
    /// ```
    public init(
        tables: [TableSchema], foreignKeys: [ForeignKey], ledger: Ledger, notNull: [String: Set<Int>] = [:],
        defaults: [String: [Int: SQLiteValue]] = [:], functions: [String: MergeFunction] = [:],
        accepts: (@Sendable (_ table: String, _ key: SQLiteValue, _ values: [SQLiteValue]) -> Bool)? = nil
    ) {
        self.tables = Dictionary(uniqueKeysWithValues: tables.map { ($0.name, $0) })
        self.functions = functions
        self.accepts = accepts
        self.foreignKeys = foreignKeys
        self.notNull = notNull
        self.defaults = defaults
        let lengths = Self.causalLengths(ledger)
        self.lengths = lengths
        var byRow: [RowRef: [Ledger.Operation]] = [:]
        for operation in ledger.operations { byRow[operation.row, default: []].append(operation) }
        for (row, operations) in byRow {
            guard let table = self.tables[row.table] else { continue }
            registers[row] = Self.registers(operations, table, lengths, functions)
        }
        decideVisibility()
    }

    // MARK: Causal lengths

    /// The causal length the operation with id `operation` left its row at, derived from the ledger.
    ///
    /// A loss check asks it whether a write's life is over: a replica holding a larger length for the
    /// row has a later delete (or re-insert) on top of it, and one holding a smaller length lost it.
    ///
    /// ```swift
    /// let ended = final.liveness.causalLength > model.causalLength(after: id)   // deleted since
    /// ```
    public func causalLength(after operation: Int) -> UInt64 { lengths[operation].after }

    /// The causal length each write left its row at: from the lengths of the writes its device had seen.
    static func causalLengths(_ ledger: Ledger) -> [(before: UInt64, after: UInt64)] {
        var lengths: [(before: UInt64, after: UInt64)] = []
        for operation in ledger.operations {
            let before =
                operation.seen.filter { ledger.operations[$0].row == operation.row }.map { lengths[$0].after }.max()
                ?? 0
            let after: UInt64 =
                switch operation.kind {
                case .insert: before % 2 == 1 ? before : before + 1
                case .delete: before % 2 == 0 ? before + 2 : before + 1
                case .update: before == 0 ? 1 : before
                }
            lengths.append((before, after))
        }
        return lengths
    }

    // MARK: Registers

    private static func registers(
        _ operations: [Ledger.Operation], _ table: TableSchema,
        _ lengths: [(before: UInt64, after: UInt64)], _ functions: [String: MergeFunction]
    ) -> RowRegisters {
        // The length is set by inserts, deletes and a first write; among the writes that reached the
        // largest, the latest one's stamp is the liveness stamp.
        let setters = operations.filter { $0.kind != .update || lengths[$0.id].before == 0 }
        let life = setters.map { lengths[$0.id].after }.max() ?? 0
        let lifeStamp = setters.filter { lengths[$0.id].after == life }.map(\.stamp).max()
        var result = RowRegisters(
            liveness: Liveness(causalLength: life, stamp: lifeStamp),
            columns: Array(repeating: nil, count: table.columns.count))
        let writes = operations.filter { $0.kind != .delete }
        if table.policy == .row {
            guard let latest = writes.max(by: { $0.stamp < $1.stamp }) else { return result }
            result.columns = table.columns.indices.map { index in
                latest.values[index].map { ColumnRegister(value: $0, stamp: latest.stamp) }
            }
            return result
        }
        for index in table.columns.indices {
            let touching = writes.filter { $0.values[index] != nil }
            guard !touching.isEmpty else { continue }
            result.columns[index] = column(
                index, touching, merge: table.merges[index], life: life, lengths, functions: functions)
        }
        return result
    }

    /// One column's register from the writes that wrote it.
    private static func column(
        _ index: Int, _ writes: [Ledger.Operation], merge: ColumnMerge, life: UInt64,
        _ lengths: [(before: UInt64, after: UInt64)], functions: [String: MergeFunction]
    ) -> ColumnRegister {
        let latest = writes.max { $0.stamp < $1.stamp }!
        switch merge {
        case .max, .min:
            // The extreme value in SQLite's order; among values it holds equal, the latest write's.
            let best = writes.max { a, b in
                let (x, y) = (a.values[index]!, b.values[index]!)
                if x < y || y < x { return merge == .max ? x < y : y < x }
                return a.stamp < b.stamp
            }!
            return ColumnRegister(value: best.values[index]!, stamp: best.stamp)
        case .union:
            let value = ReferenceUnion.merge(writes.map { $0.values[index]! })
            return ColumnRegister(value: value, stamp: latest.stamp)
        case .counter:
            let entries = contributions(index, writes, lengths)
            // Summed exactly, then held to the 64-bit range: increments on several devices may pass it.
            let exact = entries.filter { $0.causalLength == life }.reduce(Int128(0)) { $0 + Int128($1.amount) }
            let total = Int64(clamping: exact)
            return ColumnRegister(value: .integer(total), stamp: latest.stamp, contributions: entries)
        case .custom(let name) where functions[name] != nil:
            // Every value written, joined (in stamp order, though a join's order does not matter).
            let values = writes.sorted { $0.stamp < $1.stamp }.map { $0.values[index]! }
            return ColumnRegister(
                value: values.dropFirst().reduce(values[0], functions[name]!.join), stamp: latest.stamp)
        case .lww, .custom:
            return ColumnRegister(value: latest.values[index]!, stamp: latest.stamp)
        }
    }

    /// Each device's contribution to a counter: the sum of its changes in the life of its latest one, in
    /// stamp order, held to the 64-bit range after each (a device's share past it keeps its end).
    private static func contributions(
        _ index: Int, _ writes: [Ledger.Operation],
        _ lengths: [(before: UInt64, after: UInt64)]
    ) -> [CounterContribution] {
        Dictionary(grouping: writes, by: \.node).map { node, own in
            let last = own.max { $0.stamp < $1.stamp }!
            let life = lengths[last.id].after
            let amount = own.filter { lengths[$0.id].after == life }.sorted { $0.stamp < $1.stamp }
                .reduce(Int64(0)) { Int64(clamping: Int128($0) + Ledger.counterChange(of: $1.values[index])) }
            return CounterContribution(causalLength: life, amount: amount, stamp: last.stamp)
        }.sorted { $0.stamp.node < $1.stamp.node }
    }

    // MARK: Visibility

    /// The least fixpoint: start with nothing visible and show rows until no more can be shown.
    private mutating func decideVisibility() {
        let rows = registers.keys.sorted { ($0.table, $0.key) < ($1.table, $1.key) }
        var changed = true
        while changed {
            changed = false
            for row in rows where !visible.contains(row) && canShow(row) {
                visible.insert(row)
                changed = true
            }
        }
    }

    /// Whether `row` can show once the rows in `visible` do. Monotone in `visible`: a parent that shows
    /// more only removes a stand-in, so the fixpoint is reached by adding rows alone. A `SET DEFAULT`
    /// stand-in must name a row that shows (or none): SQLite never lets a default break its key.
    private func canShow(_ row: RowRef) -> Bool {
        guard let held = registers[row], held.liveness.isAlive || isRevived(row, held) else { return false }
        let parentsShow = foreignKeys.filter { $0.child == row.table && Self.hides($0.action) }.allSatisfy { key in
            guard let value = held.columns[key.column]?.value, !value.isNull else { return true }
            return visible.contains(RowRef(table: key.parent, key: key.parentKey(of: value)))
        }
        let standIns = standIns(row, held)
        let defaultsShow = foreignKeys.filter { $0.child == row.table && $0.action == .setDefault }.allSatisfy { key in
            guard let standIn = standIns[key.column], !standIn.isNull else { return true }
            let named = RowRef(table: key.parent, key: key.parentKey(of: standIn))
            return named == row || visible.contains(named)
        }
        guard defaultsShow else { return false }
        let required = notNull[row.table] ?? []
        guard parentsShow, !required.isEmpty || accepts != nil else { return parentsShow }
        let shown = values(row, held, overrides: standIns)
        if required.contains(where: { shown[$0].isNull }) { return false }
        return accepts?(row.table, row.key, shown) ?? true
    }

    /// What `row` shows column by column: a stand-in, else its register's value, else the column's default.
    private func values(_ row: RowRef, _ held: RowRegisters, overrides: [Int: SQLiteValue]) -> [SQLiteValue] {
        held.columns.enumerated().map { index, register in
            overrides[index] ?? register?.value ?? defaults[row.table]?[index] ?? .null
        }
    }

    /// The values `row` must show, column by column (stand-ins for `SET NULL` / `SET DEFAULT` parents
    /// that do not show, defaults for columns no write has set), or `nil` when it is parked or deleted.
    ///
    /// ```swift
    /// model.shownColumns(of: RowRef(table: "reminders", key: "r1"))   // ["l1", "milk", 0, 0]
    /// ```
    public func shownColumns(of row: RowRef) -> [SQLiteValue]? {
        guard case .shown(let overrides) = placement(of: row), let held = registers[row] else { return nil }
        return values(row, held, overrides: overrides)
    }

    /// The values `SET NULL` / `SET DEFAULT` keys put in place of parents that do not show, by column.
    private func standIns(_ row: RowRef, _ held: RowRegisters) -> [Int: SQLiteValue] {
        var overrides: [Int: SQLiteValue] = [:]
        for key in foreignKeys where key.child == row.table && !Self.hides(key.action) {
            guard let value = held.columns[key.column]?.value, !value.isNull,
                !visible.contains(RowRef(table: key.parent, key: key.parentKey(of: value)))
            else { continue }
            overrides[key.column] = key.action == .setNull ? .null : key.defaultValue
        }
        return overrides
    }

    /// A deleted row shows again while a child points at it through a RESTRICT / NO ACTION key written after
    /// the delete: an alive child, or a deleted one that a grandchild written after both deletes brings back.
    private func isRevived(_ row: RowRef, _ held: RowRegisters) -> Bool {
        guard let deleted = held.liveness.stamp else { return false }
        return isKept(row, after: deleted, path: [row])
    }

    /// Whether a child points at `row` through a RESTRICT / NO ACTION key by a write newer than `threshold`,
    /// followed down through deleted children (each newer than its own delete too), every chain tried.
    private func isKept(_ row: RowRef, after threshold: Stamp, path: Set<RowRef>) -> Bool {
        foreignKeys.filter { $0.parent == row.table && Self.revives($0.action) }.contains { key in
            registers.contains { child, registers in
                guard child.table == key.child, let link = registers.columns[key.column],
                    key.parentKey(of: link.value) == row.key
                else { return false }
                if registers.liveness.isAlive { return link.stamp > threshold }
                guard let deleted = registers.liveness.stamp, !path.contains(child) else { return false }
                return isKept(child, after: max(threshold, deleted), path: path.union([child]))
            }
        }
    }

    /// Whether a child needs its parent shown to show, by DESIGN.md's words for each action (`CASCADE`,
    /// `RESTRICT` and `NO ACTION` do; `SET NULL` and `SET DEFAULT` show a stand-in instead), read here
    /// rather than from `ForeignKey.Action`'s own answer, which a mistake in the engine would share.
    public static func hides(_ action: ForeignKey.Action) -> Bool {
        switch action {
        case .cascade, .restrict, .noAction: true
        case .setNull, .setDefault: false
        }
    }

    /// Whether a child written after its parent's delete brings the parent back: `RESTRICT` and `NO ACTION`.
    public static func revives(_ action: ForeignKey.Action) -> Bool {
        switch action {
        case .restrict, .noAction: true
        case .cascade, .setNull, .setDefault: false
        }
    }

    /// Where a row belongs: shown with stand-ins for `SET NULL` / `SET DEFAULT` parents that do not
    /// show, parked (alive, not shown, with a reason the model does not tell apart: a parent that
    /// does not show, or a NULL its NOT NULL columns refuse), or deleted.
    public func placement(of row: RowRef) -> ModelPlacement {
        guard let held = registers[row] else { return .deleted }
        guard visible.contains(row) else { return held.liveness.isAlive ? .parked : .deleted }
        return .shown(overrides: standIns(row, held))
    }
}

/// Where the reference model puts a row.
public enum ModelPlacement: Hashable, Sendable {
    /// Shown, with the values `SET NULL` / `SET DEFAULT` keys put in place of a parent that does not show (by column).
    case shown(overrides: [Int: SQLiteValue])
    /// Alive, but not shown: a parent it needs does not show, or its values do not fit the table (NULL
    /// in a column ``ReferenceModel/notNull`` names, or values ``ReferenceModel/accepts`` refuses).
    case parked
    /// Deleted (or never written).
    case deleted

    /// The same view of an engine's `Placement`.
    public init(_ placement: Placement, alive: Bool) {
        switch placement {
        case .shown(let overrides): self = .shown(overrides: overrides)
        case .hidden: self = alive ? .parked : .deleted
        }
    }
}
