/// How a synced table resolves concurrent edits.
///
/// - `column`: every column is its own last-writer-wins register, so
///   concurrent edits of different columns both survive (the default).
/// - `row`: the row is one register; the write with the highest stamp
///   supplies every column.
public enum TablePolicy: String, Hashable, Sendable, CaseIterable {
    case column
    case row
}
