import Concord
import Foundation

/// The invariants: safety after every step, then convergence, the oracle and
/// no silent loss once the liveness phase is over.
extension SimulationRun {
    /// Adds each device's new writes to the ledger; a device that stamped writes without its app writing has captured a merge.
    func collectWrites(actor: Int?) throws {
        for device in devices {
            let fresh = try ledger.collect(
                from: device.replica, node: device.node, newest: &device.newestOwnStamp,
                version: &device.ledgerVersion, step: step)
            guard !fresh.isEmpty else { continue }
            if device.index != actor {
                fail(
                    .ownStamps,
                    "device \(device.index) stamped \(fresh.count) rows as its own writes though its app "
                        + "wrote nothing (first: \(fresh[0].table)/\(fresh[0].key))")
                return
            }
            if case .write(let sql) = plan.steps[step].action {
                // Rows deleted in tables other than the one the statement names were deleted by a cascade.
                let target = Self.table(writtenBy: sql)
                result.cascades += fresh.filter { $0.table != target && !$0.registers.liveness.isAlive }.count
            }
        }
    }

    /// The table an INSERT, UPDATE or DELETE statement names.
    static func table(writtenBy sql: String) -> String? {
        let words = sql.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let keyword = words.firstIndex(where: { ["INTO", "UPDATE", "FROM"].contains($0.uppercased()) }),
            keyword + 1 < words.count
        else { return nil }
        return words[keyword + 1].trimmingCharacters(in: CharacterSet(charactersIn: "\"`[]("))
    }

