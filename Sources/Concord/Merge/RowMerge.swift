/// The merge of two replicas' registers for one row: pure, total and deterministic.
///
/// The SQLite shell loads the local registers, asks this type what the merged
/// registers are, and writes back only when something changed. Nothing here
/// does I/O, so the semantics can be read and tested in isolation.
///
/// ```swift
/// let outcome = RowMerge.merge(local: stored, remote: incoming, policy: .column)
/// if outcome.changed { try store(outcome.merged) }
/// ```
public enum RowMerge {
    /// What a merge decided.
    public struct Outcome: Hashable, Sendable {
        /// The registers after the merge.
        public var merged: RowRegisters
        /// Whether `merged` differs from the local registers.
        public var changed: Bool
    }

    /// Merges `remote` into `local` (absent when this replica never saw the row).
    ///
    /// Both must list the same columns in the same order.
    public static func merge(local: RowRegisters?, remote: RowRegisters, policy: TablePolicy) -> Outcome {
        guard let local else { return Outcome(merged: remote, changed: true) }
        precondition(local.columns.count == remote.columns.count, "registers of different column lists")
        var merged = local
        merged.liveness = mergeLiveness(local.liveness, remote.liveness)
        switch policy {
        case .column:
            for index in merged.columns.indices {
                merged.columns[index] = mergeColumn(local.columns[index], remote.columns[index])
            }
        case .row:
            if let theirs = rowStamp(remote), rowStamp(local).map({ theirs > $0 }) ?? true {
                merged.columns = remote.columns
            }
        }
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

    /// Last writer wins: the register with the higher stamp.
    public static func mergeColumn(_ a: ColumnRegister?, _ b: ColumnRegister?) -> ColumnRegister? {
        guard let a else { return b }
        guard let b else { return a }
        return b.stamp > a.stamp ? b : a
    }

    /// The stamp of the write that supplied a row-policy row.
    static func rowStamp(_ registers: RowRegisters) -> Stamp? {
        registers.columns.compactMap { $0?.stamp }.max()
    }
}
