@_spi(Simulation) import Concord
import ConcordTesting

/// The simulator's oracle: ConcordTesting's `ReferenceModel` over the ledger of the apps' writes, and
/// the checks that hold a replica to it (invariants 2 and 5 of DESIGN.md).
///
/// The model sees only what the apps did (each write's kind, values, stamp and
/// what its device had seen) and the schema the replica was given; never a
/// causal length, a liveness or a merged value the engine stored. So an engine
/// that gets a delete wrong — keeps the row alive, say — is caught even when
/// every replica agrees with it.
///
/// Built over an older release's schema (``init(schema:ledger:)``), it is the
/// projection of the newest model onto that schema: the same registers cut to
/// the tables and columns the release has, shown by that release's foreign
/// keys — what a device still on that release must hold and show.
///
/// ```swift
/// let oracle = try Oracle(schemaOf: replica, ledger: ledger)
/// if let difference = try oracle.tableDifference(on: replica) { print(difference) }
/// let (fates, loss) = try oracle.accountForWrites(on: replica)
/// ```
struct Oracle {
    let schema: OracleSchema
    /// The CHECK constraints the model holds rows to, when a table has one.
    let checks: CheckConstraints?
    let model: ReferenceModel
    let ledger: AppLedger

    /// The model of `ledger` under the schema `replica` syncs (its tables, foreign keys, NOT NULL columns
    /// and defaults).
    init(schemaOf replica: Replica, ledger: AppLedger) throws {
        self.init(schema: try OracleSchema(of: replica), ledger: ledger, checks: try CheckConstraints(of: replica))
    }

    /// The model of `ledger` under `schema` (a release's, from ``VersionSchemas``), whose tables' CHECK
    /// constraints, if any, `checks` judges.
    init(schema: OracleSchema, ledger: AppLedger, checks: CheckConstraints? = nil) {
        self.schema = schema
        self.checks = checks
        var accepts: (@Sendable (String, SQLiteValue, [SQLiteValue]) -> Bool)?
        if let checks {
            accepts = { @Sendable table, key, values in checks.accepts(table: table, key: key, values: values) }
        }
        model = ReferenceModel(
            tables: schema.tables, foreignKeys: schema.foreignKeys, ledger: ledger.ledger, notNull: schema.notNull,
            defaults: schema.defaults, functions: Workload.functionsByName, accepts: accepts)
        self.ledger = ledger
    }

    /// Invariant 2 as the app sees it: the first row of the schema's tables that `replica` shows otherwise
    /// than the model places it (shown with its stand-ins and defaults, or not shown when parked or deleted),
    /// described, saying who shows it as `shower` does; `nil` when none.
    func tableDifference(on replica: Replica, shower: String = "the devices show") throws -> String? {
        let shown = try TableSnapshot(of: replica, tables: schema.tables)
        // The model's values are as written; the device's columns show them under their own types.
        let stored = try ShownValues(of: replica, tables: schema.tables)
        let rows = Set(shown.rows.keys).union(model.registers.keys).sorted { ($0.table, $0.key) < ($1.table, $1.key) }
        for row in rows {
            let expected = try model.shownColumns(of: row).map { try stored.values($0, key: row.key, in: row.table) }
            guard shown[row] != expected else { continue }
            return "\(row): \(shower) \(shown[row]?.description ?? "no row"), the reference model expects "
                + "\(expected?.description ?? "no row") (\(model.placement(of: row)))"
        }
        return nil
    }

