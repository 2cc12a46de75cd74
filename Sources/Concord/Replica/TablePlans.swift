@_spi(Testing) import ConcordCore

/// The plans of one apply, found by the table name every row carries, and each table's place in the write order.
///
/// Every row of a changeset names its table, and apply looks that name up
/// three times per row (validate, recheck, merge). A changeset names a few
/// tables, so a name is found by comparing its bytes with each plan's in turn,
/// which costs a fraction of hashing it; past ``scanLimit`` tables a dictionary
/// takes over. Names are compared byte for byte, as SQLite does (Swift's `==`
/// would take two spellings of one accented letter for one name).
///
/// ```swift
/// let plans = try TablePlans(changeset.tables.map { try TablePlan($0, replica: replica) })
/// plans[row.table]?.rules
/// ```
struct TablePlans {
    /// Every plan, in the changeset's order.
    let all: [TablePlan]
    private let byName: [SQLiteName.Key: Int]

    /// Above this many tables, names are hashed rather than compared one by one.
    static let scanLimit = 8

    init(_ plans: [TablePlan]) {
        all = plans
        byName =
            plans.count > Self.scanLimit
            ? Dictionary(
                plans.enumerated().map { (SQLiteName.Key($1.remote.name), $0) }, uniquingKeysWith: { a, _ in a })
            : [:]
        // Tables without foreign keys are written by name, bytewise; the rank leaves room for text before blob keys.
        let unrelated = plans.filter { !$0.isRelated }.sorted {
            $0.remote.name.utf8.lexicographicallyPrecedes($1.remote.name.utf8)
        }
        for (position, plan) in unrelated.enumerated() { plan.writeRank = 2 * position + 1 }
    }

    /// The plan of the table named `table` (bytewise), or `nil` when the changeset does not declare it.
    subscript(table: String) -> TablePlan? {
        let key = SQLiteName.Key(table)
        guard all.count > Self.scanLimit else { return all.first { SQLiteName.Key($0.remote.name) == key } }
        return byName[key].map { all[$0] }
    }

    /// A few table names, compared byte for byte as SQLite compares them.
    struct Names {
        private let keys: [SQLiteName.Key]

        init(_ names: [String]) { keys = names.map(SQLiteName.Key.init) }

        /// Whether `name` is one of them (always false, at no cost, when there are none).
        func contains(_ name: String) -> Bool {
            guard !keys.isEmpty else { return false }
            let key = SQLiteName.Key(name)
            return keys.contains(key)
        }
    }
}
