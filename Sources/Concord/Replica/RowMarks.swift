import ConcordCore

/// The marks metadata keeps on single rows: why an alive row is parked, and that a deleted row shows because a
/// child brought it back.
///
/// Rows are named by their table's id in `_concord_tables` and their key, as
/// the metadata tables store them. The replica and its register stores write
/// the marks through this one piece.
///
/// ```swift
/// let marks = RowMarks(database: database)
/// try marks.park(table: lists.id, key: "l1", reason: .constraint("NOT NULL constraint failed: lists.name"))
/// try marks.unpark(table: lists.id, key: "l1")
/// ```
struct RowMarks {
    let database: Database

    /// Records why an alive row is not shown; writes nothing when that is already recorded (a parked row is
    /// placed again at every reprojection that reaches it).
    func park(table: Int64, key: SQLiteValue, reason: ParkReason) throws {
        try database.cached(
            "INSERT INTO \(Metadata.parked) (tbl, pk, kind, reason) VALUES (?, ?, ?, ?) "
                + "ON CONFLICT (tbl, pk) DO UPDATE SET kind = excluded.kind, reason = excluded.reason "
                + "WHERE kind IS NOT excluded.kind OR reason IS NOT excluded.reason"
        ).run([.integer(table), key, .integer(reason.kind), .text(reason.description)])
    }

    /// Why the row is parked, as recorded, or `nil` when it is not.
    func reason(table: Int64, key: SQLiteValue) throws -> String? {
        try database.cached("SELECT reason FROM \(Metadata.parked) WHERE tbl = ? AND pk = ?")
            .all([.integer(table), key]).first?.first?.textValue
    }

    /// Forgets a row's parking, once it is shown or deleted.
    func unpark(table: Int64, key: SQLiteValue) throws {
        try database.execute("DELETE FROM \(Metadata.parked) WHERE tbl = ? AND pk = ?", [.integer(table), key])
    }

    /// Records whether a row of a revivable table is shown though deleted (brought back by a child).
    func markRevived(table: Int64, key: SQLiteValue, _ revived: Bool) throws {
        try database.execute(
            revived
                ? "INSERT OR IGNORE INTO \(Metadata.revived) (tbl, pk) VALUES (?, ?)"
                : "DELETE FROM \(Metadata.revived) WHERE tbl = ? AND pk = ?", [.integer(table), key])
    }
}
