/// The merge of two replicas' registers for one row: pure, total and deterministic.
///
/// The SQLite shell loads the local registers, asks this type what the merged
/// registers are, and writes back only when something changed. Nothing here
/// does I/O, so the semantics can be read and tested in isolation.
///
/// ```swift
/// let rules = RowMerge.Rules(policy: .column, merges: [.lww, .counter])
/// let outcome = RowMerge.merge(local: stored, remote: incoming, rules: rules)
/// if outcome.changed { try store(outcome.merged) }
/// ```
public enum RowMerge {
    /// How a table merges: its policy, each column's merge, and the user-defined joins.
    public struct Rules: Sendable {
        /// Whether columns merge one by one or the row as a whole.
        public var policy: TablePolicy
        /// Each column's merge, lined up with the registers' columns.
        public var merges: [ColumnMerge]
        /// The user-defined merges, by name, that `.custom` merges refer to.
        public var functions: [String: MergeFunction]

        /// The rules of a table; `functions` is needed only when a merge is `.custom`.
        public init(policy: TablePolicy, merges: [ColumnMerge], functions: [String: MergeFunction] = [:]) {
            self.policy = policy
            self.merges = merges
            self.functions = functions
        }
    }

    /// What a merge decided.
    public struct Outcome: Hashable, Sendable {
        /// The registers after the merge.
        public var merged: RowRegisters
        /// Whether `merged` differs from the local registers.
        public var changed: Bool

        /// An outcome with these registers and this verdict.
        public init(merged: RowRegisters, changed: Bool) {
            self.merged = merged
            self.changed = changed
        }
    }

    /// Merges `remote` into `local` (absent when this replica never saw the row).
    ///
    /// Both must list the same columns in the same order as `rules.merges`.
    public static func merge(local: RowRegisters?, remote: RowRegisters, rules: Rules) -> Outcome {
        guard let local else {
            var merged = remote
            settle(&merged, rules)
            return Outcome(merged: merged, changed: true)
        }
        precondition(local.columns.count == remote.columns.count, "registers of different column lists")
        var merged = local
        merged.liveness = mergeLiveness(local.liveness, remote.liveness)
        switch rules.policy {
        case .column:
            for index in merged.columns.indices {
                merged.columns[index] = mergeColumn(
                    local.columns[index], remote.columns[index],
                    rules.merges[index], rules.functions)
            }
        case .row:
            if let theirs = rowStamp(remote),
                rowStamp(local).map({ theirs > $0 || (theirs == $0 && rowValues(remote, before: local) == false) })
                    ?? true
            {
                merged.columns = remote.columns
            }
        }
        settle(&merged, rules)
        return Outcome(merged: merged, changed: merged != local)
    }

    /// The larger causal length; between equal lengths, the higher stamp.
    public static func mergeLiveness(_ a: Liveness, _ b: Liveness) -> Liveness {
        if a.causalLength != b.causalLength { return a.causalLength > b.causalLength ? a : b }
        switch (a.stamp, b.stamp) {
        case (let x?, let y?): return y > x ? b : a
        case (nil, _?): return b
        default: return a
        }
    }

    /// Merges one column's registers under `merge`.
    public static func mergeColumn(
        _ a: ColumnRegister?, _ b: ColumnRegister?, _ merge: ColumnMerge = .lww,
        _ functions: [String: MergeFunction] = [:]
    ) -> ColumnRegister? {
        guard let a else { return b }
        guard let b else { return a }
        // Two different writes never share a stamp, unless a peer forged or cloned one: then the values decide.
        let newer =
            b.stamp > a.stamp || (b.stamp == a.stamp && SQLiteValue.totallyOrdered(a.value, before: b.value)) ? b : a
        switch merge {
        case .lww:
            return newer
        case .max, .min:
            // The larger (smaller) value; values SQLite holds equal are settled by stamp.
            if a.value == b.value || !(a.value < b.value || b.value < a.value) { return newer }
            return (a.value < b.value) == (merge == .max) ? b : a
        case .union:
            return ColumnRegister(value: UnionValue.merge(a.value, b.value), stamp: newer.stamp)
        case .counter:
            return ColumnRegister(
                value: a.value, stamp: newer.stamp,
                contributions: mergeContributions(a.contributions, b.contributions))
        case .custom(let name):
            guard let function = functions[name] else { return newer }
            return ColumnRegister(value: function.join(a.value, b.value), stamp: newer.stamp)
        }
    }

