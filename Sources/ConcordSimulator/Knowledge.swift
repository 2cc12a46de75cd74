import Concord

/// What one device's database holds of each row, as the ids of the ledger's writes whose effect it holds.
///
/// The reference model derives causal lengths from what each writer had seen of
/// the row, so the simulator keeps this per device, exactly in step with the
/// database: a device's own write joins its knowledge of the row, a changeset or
/// server record carries a snapshot of its sender's knowledge of the rows in it,
/// and the receiver adds that once it has applied it. A refused changeset teaches
/// nothing; a crash forgets nothing (the file keeps what was committed); a fork
/// copies it.
///
/// ```swift
/// let sent = peer.knowledge.about(changes.rows.map { RowRef(table: $0.table, key: $0.key) })
/// if try deliver(changes, to: device, from: "device 1", knowledge: sent) != nil { /* device learned `sent` */ }
/// ```
struct Knowledge: Equatable {
    private(set) var rows: [RowRef: Set<Int>] = [:]

    /// The writes of `row` known here.
    func of(_ row: RowRef) -> Set<Int> { rows[row] ?? [] }

    /// What is known of `rows` alone: the snapshot a message about those rows carries.
    func about(_ rows: some Sequence<RowRef>) -> Knowledge {
        var snapshot = Knowledge()
        for row in rows { if let known = self.rows[row] { snapshot.rows[row] = known } }
        return snapshot
    }

    /// What is known of the rows of every table but `tables`: what a message teaches a device whose release
    /// refuses those tables (it holds their rows back), or sends from one (it exports none of them).
    func leaving(_ tables: Set<String>) -> Knowledge {
        guard !tables.isEmpty else { return self }
        var snapshot = Knowledge()
        snapshot.rows = rows.filter { row, _ in !tables.contains { SQLiteName.same($0, row.table) } }
        return snapshot
    }

    /// Adds what `other` knows (a message applied, a peer synced with).
    mutating func learn(_ other: Knowledge) {
        for (row, known) in other.rows { rows[row, default: []].formUnion(known) }
    }

    /// Adds the write `id` of `row` (one this device made, or one a server record carries).
    mutating func learn(_ ids: Set<Int>, of row: RowRef) {
        guard !ids.isEmpty else { return }
        rows[row, default: []].formUnion(ids)
    }
}
