/// How a synced table resolves concurrent edits.
///
/// - `column`: every column is its own last-writer-wins register, so
///   concurrent edits of different columns both survive (the default).
/// - `row`: the row is one register; the write with the highest stamp
///   supplies every column.
///
/// ```swift
/// try replica.enableSync(on: "reminders")                     // .column
/// try replica.enableSync(on: "settings", policy: .row)
/// ```
public enum TablePolicy: String, Hashable, Sendable, CaseIterable {
    /// Each column is merged on its own, by its ``ColumnMerge``.
    case column
    /// The whole row is one last-writer-wins register.
    case row
}
