/// Where a row belongs in its user table: shown (with stand-ins), or hidden and why.
///
/// ```swift
/// Placement.shown(overrides: [:])                                   // shown as its registers say
/// Placement.shown(overrides: [1: .null])                            // its SET NULL parent is not visible
/// Placement.hidden(.missingParent(table: "lists", key: "l1"))       // alive, parked
/// Placement.hidden(nil)                                             // deleted
/// ```
public enum Placement: Hashable, Sendable {
    /// Shown, with these columns showing a stand-in for a parent that is not visible.
    case shown(overrides: [Int: SQLiteValue])
    /// Not shown: parked for a reason when the row is alive, `nil` when it is deleted or unknown.
    case hidden(ParkReason?)

    /// Whether the row is in its user table, stand-ins or not.
    public var isShown: Bool { if case .shown = self { true } else { false } }

    /// Shown as the registers say, with no stand-ins.
    public static let shown = Placement.shown(overrides: [:])

    /// Where a row of a table without foreign keys belongs: shown exactly when alive.
    public static func withoutRelations(_ registers: RowRegisters) -> Placement {
        registers.liveness.isAlive ? .shown : .hidden(nil)
    }
}
