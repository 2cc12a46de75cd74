extension Visibility {
    /// The rows whose placement is being decided, outermost first, and which of them were reached through a
    /// stand-in's key (`SET NULL`, `SET DEFAULT`) rather than a hiding one.
    ///
    /// Why: meeting a row again that is still being decided closes a loop, and only a loop of hiding keys
    /// (`CASCADE`, `RESTRICT`, `NO ACTION`) keeps its rows from showing. A loop that a stand-in's key closes
    /// is no cycle: a root whose `SET NULL` column names its own grandchild shows, and so do the child and
    /// the grandchild. Taken for a cycle, the grandchild was parked "on a cycle" on a device that decided
    /// the root first, and shown on one that decided it last.
    ///
    /// ```swift
    /// // n(parent REFERENCES n ON DELETE CASCADE, buddy REFERENCES n ON DELETE SET NULL)
    /// // r.buddy = y, y.parent = x, x.parent = r: deciding r reaches y (buddy), x, then r again
    /// visiting.closesHidingCycle(at: r)   // false: the loop went through r's buddy
    /// ```
    struct Visiting {
        private var depths: [RowRef: Int] = [:]
        /// The depths of the rows reached through a stand-in's key.
        private var standInDepths: [Int] = []

        /// Whether no row is being decided.
        var isEmpty: Bool { depths.isEmpty }

        /// Whether `row` is being decided further up.
        func contains(_ row: RowRef) -> Bool { depths[row] != nil }

        /// Starts deciding `row`, reached from the row decided last through a stand-in's key or a hiding one.
        mutating func enter(_ row: RowRef, throughStandIn: Bool) {
            if throughStandIn { standInDepths.append(depths.count) }
            depths[row] = depths.count
        }

        /// Ends deciding `row`, the row entered last.
        mutating func leave(_ row: RowRef) {
            guard let depth = depths.removeValue(forKey: row) else { return }
            if standInDepths.last == depth { standInDepths.removeLast() }
        }

        /// Whether the rows from `row` (being decided) down to the row decided now were all reached through
        /// hiding keys, so that a hiding key from here back to `row` closes a cycle of them.
        func closesHidingCycle(at row: RowRef) -> Bool {
            guard let depth = depths[row] else { return false }
            return !standInDepths.contains { $0 > depth }
        }
    }
}
