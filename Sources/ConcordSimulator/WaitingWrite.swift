/// An app statement whose writes wait in its device's capture log while their table is refused for a
/// destructive schema change, recorded once a later release undoes it and the device's fold stamps them.
///
/// Why: Concord keeps such writes, neither folded nor dropped, and folds them when the table syncs again
/// (README, "Destructive, refused until undone"). The ledger records a statement from the stamps its writes
/// got, so it holds the statement back meanwhile, with the log positions its writes filled, and records
/// the waiting statements together, split by those positions, as for several statements folded at once.
///
/// ```swift
/// device.waiting.append(WaitingWrite(statement: statement, start: 12, end: 13, credited: false))
/// ```
struct WaitingWrite {
    let statement: Statement
    /// The capture log's end before the statement; its writes fill the positions after it, up to `end`.
    let start: Int64
    let end: Int64
    /// Whether the device holding it is a copy of the file the statement ran on: its counter changes are
    /// the original's (``AppLedger/record(_:touched:tables:standIns:node:origin:knowledge:credited:)``).
    var credited: Bool
}
