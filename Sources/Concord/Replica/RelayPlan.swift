@_spi(Testing) import ConcordCore

/// How one changeset table that does not sync here maps onto what the ``RelayStore`` keeps of it.
///
/// A newer peer's table this replica's schema lacks (or a table it has but
/// does not sync) is not refused: its rows are merged into the relayed rows,
/// whose columns are every column any peer declared (``declared``), so the
/// rows can be passed on and shown once a migration adds the table.
///
/// ```swift
/// let plan = try RelayPlan(remote: schema, stored: relay.declaration(of: schema.name), functions: merges)
/// let registers = plan.declaredRegisters(row.registers)
/// ```
struct RelayPlan {
    /// The table as the changeset declares it.
    let remote: TableSchema
    /// Everything peers declared of the table, the changeset's declaration included.
    let declared: TableSchema
    /// For each declared column, its position in the changeset's column list.
    let positions: [Int?]
    let rules: RowMerge.Rules

    /// The plan of `remote`, given what was declared of its table before (`nil`: nothing).
    init(remote: TableSchema, stored: TableSchema?, functions: [String: MergeFunction]) throws {
        self.remote = remote
        declared = try RelayStore.union(stored, remote)
        positions = declared.columns.map { column in remote.columns.firstIndex { SQLiteName.same($0, column) } }
        rules = RowMerge.Rules(policy: declared.policy, merges: declared.merges, functions: functions)
    }

    /// The changeset row's registers in the order of the declared columns.
    func declaredRegisters(_ registers: RowRegisters) -> RowRegisters {
        RowRegisters(liveness: registers.liveness, columns: positions.map { $0.flatMap { registers.columns[$0] } })
    }
}
