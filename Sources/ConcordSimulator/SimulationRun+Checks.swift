@_spi(Simulation) import Concord
import Foundation

/// The invariants: safety after every step, then convergence, the oracle and
/// no silent loss once the liveness phase is over.
extension SimulationRun {
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
