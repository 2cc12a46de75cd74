@_spi(Simulation) import Concord
import ConcordTesting

extension Oracle {
    /// Invariant 5's "parked with a reason that `concord status` reports", held to the model: the first
    /// parked row whose reported reason is not one the model gives it, described; `nil` when every one is.
    ///
    /// Why: a user reads the reason to know what to do (wait for a parent that never arrived, or restore
    /// one that was deleted), so a reason that names the wrong parent, or calls a deleted parent missing,
    /// misleads as much as a lost row. The model gives, for each hiding foreign key whose parent it does
    /// not show, "missing parent" when no device ever wrote that parent and "parent … is not visible" or
    /// "on a cycle through …" otherwise, and a constraint's message when a NOT NULL column would show
    /// NULL; the engine may report any one of them (which parent it names first is its choice).
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
            if expected.contains(reason) || (reason.hasPrefix(constraint) && refusesNull(row)) { continue }
            let listed = expected.map { "'\($0)'" }.joined(separator: " or ")
            return "\(row) is parked because '\(reason)', but the reference model gives "
                + (listed.isEmpty ? "no parent that keeps it hidden" : listed)
        }
        return nil
    }

    /// The parent reasons the model allows for `row`, one or two per hiding key whose parent it does not show.
    private func reasons(for row: RowRef, _ held: RowRegisters) -> [String] {
        schema.foreignKeys.filter { $0.child == row.table && $0.action.hidesChild }.flatMap { key -> [ParkReason] in
            guard let value = held.columns[key.column]?.value, !value.isNull else { return [] }
            let parent = RowRef(table: key.parent, key: value)
            if case .shown = model.placement(of: parent) { return [] }
            guard model.registers[parent] != nil else { return [.missingParent(table: key.parent, key: value)] }
            return [.hiddenParent(table: key.parent, key: value), .onCycle(table: key.parent, key: value)]
        }.map(\.description)
    }

    /// Whether `row`'s table has NOT NULL columns, so a constraint may keep it from showing.
    private func refusesNull(_ row: RowRef) -> Bool {
        !(schema.notNull[row.table] ?? []).isEmpty
    }
}
