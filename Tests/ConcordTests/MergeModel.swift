@testable import Concord

/// An independent reference model of DESIGN.md's merge semantics.
///
/// It sees only the writes the devices accepted — which row, which values,
/// the stamp and causal length each got — and computes, per row and column,
/// what every replica must show once all changes have been exchanged.
struct MergeModel {
    enum Kind { case insert, update, delete }

    struct Write {
        var table: String
        var key: String
        var kind: Kind
        var stamp: Stamp
        /// The causal length the row had on the device right after the write.
        var causalLength: UInt64
        /// Column index → written value (for a counter: the change it made).
        var values: [Int: SQLiteValue]
    }

    /// Column merges per table; row-policy tables are listed in `rowPolicy`.
    let merges: [String: [ColumnMerge]]
    let rowPolicy: Set<String>
    private(set) var writes: [Write] = []

    mutating func record(_ write: Write) { writes.append(write) }

    /// What a row must hold: alive or not, and each column's value (`nil` when never written).
    struct Expected: Equatable, CustomStringConvertible {
        var alive: Bool
        var values: [SQLiteValue?]
        var description: String { "\(alive ? "alive" : "deleted") \(values.map { $0?.description ?? "-" })" }
    }

    func expected(table: String, key: String) -> Expected? {
        let history = writes.filter { $0.table == table && $0.key == key }
        guard !history.isEmpty, let merges = merges[table] else { return nil }
        let life = history.filter { $0.kind != .update }.map(\.causalLength).max() ?? 0
        if rowPolicy.contains(table) {
            let last = history.filter { $0.kind != .delete }.max { $0.stamp < $1.stamp }
            return Expected(alive: life % 2 == 1, values: merges.indices.map { last?.values[$0] })
        }
        let values = merges.indices.map { column -> SQLiteValue? in
            let touching = history.filter { $0.values[column] != nil }
            guard !touching.isEmpty else { return nil }
            switch merges[column] {
            case .lww, .custom:
                return touching.max { $0.stamp < $1.stamp }!.values[column]
            case .max, .min:
                // The extreme value in SQLite's order; among equal values, the latest write's.
                let ordered = touching.sorted { a, b in
                    let (x, y) = (a.values[column]!, b.values[column]!)
                    if x < y || y < x { return merges[column] == .max ? x < y : y < x }
                    return a.stamp < b.stamp
                }
                return ordered.last!.values[column]
            case .union:
                return touching.reduce(SQLiteValue.text("[]")) { UnionValue.merge($0, $1.values[column]!) }
            case .counter:
                return .integer(touching.filter { $0.causalLength == life }
                    .reduce(0) { $0 + ($1.values[column]?.integerValue ?? 0) })
            }
        }
        return Expected(alive: life % 2 == 1, values: values)
    }
}
