import Concord

extension Changeset {
    /// This changeset cut down to `tables`: the tables it lists and, of each, the columns it lists (by
    /// name), every row's registers cut to match.
    ///
    /// It is what a replica that keeps no unknown data would export: a device
    /// on an older release that received a newer one's rows holds nothing of
    /// the columns and tables its schema lacks, so it passes none of them on.
    /// ``InjectedBugs/dropUnknownColumnsOnRelay`` plants that behaviour in the
    /// simulator's exports, so that a rolling upgrade must catch it.
    ///
    /// ```swift
    /// let old = try VersionSchemas(of: workload)[1].tables   // lists, reminders(list_id, title, done)
    /// let sent = changes.restricted(to: old)                 // no notes, no reminders.priority
    /// ```
    func restricted(to tables: [TableSchema]) -> Changeset {
        var kept: [TableSchema] = []
        var positions: [String: [Int]] = [:]
        for remote in self.tables {
            guard let own = tables.first(where: { SQLiteName.same($0.name, remote.name) }) else { continue }
            let indices = remote.columns.indices.filter { index in
                own.columns.contains { SQLiteName.same($0, remote.columns[index]) }
            }
            var table = remote
            table.columns = indices.map { remote.columns[$0] }
            table.merges = indices.map { remote.merges[$0] }
            kept.append(table)
            positions[remote.name] = indices
        }
        var restricted = self
        restricted.tables = kept
        restricted.rows = rows.compactMap { row in
            guard let indices = positions[row.table] else { return nil }
            return row.selectingColumns(indices)
        }
        return restricted
    }
}
