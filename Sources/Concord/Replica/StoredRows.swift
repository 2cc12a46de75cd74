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
    private var parkedRowsExist: Bool?

    init(replica: Replica) { self.replica = replica }

    /// The stored row, loaded once.
    func stored(_ row: RowRef) throws -> RegisterStore.StoredRow? {
        if let known = rows[row] { return known }
        let loaded = try replica.syncedTables[row.table].flatMap { try replica.store($0).load(row.key) }
        rows[row] = loaded
        return loaded
    }

    /// Records registers just merged (not yet materialized) for `row`, stored under `version`.
    func remember(_ row: RowRef, _ registers: RowRegisters, version: Int64, previous: RegisterStore.StoredRow?) {
        if before.index(forKey: row) == nil { before[row] = .some(previous?.registers) }
        rows[row] = RegisterStore.StoredRow(
            registers: registers, shown: previous?.shown ?? false,
            hasHiddenValues: previous?.hasHiddenValues ?? false, version: version, seen: previous?.seen)
    }

    /// The registers `row` had before it was first merged here; `nil` when it was not merged (`.some(nil)`: new).
    func registersBeforeMerge(_ row: RowRef) -> RowRegisters?? { before[row] }

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

    func keys(referencing parent: RowRef, through key: ForeignKey) throws -> [SQLiteValue] {
        try replica.childKeys(of: parent, through: key)
    }

    func constraint(of row: RowRef) throws -> String? {
        try mayHaveParkedRows() ? try replica.constraintParking(row) : nil
    }
}
