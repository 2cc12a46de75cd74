@_spi(Simulation) import Concord
import Foundation

/// The invariants: safety after every step, then convergence, the oracle and
/// no silent loss once the liveness phase is over.
extension SimulationRun {
    /// Records the acting device's accepted statement in the ledger, one operation per row it stamped;
    /// any other device that stamped writes of its own without its app writing has captured a merge.
    ///
    /// `only` limits the look to the devices a step touched (its actor and those it delivered to):
    /// reading a device's changes folds its log and exports every table, the costliest part of a step,
    /// and a device nothing ran on has stamped nothing. Its changes are read the next time it is touched.
    func collectWrites(only: Set<Int>? = nil) throws {
        let written = statement
        statement = nil
        for device in devices where only?.contains(device.index) ?? true {
            let touched = try OwnWrite.collect(
                from: device.replica, node: device.node, newest: &device.newestOwnStamp,
                version: &device.ledgerVersion)
            if let written, written.device == device.index,
                let missed = written.statement.firstCascadeUnstamped(in: touched)
            {
                return fail(
                    .oracle,
                    "device \(device.index)'s app deleted rows with foreign keys off (\(written.statement.sql)): "
                        + "\(missed) showed through an ON DELETE CASCADE key to one of them, so Concord must delete "
                        + "it as this device's write, but stamped nothing on it")
            }
            guard !touched.isEmpty else { continue }
            guard let written, written.device == device.index else {
                fail(
                    .ownStamps,
                    "device \(device.index) stamped \(touched.count) rows as its own writes though its app "
                        + "wrote nothing (first: \(touched[0].row))")
                return
            }
            if let physical = written.statement.physical,
                let early = touched.first(where: {
                    Int64($0.stamp.hlc.milliseconds) < min(max(physical, 0), 1 << 47 - 1)
                })
            {
                fail(
                    .safety,
                    "device \(device.index) stamped \(early.row) at \(early.stamp.hlc.milliseconds) ms, before its clock's "
                        + "reading of \(physical) ms when its app wrote it: a stamp is never older than its write")
                return
            }
            let tables = Dictionary(uniqueKeysWithValues: device.replica.tables.map { ($0.name, $0.schema) })
            // Read only when a row-policy row was written: what its SET NULL / SET DEFAULT columns hold.
            let standIns =
                touched.contains { tables[$0.row.table]?.policy == .row }
                ? Dictionary(
                    grouping: try OracleSchema(of: device.replica).foreignKeys.filter { !$0.action.hidesChild },
                    by: \.child
                ).mapValues { Set($0.map(\.column)) } : [:]
            let operations = ledger.record(
                written.statement, touched: touched, tables: tables, standIns: standIns, node: device.node,
                origin: .init(step: step, device: device.index), knowledge: &device.knowledge)
            // Rows deleted in tables other than the one the statement names were deleted by a cascade.
            result.cascades += operations.filter { $0.row.table != written.statement.table && $0.kind == .delete }.count
            try observeWrites(operations, on: device)
        }
    }

    /// Safety on one device: SQLite's checks, tables equal to the projection, and a clock that never goes back.
    ///
    /// With `full` false (a step between the scenario's full checks, see
    /// ``Scenario/Checks``) only the cheap part runs: the clock and the parked rows.
    func check(_ device: SimulatedDevice, full: Bool = true) throws {
        if full {
            let report = try device.replica.check()
            if !report.isConsistent {
                fail(.safety, "device \(device.index): \(report.problems.map(\.description).joined(separator: "; "))")
                return
            }
        }
        let clock = try device.replica.clock.last
        if let previous = device.lastClock, clock < previous {
            fail(.safety, "device \(device.index): clock went back from \(previous) to \(clock)")
        }
        device.lastClock = clock
        let parked = Set(try device.replica.parkedReasons().keys)
        result.parked += parked.subtracting(device.parked).count
        result.unparked += device.parked.subtracting(parked).count
        device.parked = parked
    }

    /// After the liveness phase: every device checked, identical, equal to the oracle, and nothing lost.
    func finalChecks() throws {
        for device in devices where result.failure == nil { try check(device) }
        guard result.failure == nil else { return }
        let dumps = try devices.map { try $0.replica.canonicalDump() }
        if let odd = dumps.indices.first(where: { dumps[$0] != dumps[0] }) {
            fail(
                .convergence,
                "device \(odd) differs from device 0 after the liveness phase:\n"
                    + firstDifference(dumps[0], dumps[odd], labels: ("device 0", "device \(odd)")))
            return
        }
        result.converged = true
        let replica = devices[0].replica
        let oracle = try Oracle(schemaOf: replica, ledger: ledger)
        if let difference = try oracle.tableDifference(on: replica) ?? oracle.registerDifference(on: replica) {
            fail(.oracle, difference)
            return
        }
        let accounted = try oracle.accountForWrites(on: replica)
        for (fate, count) in accounted.fates { result.fates[fate, default: 0] += count }
        if let loss = accounted.loss { return fail(.loss, loss) }
        if let problem = try oracle.parkReasonProblem(on: replica) { fail(.oracle, problem) }
    }

    /// The first line where two dumps differ, each side labelled.
    func firstDifference(_ a: String, _ b: String, labels: (String, String) = ("device 0", "other")) -> String {
        let (left, right) = (
            a.split(separator: "\n", omittingEmptySubsequences: false),
            b.split(separator: "\n", omittingEmptySubsequences: false)
        )
        let index = (0..<min(left.count, right.count)).first { left[$0] != right[$0] } ?? min(left.count, right.count)
        func line(_ lines: [Substring]) -> String { index < lines.count ? String(lines[index]) : "(end)" }
        let width = max(labels.0.count, labels.1.count) + 1
        func label(_ text: String) -> String { (text + ":").padding(toLength: width, withPad: " ", startingAt: 0) }
        return "  \(label(labels.0)) \(line(left))\n  \(label(labels.1)) \(line(right))"
    }
}