    /// Per node, the contribution with the higher `(causalLength, stamp)`; sorted by node.
    public static func mergeContributions(_ a: [CounterContribution], _ b: [CounterContribution])
        -> [CounterContribution]
    {
        var byNode: [NodeID: CounterContribution] = [:]
        for entry in a + b {
            if let held = byNode[entry.stamp.node],
                (held.causalLength, held.stamp, held.amount) >= (entry.causalLength, entry.stamp, entry.amount)
            {
                continue
            }
            byNode[entry.stamp.node] = entry
        }
        return byNode.values.sorted { $0.stamp.node < $1.stamp.node }
    }

    /// Puts each value-merged column in the form its merge defines: a counter shows the sum of
    /// the contributions of the row's current life, a union its canonical array — whatever a
    /// peer sent, so that merging the same registers again changes nothing.
    package static func settle(_ registers: inout RowRegisters, _ rules: Rules) {
        guard rules.policy == .column else { return }
        for index in registers.columns.indices {
            // A pattern, not `==`: comparing the enum copies its payload, for every column of every row merged.
            switch rules.merges[index] {
            case .counter:
                guard var register = registers.columns[index] else { continue }
                register.value = .integer(counterValue(register.contributions, life: registers.liveness.causalLength))
                registers.columns[index] = register
            case .union:
                guard var register = registers.columns[index] else { continue }
                let canonical = UnionValue.canonical(register.value)
                if canonical != register.value {
                    register.value = canonical
                    registers.columns[index] = register
                }
            default: continue
            }
        }
    }

    /// The visible value of a counter: what every node contributed in life `life`, summed exactly and held
    /// to the 64-bit range SQLite stores.
    ///
    /// Why: each contribution is a valid integer, but increments made on several devices at once may add
    /// up past the range; wrapping would show a huge count as a negative one. The exact sum, clamped
    /// once, is the same whatever order the contributions come in, so every device shows the same.
    ///
    /// ```swift
    /// RowMerge.counterValue([a(.max - 500), b(500), c(500)], life: 1)   // Int64.max, not negative
    /// ```
    public static func counterValue(_ contributions: [CounterContribution], life: UInt64) -> Int64 {
        clampedSum(contributions.filter { $0.causalLength == life }.map(\.amount))
    }

    /// The exact sum of `amounts`, held to `Int64.min...Int64.max`.
    public static func clampedSum(_ amounts: [Int64]) -> Int64 {
        let sum = amounts.reduce(Int128(0)) { $0 + Int128($1) }
        return Int64(clamping: sum)
    }

    /// Whether `a`'s column values come before `b`'s in ``SQLiteValue/totallyOrdered(_:before:)``, column
    /// by column (a missing register first); `nil` when they are the same. Settles row-policy rows whose
    /// stamps are equal, which only a forged or cloned peer produces.
    package static func rowValues(_ a: RowRegisters, before b: RowRegisters) -> Bool? {
        for (x, y) in zip(a.columns, b.columns) {
            switch (x, y) {
            case (nil, nil): continue
            case (nil, _): return true
            case (_, nil): return false
            case (let x?, let y?):
                if x.value == y.value { continue }
                return SQLiteValue.totallyOrdered(x.value, before: y.value)
            }
        }
        return nil
    }

    /// The stamp of the write that supplied a row-policy row.
    package static func rowStamp(_ registers: RowRegisters) -> Stamp? {
        registers.columns.compactMap { $0?.stamp }.max()
    }
}
