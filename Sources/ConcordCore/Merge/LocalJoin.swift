/// The arithmetic of a local write to a value-merged column: pure, so it can be read and tested alone.
///
/// The capture log records the old and new values of such a write; the fold
/// asks this type what the register becomes. A counter write becomes a change
/// of this node's contribution in the row's current life; any other merge
/// joins the written value with what the register held, so writing a lower
/// value to a `max` column leaves the maximum.
///
/// ```swift
/// let entries = LocalJoin.contribute(+2, to: [], life: 1, stamp: stamp)   // this node: +2 in life 1
/// let register = LocalJoin.join(.integer(3), stamp: stamp, base: held, merge: .max, functions: [:])
/// ```
public enum LocalJoin {
    /// The contributions after this node changed a counter by `delta` in life `life`, in node order.
    ///
    /// A contribution made in an earlier life no longer counts, so this node's
    /// entry restarts from `delta` when the life changed. The change is exact (a write from -9e18 to
    /// 9e18 changes it by more than an `Int64` holds), and this node's contribution is held to the
    /// `Int64` range, never wrapped to the other sign: a device whose own changes add up past the range
    /// keeps its end, and the counter shows less than the app wrote there, the same on every device.
    public static func contribute(
        _ delta: Int128, to entries: [CounterContribution], life: UInt64,
        stamp: Stamp
    ) -> [CounterContribution] {
        var entries = entries
        if let mine = entries.firstIndex(where: { $0.stamp.node == stamp.node }) {
            let held = entries[mine].causalLength == life ? Int128(entries[mine].amount) : 0
            let amount = Int64(clamping: held + delta)
            entries[mine] = CounterContribution(causalLength: life, amount: amount, stamp: stamp)
        } else {
            entries.append(CounterContribution(causalLength: life, amount: Int64(clamping: delta), stamp: stamp))
            entries.sort { $0.stamp.node < $1.stamp.node }
        }
        return entries
    }

    /// The register of a counter column after this node's write: its contributions and their sum in `life`.
    public static func counter(_ entries: [CounterContribution], life: UInt64, stamp: Stamp) -> ColumnRegister {
        ColumnRegister(
            value: .integer(RowMerge.counterValue(entries, life: life)), stamp: stamp, contributions: entries)
    }

    /// The register of a column merging with `merge` after a local write of `value`, joined with `base`.
    public static func join(
        _ value: SQLiteValue, stamp: Stamp, base: ColumnRegister?, merge: ColumnMerge,
        functions: [String: MergeFunction]
    ) -> ColumnRegister {
        let written = ColumnRegister(value: merge == .union ? UnionValue.canonical(value) : value, stamp: stamp)
        return RowMerge.mergeColumn(base, written, merge, functions) ?? written
    }
}
