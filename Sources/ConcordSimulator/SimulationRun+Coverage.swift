@_spi(Testing) import Concord
import ConcordTesting

/// Where a run observes the ``CoverageEvent``s it reaches, from what it already has.
///
/// Events the result already counts (cascades, parked rows, forks, …) are
/// copied from those counts when the run finishes. The rest are observed here,
/// from the ledger of the apps' writes, what each device knew, and the apply
/// reports; the disk events where crashes happen (`SimulationRun+Crashes.swift`).
/// Observing only reads: nothing is logged to the trace and no device writes,
/// so a seed's trace and database files are the same as without coverage.
///
/// ```swift
/// let operations = ledger.record(statement, touched: touched, ...)
/// try observeWrites(operations, on: device)
/// ```
extension SimulationRun {
    /// Copies the events the result counts already into its coverage.
    func recordCountedEvents() {
        let counted: [(CoverageEvent, Int)] = [
            (.cascade, result.cascades), (.parked, result.parked), (.serverRecordChanged, result.serverRecordChanged),
            (.clockJump, result.clockJumps), (.driftRefusal, result.driftRefusals), (.powerLoss, result.powerLosses),
            (.fork, result.forks), (.restore, result.restores), (.upgrade, result.upgrades),
            (.hostileRefused, result.hostileRefused), (.hostileAccepted, result.hostileAccepted),
        ]
        for (event, count) in counted { result.coverage[event] = count }
    }

    /// Observes what `device`'s app just wrote: increments concurrent with another device's, and deletes of
    /// a parent whose `CASCADE` child was written elsewhere and had not reached the device.
    func observeWrites(_ operations: [Ledger.Operation], on device: SimulatedDevice) throws {
        let tables = Dictionary(uniqueKeysWithValues: device.replica.tables.map { ($0.name, $0.schema) })
        for operation in operations where operation.kind == .update {
            guard let table = tables[operation.row.table], table.policy == .column else { continue }
            let counters = table.merges.indices.filter { table.merges[$0] == .counter && increments(operation, $0) }
            if counters.contains(where: { concurrentIncrement(to: operation, column: $0) }) {
                result.coverage.record(.concurrentCounterIncrements)
            }
        }
        let deletes = operations.filter { $0.kind == .delete }
        guard !deletes.isEmpty else { return }
        let cascades = try foreignKeys(of: device).filter { $0.action == .cascade }
        for delete in deletes {
            let children = cascades.filter { $0.parent == delete.row.table }
            let unseen = ledger.ledger.operations.contains { write in
                write.kind != .delete && !device.knowledge.of(write.row).contains(write.id)
                    && children.contains { $0.child == write.row.table && write.values[$0.column] == delete.row.key }
            }
            if unseen { result.coverage.record(.cascadeWhileChildInFlight) }
        }
    }

    /// Whether `operation` changed the counter in column `column` (its value there is the change it made).
    private func increments(_ operation: Ledger.Operation, _ column: Int) -> Bool {
        guard let change = operation.values[column] else { return false }
        return change != .integer(0) && change != .null
    }

    /// Whether another node incremented the same cell before `operation` without its writer having seen it.
    private func concurrentIncrement(to operation: Ledger.Operation, column: Int) -> Bool {
        ledger.ledger.operations[..<operation.id].contains { other in
            other.row == operation.row && other.kind == .update && other.node != operation.node
                && !operation.seen.contains(other.id) && increments(other, column)
        }
    }

    /// Observes what an apply did on `device`: parked rows shown again, and deleted rows brought back.
    ///
    /// A row counts as parked when the last check saw it parked, or when an apply reported it parked
    /// and no apply reported anything else of it since: a child that arrives before its parent within
    /// one fetch is parked and shown again before any check looks.
    func observeApply(_ report: ApplyReport, on device: SimulatedDevice) throws {
        guard !report.changes.isEmpty else { return }
        let revivable = Set(try foreignKeys(of: device).filter(\.action.revivesParent).map(\.parent))
        for table in report.changes.tables {
            var parked = parkedByApply[device.index, default: []]
            for change in ShownChange.allCases {
                for row in table.keys(change).map({ RowRef(table: table.name, key: $0) }) {
                    if change == .shownAgain && (parked.contains(row) || device.parked.contains(row)) {
                        result.coverage.record(.parkedThenShown)
                    }
                    if change == .parked { parked.insert(row) } else { parked.remove(row) }
                }
            }
            parkedByApply[device.index] = parked
            guard revivable.contains(table.name) else { continue }
            for key in table.keys(.inserted) + table.keys(.shownAgain) {
                if let registers = try device.replica.registers(of: table.name, key: key), !registers.liveness.isAlive {
                    result.coverage.record(.restrictRevival)
                }
            }
        }
    }

    /// The foreign keys between synced tables that `device`'s release declares, read once per release.
    private func foreignKeys(of device: SimulatedDevice) throws -> [ForeignKey] {
        if let known = foreignKeysByVersion[device.version] { return known }
        let keys = try OracleSchema(of: device.replica).foreignKeys
        foreignKeysByVersion[device.version] = keys
        return keys
    }
}
