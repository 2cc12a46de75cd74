import CSQLite
import Foundation

/// Catches the values of the rows an app's triggers delete from chosen tables while one statement runs.
///
/// Why: while Concord merges, its capture triggers are silenced, and an app
/// trigger's delete of a synced row cannot be (see ``TriggerSilencer``). A
/// shown row keeps its values only in its table, so without this they would
/// leave with the row: the registers would keep their stamps over NULL, a tie
/// with every peer's copy of the same writes, which could settle on NULL
/// everywhere. SQLite's preupdate hook sees each row before a delete takes it;
/// installed only around the steps of silenced statements that can fire such a
/// delete, it costs nothing elsewhere. Where the system library lacks the hook
/// (``isAvailable``), nothing is caught and the row's values are lost as before.
///
/// ```swift
/// catcher.tables = [SQLiteName.folded("subtasks")]
/// let catching = catcher.start(on: handle)
/// sqlite3_step(statement)          // a trigger deletes two subtasks
/// if catching { catcher.stop(on: handle) }
/// catcher.take()                   // [("subtasks", [id, reminder_id, title]), ...]
/// ```
final class DeletedRowCatcher {
    /// A row a trigger deleted: its table, as SQLite names it, and every column's value before, in the
    /// table's order.
    struct CaughtRow {
        let table: String
        let values: [SQLiteValue]
    }

    /// Whether the system SQLite library has the preupdate hook.
    static let isAvailable = concord_sqlite3_preupdate_available() != 0

    /// The tables whose deleted rows are caught, as ``SQLiteName/folded(_:)`` spells them.
    var tables: Set<[UInt8]> = []
    /// The rows caught since the last ``take()``, in the order deleted.
    private(set) var caught: [CaughtRow] = []

    /// Installs the hook on `handle` if there is one and any table to catch; returns whether it did.
    func start(on handle: OpaquePointer) -> Bool {
        guard Self.isAvailable, !tables.isEmpty else { return false }
        return concord_sqlite3_preupdate_hook(handle, Self.callback, Unmanaged.passUnretained(self).toOpaque()) != 0
    }

    /// Removes the hook from `handle`.
    func stop(on handle: OpaquePointer) {
        _ = concord_sqlite3_preupdate_hook(handle, nil, nil)
    }

    /// The rows caught since the last call.
    func take() -> [CaughtRow] {
        defer { caught = [] }
        return caught
    }

    /// Notes a delete a trigger made (depth above 0) of a row of a caught table in `main`.
    private static let callback: concord_preupdate_callback = { context, db, operation, database, table, _, _ in
        guard operation == SQLITE_DELETE, let context, let db, let database, let table,
            strcmp(database, "main") == 0, concord_sqlite3_preupdate_depth(db) > 0
        else { return }
        let catcher = Unmanaged<DeletedRowCatcher>.fromOpaque(context).takeUnretainedValue()
        let name = String(cString: table)
        guard catcher.tables.contains(SQLiteName.folded(name)) else { return }
        let values = (0..<concord_sqlite3_preupdate_count(db)).map { index in
            concord_sqlite3_preupdate_old(db, index).map(DeletedRowCatcher.value) ?? .null
        }
        catcher.caught.append(CaughtRow(table: name, values: values))
    }

    /// A protected `sqlite3_value` as a ``SQLiteValue``, text and blobs read by length.
    private static func value(_ value: OpaquePointer) -> SQLiteValue {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            guard let base = sqlite3_value_text(value) else { return .text(SQLiteText(bytes: [])) }
            let count = Int(sqlite3_value_bytes(value))
            return .text(SQLiteText(bytes: Array(UnsafeBufferPointer(start: base, count: count))))
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(value))
            guard count > 0, let base = sqlite3_value_blob(value) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: base, count: count)))
        default: return .null
        }
    }
}
