@_spi(Simulation) import Concord
import ConcordTesting

extension Oracle {
    /// Invariant 5's "parked with a reason that `concord status` reports", held to the model: the first
    /// parked row whose reported reason is not one the model gives it, described; `nil` when every one is.
    ///
    /// Why: a user reads the reason to know what to do (wait for a parent that never arrived, or restore
    /// one that was deleted), so a reason that names the wrong parent, or calls a deleted parent missing,
    /// misleads as much as a lost row. The model gives, for each hiding foreign key whose parent it does
    /// not show, "missing parent" when no device ever wrote that parent, "on a cycle through …" when
    /// that parent's own hiding keys lead back to the row, and "parent … is not visible" otherwise; and
    /// a constraint's message where NOT NULL columns may refuse a NULL or a CHECK may refuse the values.
    /// The engine may report any one of them (which parent it names first is its choice).
    ///
    /// ```swift
    /// if let problem = try oracle.parkReasonProblem(on: replica) { print(problem) }
    /// ```
    func parkReasonProblem(on replica: Replica) throws -> String? {
        let reported = try replica.parkedReasons()
        let constraint = ParkReason.constraint("").description
        for (row, held) in model.registers.sorted(by: { ($0.key.table, $0.key.key) < ($1.key.table, $1.key.key) }) {
            guard model.placement(of: row) == .parked, let reason = reported[row] else { continue }
            let expected = reasons(for: row, held)
            if expected.contains(reason) || (reason.hasPrefix(constraint) && mayRefuse(row)) { continue }
            let listed = expected.map { "'\($0)'" }.joined(separator: " or ")
            return "\(row) is parked because '\(reason)', but the reference model gives "
                + (listed.isEmpty ? "no parent that keeps it hidden" : listed)
        }
        return nil
    }

    /// The parent reasons the model allows for `row`, one or two per hiding key whose parent it does not show.
    private func reasons(for row: RowRef, _ held: RowRegisters) -> [String] {
        schema.foreignKeys.filter { $0.child == row.table && ReferenceModel.hides($0.action) }.flatMap {
            key -> [ParkReason] in
            guard let value = held.columns[key.column]?.value, !value.isNull else { return [] }
            let parent = RowRef(table: key.parent, key: key.parentKey(of: value))
            if case .shown = model.placement(of: parent) { return [] }
            guard model.registers[parent] != nil else { return [.missingParent(table: parent.table, key: parent.key)] }
            return leadsBack(from: parent, to: row)
                ? [.onCycle(table: parent.table, key: parent.key)]
                : [.hiddenParent(table: parent.table, key: parent.key)]
        }.map(\.description) + defaultReasons(for: row, held)
    }

    /// The reasons a `SET DEFAULT` stand-in gives: its parent does not show, and the default names a row that
    /// does not show either.
    private func defaultReasons(for row: RowRef, _ held: RowRegisters) -> [String] {
        schema.foreignKeys.filter { $0.child == row.table && $0.action == .setDefault }.compactMap { key in
            guard let value = held.columns[key.column]?.value, !value.isNull, !key.defaultValue.isNull else {
                return nil
            }
            let parent = RowRef(table: key.parent, key: key.parentKey(of: value))
            let named = RowRef(table: key.parent, key: key.parentKey(of: key.defaultValue))
            if case .shown = model.placement(of: parent) { return nil }
            if case .shown = model.placement(of: named) { return nil }
            return
                (model.registers[named] == nil
                ? ParkReason.missingParent(table: named.table, key: named.key)
                : .hiddenParent(table: named.table, key: named.key)).description
        }
    }

    /// Whether hiding keys, followed up from `start` through rows that are alive or shown (brought back),
    /// lead to `target`: then `start` is not shown because of a cycle through `target`.
    private func leadsBack(from start: RowRef, to target: RowRef) -> Bool {
        var seen: Set<RowRef> = [start]
        var pending = [start]
        while let row = pending.popLast() {
            guard let held = model.registers[row] else { continue }
            if !held.liveness.isAlive, case .deleted = model.placement(of: row) { continue }
            for key in schema.foreignKeys where key.child == row.table && ReferenceModel.hides(key.action) {
                guard let value = held.columns[key.column]?.value, !value.isNull else { continue }
                let parent = RowRef(table: key.parent, key: key.parentKey(of: value))
                if parent == target { return true }
                if seen.insert(parent).inserted { pending.append(parent) }
            }
        }
        return false
    }

    /// Whether `row`'s table has NOT NULL columns or CHECK constraints, so a constraint may keep it from showing.
    private func mayRefuse(_ row: RowRef) -> Bool {
        !(schema.notNull[row.table] ?? []).isEmpty || checks?.constrains(table: row.table) == true
    }
}
