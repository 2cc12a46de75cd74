import Concord

/// An independent reference model of DESIGN.md's semantics: from the writes
/// in a ``WriteLedger`` alone, what every replica must hold once all changes
/// are exchanged.
///
/// It reads the schema from SQLite's own pragmas, merges each row's writes
/// with plain loops (largest causal length; per column the highest stamp, the
/// extreme value, the union, or the per-node counter contributions of the
/// current life; under the row policy the whole row of the latest write),
/// then decides visibility as a least fixpoint: a row shows when it is alive
/// (or revived by a later `RESTRICT` child), every hiding parent shows, and
/// its materialized values fit its NOT NULL columns. It shares no code with
/// the engine's merge or projection but `UnionValue`'s canonical JSON form of a
/// set, which it uses to write the union of a `union` column's values.
///
/// ```swift
/// let model = try ReferenceModel(schemaOf: replica, ledger: ledger)
/// let rows = model.visibleRows(of: "reminders")   // key → the row as the table must show it
/// ```
struct ReferenceModel {
    struct Link {
        let column: Int
        let parent: String
        let action: String
        let defaultValue: SQLiteValue
        var hides: Bool { ["CASCADE", "RESTRICT", "NO ACTION"].contains(action) }
        var revives: Bool { ["RESTRICT", "NO ACTION"].contains(action) }
    }

    struct Table {
        let name: String
        let key: String
        let columns: [String]
        let row: Bool
        let merges: [ColumnMerge]
        let notNull: [Bool]
        var links: [Link] = []
    }

    /// What a row's registers must hold.
    struct Row: Equatable {
        var causalLength: UInt64 = 0
        var deleteStamp: Stamp?
        var values: [SQLiteValue?]
        var stamps: [Stamp?]
        var alive: Bool { causalLength % 2 == 1 }
    }

    struct RowID: Hashable, Comparable {
        let table: String
        let key: SQLiteValue
        static func < (a: RowID, b: RowID) -> Bool { (a.table, a.key) < (b.table, b.key) }
    }

    private(set) var tables: [String: Table] = [:]
    private(set) var rows: [RowID: Row] = [:]
    private var visible: Set<RowID> = []

    init(schemaOf replica: Replica, ledger: WriteLedger) throws {
        for synced in replica.tables {
            tables[synced.name] = try Self.describe(synced, in: replica.database)
        }
        var byRow: [RowID: [WriteLedger.Entry]] = [:]
        for entry in ledger.entries { byRow[RowID(table: entry.table, key: entry.key), default: []].append(entry) }
        for (id, entries) in byRow {
            guard let table = tables[id.table] else { continue }
            rows[id] = Self.merge(entries, table)
        }
        decideVisibility()
    }

    // MARK: Schema

    private static func describe(_ synced: SyncedTable, in database: Database) throws -> Table {
        let info = try database.query(
            "SELECT name, \"notnull\", dflt_value FROM pragma_table_info(?) ORDER BY cid",
            [.text(synced.name)])
        let byName = Dictionary(uniqueKeysWithValues: info.map { ($0[0].textValue ?? "", $0) })
        var table = Table(
            name: synced.name, key: synced.key, columns: synced.columns, row: synced.policy == .row,
            merges: synced.merges, notNull: synced.columns.map { byName[$0]?[1] == .integer(1) })
        for link in try database.query(
            "SELECT \"from\", \"table\", on_delete FROM pragma_foreign_key_list(?) ORDER BY id, seq",
            [.text(synced.name)])
        {
            guard let column = synced.columns.firstIndex(of: link[0].textValue ?? "") else { continue }
            var defaultValue = SQLiteValue.null
            if let expression = byName[synced.columns[column]]?[2].textValue {
                defaultValue = try database.scalar("SELECT \(expression)") ?? .null
            }
            table.links.append(
                Link(
                    column: column, parent: link[1].textValue ?? "",
                    action: link[2].textValue?.uppercased() ?? "NO ACTION", defaultValue: defaultValue))
        }
        return table
    }

    // MARK: Registers

    /// The join of every write to one row, each contributing only the stamps its own device issued.
    private static func merge(_ entries: [WriteLedger.Entry], _ table: Table) -> Row {
        var row = Row(
            values: Array(repeating: nil, count: table.columns.count),
            stamps: Array(repeating: nil, count: table.columns.count))
        mergeLiveness(entries, into: &row)
        if table.row {
            // The whole row of the write with the highest stamp.
            let latest = entries.compactMap { entry -> (Stamp, WriteLedger.Entry)? in
                entry.registers.columns.compactMap { $0?.stamp }.filter { $0.node == entry.node }.max().map {
                    ($0, entry)
                }
            }.max { $0.0 < $1.0 }
            if let (_, entry) = latest {
                row.values = entry.registers.columns.map { $0?.value }
                row.stamps = entry.registers.columns.map { $0?.stamp }
            }
            return row
        }
        for index in table.columns.indices {
            mergeColumn(index, entries, table, into: &row)
        }
        return row
    }

