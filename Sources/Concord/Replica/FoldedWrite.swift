/// One write a fold stamped, as ``Replica/foldObserver`` reports it: which logged write, which row, which stamp.
///
/// Why: a fold stamps every write the capture log holds at once, so when an
/// app ran several statements before it, the rows' registers alone cannot say
/// which statement each stamp belongs to (a later statement may overwrite all
/// an earlier one wrote). The simulator's ledger reads these reports, splits
/// them by the log positions each statement filled, and checks them against
/// the registers.
///
/// ```swift
/// var folded: [FoldedWrite] = []
/// replica.foldObserver = { folded.append($0) }
/// try replica.foldLocalWrites()
/// folded.map(\.seq)   // the log position of each stamped write, in stamping order
/// ```
@_spi(Simulation)
public struct FoldedWrite: Equatable, Sendable {
    /// The log position of the app's write: for a row deleted by a cascade Concord made (the app leaves
    /// foreign keys off), that of the parent's delete.
    public let seq: Int64
    /// The row stamped.
    public let row: RowRef
    /// The stamp, which the row's registers hold after the write (a write that changed no register is
    /// not reported).
    public let stamp: Stamp

    /// Whether `registers` hold `stamp`: in a column, a counter contribution or the liveness.
    static func holds(_ stamp: Stamp, in registers: RowRegisters) -> Bool {
        registers.liveness.stamp == stamp
            || registers.columns.contains {
                $0?.stamp == stamp || $0?.contributions.contains { $0.stamp == stamp } == true
            }
    }
}
