/// How an insert that replaces a row keeps the value-merged values it replaced.
///
/// Why: `INSERT OR REPLACE` of a key the table holds — how many ORMs save a record — deletes the old
/// row without firing delete triggers (unless `recursive_triggers` is on), so the insert trigger never
/// saw what the insert replaced. The fold joined the new value with itself: a `max` of 10 saved again as
/// 5 showed 5, a `union` lost the elements the save did not repeat, where an UPDATE of the same row kept
/// them. A BEFORE INSERT trigger of a table with value-merged columns copies those columns of the row
/// the insert may replace into the slot `seq = -1` of the table's `_concord_N_logvalues`, with the
/// row's key; the insert trigger logs them as its old values, and the fold joins with them as it does
/// for an update. The slot stays until the next insert of the table empties it (the insert trigger reads
/// it only for its own key), or the fold clears the table. A delete that fires its triggers empties it
/// for its key: the insert then follows a real delete (`recursive_triggers` on, or an app's BEFORE INSERT
/// trigger deleting the row) and starts a new life, as a DELETE and an INSERT do.
///
/// ```sql
/// -- scores(id TEXT PRIMARY KEY, best) with best merged by max, holding ('s1', 10)
/// INSERT OR REPLACE INTO scores VALUES ('s1', 5)   -- logged with old value 10: best shows 10
/// ```
extension CaptureTriggers {
    /// The `seq` of the slot in `_concord_N_logvalues` that holds the row an insert may replace.
    static let replacedSlot = -1

    /// The trigger that keeps the row an insert may replace (none for a table without value-merged columns).
    var replacedRowTrigger: [String] {
        guard let first = table.joinedColumns.first else { return [] }
        let slot = "\(table.logValuesTable) WHERE seq = \(Self.replacedSlot)"
        let olds = table.joinedColumns.map { Self.old($0) }
        // Aliased, and every column named through the alias: a table named `new` would otherwise hide
        // the trigger's own row, and the insert would copy every row of the table as the one it replaces.
        let values = table.joinedColumns.map { "r." + table.quotedColumns[$0] }
        return [
            trigger(
                "prereplace", "BEFORE INSERT", "1",
                [
                    "DELETE FROM \(slot)",
                    "INSERT INTO \(table.logValuesTable) (seq, \(Self.new(first)), \(olds.joined(separator: ", "))) "
                        + "SELECT \(Self.replacedSlot), r.\(table.quotedKey), \(values.joined(separator: ", ")) "
                        + "FROM \(table.quotedName) AS r WHERE r.\(table.quotedKey) = NEW.\(table.quotedKey)",
                ])
        ]
    }

    /// What the insert trigger logs as the old value of each value-merged column: the replaced row's,
    /// when the slot holds the row with `key`, else NULL.
    func replacedValues(key: String) -> [String] {
        guard let first = table.joinedColumns.first else { return [] }
        return table.joinedColumns.map {
            "(SELECT \(Self.old($0)) FROM \(table.logValuesTable) WHERE seq = \(Self.replacedSlot) "
                + "AND \(Self.new(first)) IS \(key))"
        }
    }
}