    /// The row's causal length, the highest any write's own liveness stamp gives, and its delete stamp.
    private static func mergeLiveness(_ entries: [WriteLedger.Entry], into row: inout Row) {
        var lifeStamp: Stamp?
        for entry in entries {
            let liveness = entry.registers.liveness
            guard let stamp = liveness.stamp, stamp.node == entry.node else { continue }
            if liveness.causalLength > row.causalLength
                || (liveness.causalLength == row.causalLength && lifeStamp.map { stamp > $0 } ?? true)
            {
                row.causalLength = liveness.causalLength
                lifeStamp = stamp
            }
        }
        row.deleteStamp = row.alive ? nil : lifeStamp
    }

    /// Column `index` of a column-policy row: the join of the writes' own registers under the column's merge.
    private static func mergeColumn(_ index: Int, _ entries: [WriteLedger.Entry], _ table: Table, into row: inout Row) {
        let cells = entries.compactMap { entry -> ColumnRegister? in
            guard let cell = entry.registers.columns[index], cell.stamp.node == entry.node else { return nil }
            return cell
        }
        guard !cells.isEmpty else { return }
        let latest = cells.max { $0.stamp < $1.stamp }!
        row.stamps[index] = latest.stamp
        switch table.merges[index] {
        case .lww, .custom:
            row.values[index] = latest.value
        case .max, .min:
            let wantMax = table.merges[index] == .max
            let best = cells.max { a, b in
                let (x, y) = (a.value, b.value)
                if x < y || y < x { return wantMax ? x < y : y < x }
                return a.stamp < b.stamp
            }!
            row.values[index] = best.value
            row.stamps[index] = best.stamp
        case .union:
            row.values[index] = cells.reduce(SQLiteValue.text("[]")) { UnionValue.merge($0, $1.value) }
        case .counter:
            row.values[index] = .integer(counterTotal(entries, column: index, causalLength: row.causalLength))
        }
    }

    /// A counter column's value: the sum of each device's latest own contribution made at `causalLength`.
    private static func counterTotal(_ entries: [WriteLedger.Entry], column index: Int, causalLength: UInt64) -> Int64 {
        var latestByNode: [NodeID: CounterContribution] = [:]
        for entry in entries {
            for contribution in entry.registers.columns[index]?.contributions ?? []
            where contribution.stamp.node == entry.node {
                if let held = latestByNode[entry.node],
                    (held.causalLength, held.stamp) >= (contribution.causalLength, contribution.stamp)
                {
                    continue
                }
                latestByNode[entry.node] = contribution
            }
        }
        return latestByNode.values.filter { $0.causalLength == causalLength }.reduce(Int64(0)) { $0 + $1.amount }
    }

    // MARK: Visibility

    /// The least fixpoint: start with nothing visible and show rows until no more can be shown.
    private mutating func decideVisibility() {
        let ids = rows.keys.sorted()
        var changed = true
        while changed {
            changed = false
            for id in ids where !visible.contains(id) && canShow(id) {
                visible.insert(id)
                changed = true
            }
        }
    }

    private func canShow(_ id: RowID) -> Bool {
        guard let row = rows[id], let table = tables[id.table] else { return false }
        guard row.alive || isRevived(id, row) else { return false }
        for link in table.links where link.hides {
            guard let value = row.values[link.column] ?? nil, !value.isNull else { continue }
            guard visible.contains(RowID(table: link.parent, key: value)) else { return false }
        }
        let shown = materialized(id, row, table)
        return !zip(shown.dropFirst(), table.notNull).contains { $0.0.isNull && $0.1 }
    }

    /// A deleted row shows again while an alive child points at it through a RESTRICT / NO ACTION key written after the delete.
    private func isRevived(_ id: RowID, _ row: Row) -> Bool {
        guard let deleted = row.deleteStamp else { return false }
        for table in tables.values {
            for link in table.links where link.revives && link.parent == id.table {
                for (childID, child) in rows where childID.table == table.name && child.alive {
                    if child.values[link.column] == id.key, let stamp = child.stamps[link.column], stamp > deleted {
                        return true
                    }
                }
            }
        }
        return false
    }

    /// The row as its table shows it: key first, then each column, with stand-ins for parents not visible.
    private func materialized(_ id: RowID, _ row: Row, _ table: Table) -> [SQLiteValue] {
        var values = row.values.map { $0 ?? .null }
        for link in table.links where !link.hides {
            guard !values[link.column].isNull,
                !visible.contains(RowID(table: link.parent, key: values[link.column]))
            else { continue }
            values[link.column] = link.action == "SET NULL" ? .null : link.defaultValue
        }
        return [id.key] + values
    }

    /// The rows `table` must show, by key, each as `[key] + columns`.
    func visibleRows(of table: String) -> [SQLiteValue: [SQLiteValue]] {
        guard let description = tables[table] else { return [:] }
        var shown: [SQLiteValue: [SQLiteValue]] = [:]
        for id in visible where id.table == table {
            shown[id.key] = materialized(id, rows[id]!, description)
        }
        return shown
    }

    func isVisible(_ table: String, _ key: SQLiteValue) -> Bool { visible.contains(RowID(table: table, key: key)) }
}
