/// The ``RowGraph`` of a replica: registers read from its register tables, each row loaded once.
///
/// Rows an apply has merged but not yet materialized are remembered here
/// (``remember(_:_:version:previous:)``), so visibility — and a second copy
/// of the same key in the same changeset — sees them as merged.
final class StoredRows: RowGraph {
    /// Held for the one reprojection that made this.
    let replica: Replica
    private var rows: [RowRef: RegisterStore.StoredRow?] = [:]
    /// The registers merged rows had before their first merge here (`nil` inside: the row was new).
    private var before: [RowRef: RowRegisters?] = [:]
    /// The keys of merged rows by the value a column of theirs holds: the tables learn it only when the
    /// row is materialized (see ``keys(referencing:through:)``).
    private var merged: [Reference: Set<SQLiteValue>] = [:]
    private var parkedRowsExist: Bool?

    /// A value in a column of a table.
    private struct Reference: Hashable {
        let table: String
        let column: Int
        let value: SQLiteValue
    }

    init(replica: Replica) { self.replica = replica }

    /// The stored row, loaded once.
    func stored(_ row: RowRef) throws -> RegisterStore.StoredRow? {
        if let known = rows[row] { return known }
        let loaded = try replica.syncedTables[row.table].flatMap { try replica.store($0).load(row.key) }
        rows[row] = loaded
        return loaded
    }

    /// Records registers just merged (not yet materialized) for `row`, stored under `version`.
    func remember(
        _ row: RowRef, _ registers: RowRegisters, version: Int64, previous: RegisterStore.StoredRow?
    ) throws {
        if before.index(forKey: row) == nil { before[row] = .some(previous?.registers) }
        for key in replica.parents(of: row.table) {
            guard let value = registers.columns[key.column]?.value, !value.isNull else { continue }
            let named = try replica.parentKey(of: value, through: key)
            merged[Reference(table: row.table, column: key.column, value: named), default: []].insert(row.key)
        }
        rows[row] = RegisterStore.StoredRow(
            registers: registers, shown: previous?.shown ?? false,
            hasHiddenValues: previous?.hasHiddenValues ?? false, version: version, seen: previous?.seen)
    }

    /// The registers `row` had before it was first merged here, or before the fold that made this reprojection
    /// changed it (see ``rememberBeforeFold(_:)``); `nil` when it was neither (`.some(nil)`: new).
    func registersBefore(_ row: RowRef) -> RowRegisters?? { before[row] }

    /// Records the registers rows a fold changed had before it, which the stored rows no longer hold.
    ///
    /// Why: a child the app moved away from a deleted parent it had kept (brought back, and parked there
    /// for a missing parent of its own) left that parent parked, its registers saying deleted and kept by
    /// nothing (`batched-wide` seed 15000419): a changed row's former `RESTRICT` parent is looked at again
    /// only when its registers before are known, as they are for a merge.
    func rememberBeforeFold(_ registers: [RowRef: RowRegisters]) {
        for (row, old) in registers where before.index(forKey: row) == nil { before[row] = .some(old) }
    }

    /// Records where a row's values are after it was materialized.
    func materialized(_ row: RowRef, _ stored: RegisterStore.StoredRow, at placement: Placement) {
        rows[row] = RegisterStore.StoredRow(
            registers: stored.registers, shown: placement.isShown,
            hasHiddenValues: placement != .shown && stored.registers.columns.contains { $0 != nil },
            version: stored.version, seen: stored.seen)
        if case .hidden(_?) = placement { parkedRowsExist = true }
    }

    /// Whether any row is parked; when none is, no row needs unparking.
    func mayHaveParkedRows() throws -> Bool {
        if let known = parkedRowsExist { return known }
        let known = try replica.parkedRowsExist()
        parkedRowsExist = known
        return known
    }

    // MARK: RowGraph

    func registers(of row: RowRef) throws -> RowRegisters? { try stored(row)?.registers }

    func parents(of table: String) -> [ForeignKey] { replica.parents(of: table) }

    func children(of table: String) -> [ForeignKey] { replica.children(of: table) }

    /// The children's keys as the tables show them, corrected for the rows merged here: until a merged
    /// row is materialized, its table still holds its old values (or nothing, for a new row).
    ///
    /// Why: a parent brought back by a child merged in this apply, while the child that brought it back
    /// before moves away, was else decided hidden for the new child, which then stayed parked.
    func keys(referencing parent: RowRef, through key: ForeignKey) throws -> [SQLiteValue] {
        let shown = try replica.childKeys(of: parent, through: key)
        guard !before.isEmpty else { return shown }
        let candidates = merged[Reference(table: key.child, column: key.column, value: parent.key)] ?? []
        return try Set(shown).union(candidates).filter { child in
            let row = RowRef(table: key.child, key: child)
            guard before[row] != nil else { return true }
            guard let value = try registers(of: row)?.columns[key.column]?.value else { return false }
            return try parentKey(of: value, through: key) == parent.key
        }.sorted()
    }

    func parentKey(of value: SQLiteValue, through key: ForeignKey) throws -> SQLiteValue {
        try replica.parentKey(of: value, through: key)
    }

    func constraint(of row: RowRef) throws -> String? {
        try mayHaveParkedRows() ? try replica.constraintParking(row) : nil
    }
}
