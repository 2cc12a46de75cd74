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
/// delete, it costs nothing elsewhere.
///
/// The hook is a compile-time option, which SQLite's default build and many
/// bundled builds leave out. Where the library lacks it (``isAvailable``), or a
/// replica is told not to use it (the simulator draws that per device), the
/// owner's TEMP triggers catch the rows instead (``TriggerCatch``): armed around
/// the same steps, they copy each deleted row into a TEMP table, read back after
/// the step. Before, nothing was caught there and a row's values were lost: a
/// peer's newer values at one stamp then lost to NULL everywhere.
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

    /// How rows are caught where the hook is not used: the owner arms its TEMP triggers around a step and
    /// reads what they copied after it.
    struct TriggerCatch {
        /// Arms (`true`) or disarms the triggers.
        var arm: (Bool) throws -> Void
        /// The rows the triggers copied since the last call, in the order deleted; empties their tables.
        var take: () throws -> [CaughtRow]
    }

    /// Whether the system SQLite library has the preupdate hook.
    static let isAvailable = concord_sqlite3_preupdate_available() != 0

    /// The tables whose deleted rows are caught, as ``SQLiteName/folded(_:)`` spells them.
    var tables: Set<[UInt8]> = []
    /// Whether the hook catches rows (where the library has it); the owner's to set.
    var usesHook = DeletedRowCatcher.isAvailable
    /// How rows are caught where ``usesHook`` is false; `nil` catches none.
    var triggerCatch: TriggerCatch?
    /// The rows caught since the last ``take()``, in the order deleted.
    private(set) var caught: [CaughtRow] = []

    /// Installs the hook on `handle`, or arms the triggers, if any table is to be caught; returns whether it did.
    func start(on handle: OpaquePointer) throws -> Bool {
        guard !tables.isEmpty else { return false }
        guard usesHook else {
            guard let triggerCatch else { return false }
            try triggerCatch.arm(true)
            return true
        }
        return concord_sqlite3_preupdate_hook(handle, Self.callback, Unmanaged.passUnretained(self).toOpaque()) != 0
    }

    /// Removes the hook from `handle`, or disarms the triggers and takes what they copied.
    func stop(on handle: OpaquePointer) throws {
        guard usesHook else {
            guard let triggerCatch else { return }
            try triggerCatch.arm(false)
            caught += try triggerCatch.take()
            return
        }
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
    static func value(_ value: OpaquePointer) -> SQLiteValue {
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