    /// Invariant 2 in the registers: the first row the ledger wrote whose registers in `replica` — causal
    /// length, liveness stamp, every column's value and stamp, every counter contribution — differ from the
    /// model's, described; `nil` when none does.
    func registerDifference(on replica: Replica) throws -> String? {
        for (row, expected) in model.registers.sorted(by: { ($0.key.table, $0.key.key) < ($1.key.table, $1.key.key) }) {
            let registers = try replica.registers(of: row.table, key: row.key)
            guard registers != expected else { continue }
            // A delete a trigger of the app made while Concord merged kept no values (see AppLedger).
            if let registers, ledger.deletedWithoutValues.contains(row), registers.liveness.causalLength % 2 == 0 {
                var lost = expected
                for (index, held) in registers.columns.enumerated()
                where held?.value == .null && held?.stamp == expected.columns[index]?.stamp {
                    lost.columns[index]?.value = .null
                }
                if registers == lost { continue }
            }
            let held = registers.map { "causal length \($0.liveness.causalLength): \($0)" } ?? "nothing"
            return "\(row): registers hold \(held), the reference model expects causal length "
                + "\(expected.liveness.causalLength): \(expected)"
        }
        return nil
    }

    /// Invariant 5: what became of each write in `replica` (counts by fate), and the first write that is
    /// none of visible, superseded, deleted or parked with a reason, described.
    func accountForWrites(on replica: Replica) throws -> (fates: [String: Int], loss: String?) {
        let parked = try replica.parkedReasons()
        var fates: [String: Int] = [:]
        for operation in ledger.ledger.operations {
            let written = "\(operation.row) (\(operation.kind)) written at step \(ledger.origins[operation.id].step)"
            guard let table = model.tables[operation.row.table],
                let final = try replica.registers(of: operation.row.table, key: operation.row.key)
            else { return (fates, "\(written) has no registers left") }
            if let lost = survivalProblem(operation, final, table) { return (fates, "\(written): \(lost)") }
            guard let fate = fate(of: operation, final, table, parked: parked) else {
                return (fates, "\(written) is alive but neither shown nor parked with a reason")
            }
            fates[fate, default: 0] += 1
        }
        return (fates, nil)
    }

    /// What became of `operation`: `deleted` (its row's life ended), `parked` (with a reason), `visible`
    /// (every value it wrote shows), or `superseded`; `nil` for a row alive, not shown, and not parked.
    func fate(of operation: Ledger.Operation, _ final: RowRegisters, _ table: TableSchema, parked: [RowRef: String])
        -> String?
    {
        if !final.liveness.isAlive || final.liveness.causalLength > model.causalLength(after: operation.id) {
            return "deleted"
        }
        guard case .shown = model.placement(of: operation.row) else {
            return parked[operation.row].flatMap { $0.isEmpty ? nil : "parked" }
        }
        let shows = operation.values.allSatisfy { index, value in
            switch table.policy == .row ? .lww : table.merges[index] {
            case .counter: true
            case .union: final.columns[index]?.value == ReferenceUnion.merge([value])
            default: final.columns[index]?.value == value
            }
        }
        return shows ? "visible" : "superseded"
    }

    /// Why `final` does not account for what `operation` wrote, or `nil` when it does.
    func survivalProblem(_ operation: Ledger.Operation, _ final: RowRegisters, _ table: TableSchema) -> String? {
        let life = model.causalLength(after: operation.id)
        if final.liveness.causalLength < life {
            return "causal length \(life) fell back to \(final.liveness.causalLength)"
        }
        let latest = final.columns.compactMap { $0?.stamp }.max()
        for (index, value) in operation.values.sorted(by: { $0.key < $1.key }) {
            guard let kept = final.columns[index] else { return "column \(table.columns[index]) was emptied" }
            let survives: Bool
            switch table.policy == .row ? .lww : table.merges[index] {
            case .lww, .custom: survives = (table.policy == .row ? latest ?? kept.stamp : kept.stamp) >= operation.stamp
            case .max: survives = kept.stamp >= operation.stamp || !(kept.value < value)
            case .min: survives = kept.stamp >= operation.stamp || !(value < kept.value)
            case .union: survives = ReferenceUnion.merge([kept.value, value]) == kept.value
            case .counter:
                survives = kept.contributions.contains {
                    $0.stamp.node == operation.node && ($0.causalLength, $0.stamp) >= (life, operation.stamp)
                }
            }
            if !survives {
                return "its \(table.columns[index]) = \(value) (\(operation.stamp)) is gone without a later write"
            }
        }
        return nil
    }
}