    /// Safety on one device: SQLite's checks, tables equal to the projection, and a clock that never goes back.
    func check(_ device: SimulatedDevice) throws {
        let report = try device.replica.check()
        if !report.isConsistent {
            fail(.safety, "device \(device.index): \(report.problems.map(\.description).joined(separator: "; "))")
            return
        }
        let clock = try device.replica.clock.last
        if let previous = device.lastClock, clock < previous {
            fail(.safety, "device \(device.index): clock went back from \(previous) to \(clock)")
        }
        device.lastClock = clock
        let parked = Set(try device.replica.status().parked.map { "\($0.table)/\($0.key)" })
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
                    + firstDifference(dumps[0], dumps[odd]))
            return
        }
        result.converged = true
        let model = try ReferenceModel(schemaOf: devices[0].replica, ledger: ledger)
        try compare(devices[0], with: model)
        if result.failure == nil { try accountForWrites(on: devices[0], model: model) }
    }

    /// Invariant 2: the common state is the one the semantics prescribe.
    private func compare(_ device: SimulatedDevice, with model: ReferenceModel) throws {
        for table in model.tables.keys.sorted() {
            let description = model.tables[table]!
            let columns = ([description.key] + description.columns).map { "\"\($0)\"" }.joined(separator: ", ")
            var shown: [SQLiteValue: [SQLiteValue]] = [:]
            for row in try device.replica.database.query("SELECT \(columns) FROM \"\(table)\" ORDER BY 1") {
                shown[row[0]] = row
            }
            let expected = model.visibleRows(of: table)
            for key in Set(shown.keys).union(expected.keys).sorted() where shown[key] != expected[key] {
                fail(
                    .oracle,
                    "\(table)/\(key): the devices show \(shown[key]?.description ?? "no row"), "
                        + "the reference model expects \(expected[key]?.description ?? "no row")")
                return
            }
        }
        for (id, row) in model.rows.sorted(by: { $0.key < $1.key }) {
            let registers = try device.replica.registers(of: id.table, key: id.key)
            let values = registers?.columns.map { $0?.value }
            if registers?.liveness.causalLength != row.causalLength || values != row.values {
                fail(
                    .oracle,
                    "\(id.table)/\(id.key): registers hold causal length "
                        + "\(registers?.liveness.causalLength ?? 0) and \(values ?? []), the reference model expects "
                        + "\(row.causalLength) and \(row.values)")
                return
            }
        }
    }

    /// Invariant 5: each accepted write is visible, superseded, deleted, or parked with a reason.
    private func accountForWrites(on device: SimulatedDevice, model: ReferenceModel) throws {
        let parked = Dictionary(
            try device.replica.status().parked.map { ("\($0.table)/\($0.key)", $0.reason) },
            uniquingKeysWith: { first, _ in first })
        for entry in ledger.entries {
            guard let table = model.tables[entry.table],
                let final = try device.replica.registers(of: entry.table, key: entry.key)
            else {
                fail(.loss, "\(entry.table)/\(entry.key) written at step \(entry.step) has no registers left")
                return
            }
            if let lost = survivalProblem(entry, final, table) {
                fail(.loss, "\(entry.table)/\(entry.key) written at step \(entry.step): \(lost)")
                return
            }
            let fate: String
            if !final.liveness.isAlive || final.liveness.causalLength > entry.registers.liveness.causalLength {
                fate = "deleted"
            } else if !model.isVisible(entry.table, entry.key) {
                guard let reason = parked["\(entry.table)/\(entry.key.textValue ?? entry.key.description)"],
                    !reason.isEmpty
                else {
                    fail(
                        .loss,
                        "\(entry.table)/\(entry.key) written at step \(entry.step) is alive but neither shown "
                            + "nor parked with a reason")
                    return
                }
                fate = "parked"
            } else if zip(entry.registers.columns, final.columns).allSatisfy({ $0?.value == $1?.value }) {
                fate = "visible"
            } else {
                fate = "superseded"
            }
            result.fates[fate, default: 0] += 1
        }
    }

    /// Why `final` does not account for what `entry` wrote, or `nil` when it does.
    private func survivalProblem(_ entry: WriteLedger.Entry, _ final: RowRegisters, _ table: ReferenceModel.Table)
        -> String?
    {
        if final.liveness.causalLength < entry.registers.liveness.causalLength {
            return "causal length \(entry.registers.liveness.causalLength) fell back to \(final.liveness.causalLength)"
        }
        for (index, cell) in entry.registers.columns.enumerated() {
            guard let cell, cell.stamp.node == entry.node else { continue }
            guard let kept = final.columns[index] else { return "column \(table.columns[index]) was emptied" }
            let survives: Bool
            switch table.row ? .lww : table.merges[index] {
            case .lww, .custom:
                survives = (table.row ? final.columns.compactMap { $0?.stamp }.max()! : kept.stamp) >= cell.stamp
            case .max: survives = kept.stamp >= cell.stamp || !(kept.value < cell.value)
            case .min: survives = kept.stamp >= cell.stamp || !(cell.value < kept.value)
            case .union: survives = UnionValue.merge(kept.value, cell.value) == kept.value
            case .counter:
                survives = cell.contributions.filter { $0.stamp.node == entry.node }.allSatisfy { mine in
                    kept.contributions.contains {
                        $0.stamp.node == mine.stamp.node
                            && ($0.causalLength, $0.stamp) >= (mine.causalLength, mine.stamp)
                    }
                }
            }
            if !survives {
                return "its \(table.columns[index]) = \(cell.value) (\(cell.stamp)) is gone without a later write"
            }
        }
        return nil
    }

    /// The first line where two dumps differ, with its neighbours.
    private func firstDifference(_ a: String, _ b: String) -> String {
        let (left, right) = (
            a.split(separator: "\n", omittingEmptySubsequences: false),
            b.split(separator: "\n", omittingEmptySubsequences: false)
        )
        let index = (0..<min(left.count, right.count)).first { left[$0] != right[$0] } ?? min(left.count, right.count)
        func line(_ lines: [Substring]) -> String { index < lines.count ? String(lines[index]) : "(end)" }
        return "  device 0: \(line(left))\n  other:    \(line(right))"
    }
}
