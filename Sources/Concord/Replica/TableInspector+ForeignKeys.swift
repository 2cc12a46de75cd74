extension TableInspector {
    /// The foreign keys of `table` onto synced tables (`synced` includes `table` itself).
    ///
    /// With `skippingUnsyncable`, a key that cannot sync is left out rather
    /// than refused: a table whose migration added such a key is refused for
    /// it (see `checkSchemas`), and its other keys must still hide and show
    /// its rows meanwhile.
    ///
    /// With `refusingGenerated` (enabling sync), a key a generated column holds is refused; elsewhere it is
    /// left out, as builds before did, so a table that already syncs with one keeps syncing. With
    /// `refusingCycles` (enabling sync, adopting a migration), a key onto another table that references this
    /// one back is refused (see ``cycleReason(from:to:parent:)``).
    ///
    /// - Throws: when a key spans several columns, references a column other
    ///   than the parent's key, or references a table that does not sync.
    func foreignKeys(
        of table: SyncedTable, synced: [String: SyncedTable], skippingUnsyncable: Bool = false,
        refusingGenerated: Bool = false, refusingCycles: Bool = false
    ) throws -> [ForeignKey] {
        let rows = try database.foreignKeyList(of: table.name)
        let ids = rows.map { $0.integer("id") }
        var keys: [ForeignKey] = []
        for row in rows {
            do {
                if let key = try foreignKey(
                    row, ids: ids, of: table, synced: synced, refusingGenerated: refusingGenerated,
                    refusingCycles: refusingCycles)
                {
                    keys.append(key)
                }
            } catch is ReplicaError where skippingUnsyncable {
                continue
            }
        }
        return keys
    }

    /// The foreign key one row of `PRAGMA foreign_key_list` describes; `nil` for one on a column that does not sync.
    private func foreignKey(
        _ row: Database.PragmaRow, ids: [Int64], of table: SyncedTable, synced: [String: SyncedTable],
        refusingGenerated: Bool, refusingCycles: Bool
    ) throws -> ForeignKey? {
        let id = row.integer("id")
        guard let parentName = row.text("table"), let from = row.text("from") else { return nil }
        let refuse = { (reason: String, fix: String) in
            ReplicaError.unsupportedTable(table: table.name, reason: reason, fix: fix)
        }
        guard ids.filter({ $0 == id }).count == 1 else {
            throw refuse(
                "its foreign key to \(parentName) spans several columns",
                "reference the parent's single key column")
        }
        let parents = synced.values.filter { SQLiteName.same($0.name, parentName) }
        if refusingCycles || parents.count != 1,
            let cycle = try cycleReason(from: from, to: table.name, parent: parentName)
        {
            throw refuse(
                cycle,
                "keep the reference on one side only, for example in a table of its own that references both")
        }
        guard let parent = parents.first, parents.count == 1 else {
            guard try database.pragma("table_info", of: parentName).isEmpty == false else {
                throw refuse(
                    "its column \(from) references \(parentName), which is no table",
                    "create \(parentName), or make \(from) reference a table that exists")
            }
            if let to = row.text("to"), let key = try primaryKey(of: parentName), !SQLiteName.same(to, key) {
                throw refuse(
                    "its column \(from) references \(parentName).\(to), not the key \(key)",
                    "reference the parent's key column")
            }
            throw refuse(
                "its column \(from) references \(parentName), which does not sync",
                "enable sync on \(parentName) first (list it before \(table.name))")
        }
        if let to = row.text("to"), !SQLiteName.same(to, parent.key) {
            throw refuse(
                "its column \(from) references \(parentName).\(to), not the key \(parent.key)",
                "reference the parent's key column")
        }
        guard let column = table.columns.firstIndex(where: { SQLiteName.same($0, from) }) else {
            // A generated column does not sync (its value follows the others), so Concord could not tell
            // which parent a row names: rows arriving after their parent's delete would break the key.
            if refusingGenerated, let hidden = try database.columnInfo(from, of: table.name)?.integer("hidden"),
                hidden >= 2
            {
                throw refuse(
                    "its generated column \(from) references \(parentName), which Concord cannot follow",
                    "reference \(parentName) from an ordinary column")
            }
            return nil
        }
        let action = ForeignKey.Action(rawValue: row.text("on_delete") ?? "NO ACTION") ?? .noAction
        let parentKeyType = try database.columnInfo(parent.key, of: parent.name)?.text("type") ?? ""
        return ForeignKey(
            child: table.name, column: column, parent: parent.name, action: action,
            defaultValue: try defaultValue(of: table, column: table.columns[column]),
            parentKeyIsText: ColumnAffinity(declaredType: parentKeyType) == .text)
    }

    /// Why a key from `table`'s column `from` onto another table, `parent`, closes a cycle between tables —
    /// `parent` references `table` back, itself or through other tables — or `nil` when it does not.
    ///
    /// Why refused: each table must sync before the tables that reference it, so no table of such a cycle
    /// can be enabled first, and a device with the schema could never join. A migration adding the last
    /// key of one was taken for an additive change; a table referencing itself is no such cycle.
    func cycleReason(from column: String, to table: String, parent: String) throws -> String? {
        guard !SQLiteName.same(parent, table) else { return nil }
        var path: [String: String] = [parent: "\(table).\(column) → \(parent)"]
        var pending = [parent]
        while let name = pending.popLast() {
            for row in try database.foreignKeyList(of: name) {
                guard let next = row.text("table"), let via = row.text("from") else { continue }
                let step = "\(path[name]!).\(via) → \(next)"
                if SQLiteName.same(next, table) {
                    return "its foreign keys form a cycle between tables (\(step)), which cannot sync: "
                        + "each table must sync before the tables that reference it"
                }
                guard !SQLiteName.same(next, name), path.keys.allSatisfy({ !SQLiteName.same($0, next) }) else {
                    continue
                }
                path[next] = step
                pending.append(next)
            }
        }
        return nil
    }

    /// The single primary-key column of `table` in the live schema, or `nil` (none, several, no table).
    private func primaryKey(of table: String) throws -> String? {
        let keys = try database.pragma("table_info", of: table).filter { $0.integer("pk") > 0 }
        return keys.count == 1 ? keys[0].text("name") : nil
    }

    /// The column's declared default, evaluated once (NULL when it has none).
    private func defaultValue(of table: SyncedTable, column: String) throws -> SQLiteValue {
        guard
            let expression = try database.columnInfo(column, of: table.name)?.text("dflt_value")
        else { return .null }
        return try database.scalar("SELECT \(expression)") ?? .null
    }
}
