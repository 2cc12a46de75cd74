@_spi(Testing) import ConcordCore

/// Tells a value a table shows as the stand-in for a parent that is not visible (the NULL of a `SET NULL`
/// key, the default of a `SET DEFAULT` one) from a value an app wrote there.
///
/// Why: sync stopped on a table (``Replica/disableSync(on:)``) keeps each row's values as written, and a
/// child of a parent deleted elsewhere showed NULL while keeping the real reference. Enabled again, the
/// table shows that NULL as any other value: taken for the migration's write, it replaced the reference
/// on every device, and the child never came back to its parent. A kept reference to a parent that is
/// still not visible, where the table shows that key's stand-in, is the row as it was.
///
/// ```swift
/// let standIns = StandInCheck(replica: self, table: table, foreignKeys: foreignKeys)
/// try standIns.isStandIn(.null, for: "p1", column: 1)   // true while p1 is not shown
/// ```
struct StandInCheck {
    let replica: Replica
    /// The `SET NULL` / `SET DEFAULT` keys of the table, by column.
    private let keys: [Int: ForeignKey]

    /// Whether the keys' actions may have changed since the table showed its values (a rebuild that made a
    /// `SET NULL` key `CASCADE`): then any key's column showing NULL or its default may hold the stand-in
    /// the row showed under the old action, copied by the migration.
    private let actionsMayHaveChanged: Bool

    init(replica: Replica, table: SyncedTable, foreignKeys: [ForeignKey], actionsMayHaveChanged: Bool = false) {
        self.replica = replica
        self.actionsMayHaveChanged = actionsMayHaveChanged
        var keys: [Int: ForeignKey] = [:]
        for key in foreignKeys
        where SQLiteName.same(key.child, table.name) && (actionsMayHaveChanged || !key.action.hidesChild) {
            keys[key.column] = keys[key.column] ?? key
        }
        self.keys = keys
    }

    /// Whether `shown`, in `column`, is the stand-in for the parent `kept` names, which is not visible.
    func isStandIn(_ shown: SQLiteValue, for kept: SQLiteValue, column: Int) throws -> Bool {
        guard let key = keys[column], kept != .null, shown != kept,
            actionsMayHaveChanged
                ? shown == .null || shown == key.defaultValue
                : shown == (key.action == .setNull ? .null : key.defaultValue),
            let parent = replica.syncedTable(named: key.parent)
        else { return false }
        let shownParent = try replica.database.scalar(
            "SELECT EXISTS (SELECT 1 FROM \(parent.qualifiedName) WHERE \(parent.quotedKey) = ?)",
            [key.parentKey(of: kept)])
        return shownParent == .integer(0)
    }
}
