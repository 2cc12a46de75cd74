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
/// owner's TEMP triggers catch the rows instead: armed around the same steps,
/// each hands the row it sees to a function of this catcher's
/// (``installTriggerFunctions(on:)``). They write nothing, so the statement's
/// change count and transaction are the app's alone. Before, nothing was caught
/// there and a row's values were lost: a peer's newer values at one stamp then
/// lost to NULL everywhere.
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
        var values: [SQLiteValue]
    }

    /// Whether the system SQLite library has the preupdate hook.
    static let isAvailable = concord_sqlite3_preupdate_available() != 0

    /// The tables whose deleted rows are caught, as ``SQLiteName/folded(_:)`` spells them.
    var tables: Set<[UInt8]> = []
    /// Whether the hook catches rows (where the library has it); the owner's to set.
    var usesHook = DeletedRowCatcher.isAvailable
    /// Whether the owner's catch triggers may hand rows over now (between ``start(on:)`` and ``stop(on:)``).
    private(set) var isArmed = false
    /// The rows caught since the last ``take()``, in the order deleted.
    private(set) var caught: [CaughtRow] = []
    /// Whether ``installTriggerFunctions(on:)`` registered the functions (once per connection).
    private var hasTriggerFunctions = false

    /// The SQL functions the catch triggers call: `_concord_catching()` says whether to hand the row
    /// over, `_concord_catch(table, offset, value, ...)` hands over its values from column `offset` on.
    static let armedFunction = "_concord_catching"
    static let catchFunction = "_concord_catch"

    /// Installs the hook on `handle`, or arms the catch triggers, if any table is to be caught; returns
    /// whether it did.
    func start(on handle: OpaquePointer) -> Bool {
        guard !tables.isEmpty else { return false }
        guard usesHook else {
            isArmed = true
            return true
        }
        return concord_sqlite3_preupdate_hook(handle, Self.callback, Unmanaged.passUnretained(self).toOpaque()) != 0
    }

    /// Removes the hook from `handle`, or disarms the catch triggers.
    func stop(on handle: OpaquePointer) {
        guard usesHook else {
            isArmed = false
            return
        }
        _ = concord_sqlite3_preupdate_hook(handle, nil, nil)
    }

    /// Registers ``armedFunction`` and ``catchFunction`` on `handle` (the connection that owns this
    /// catcher, which outlives them).
    ///
    /// Why functions: a trigger that wrote the rows to a table would change the statement's change count
    /// (which tells Concord a BEFORE trigger ignored its write) and put the copies in the transaction.
    /// TEMP triggers may call functions SQLite is not told are innocuous, `trusted_schema` off or not.
    func installTriggerFunctions(on handle: OpaquePointer) throws {
        guard !hasTriggerFunctions else { return }
        let context = Unmanaged.passUnretained(self).toOpaque()
        let armed = sqlite3_create_function_v2(
            handle, Self.armedFunction, 0, SQLITE_UTF8, context,
            { context, _, _ in
                guard let context, let catcher = sqlite3_user_data(context) else { return }
                let isArmed = Unmanaged<DeletedRowCatcher>.fromOpaque(catcher).takeUnretainedValue().isArmed
                sqlite3_result_int(context, isArmed ? 1 : 0)
            }, nil, nil, nil)
        let catching = sqlite3_create_function_v2(
            handle, Self.catchFunction, -1, SQLITE_UTF8, context,
            { context, count, arguments in
                guard let context, let catcher = sqlite3_user_data(context), let arguments, count > 0 else { return }
                let values = (0..<Int(count)).map { arguments[$0].map(DeletedRowCatcher.value) ?? .null }
                guard values.count > 1, case .text(let text) = values[0], let table = text.string,
                    case .integer(let offset) = values[1]
                else { return }
                Unmanaged<DeletedRowCatcher>.fromOpaque(catcher).takeUnretainedValue()
                    .receive(table: table, offset: Int(offset), values: values.dropFirst(2))
                sqlite3_result_null(context)
            }, nil, nil, nil)
        for (name, code) in [(Self.armedFunction, armed), (Self.catchFunction, catching)] where code != SQLITE_OK {
            throw SQLiteError(connection: handle, code: code, sql: "sqlite3_create_function_v2 of \(name)()")
        }
        hasTriggerFunctions = true
    }

    /// The rows caught since the last call.
    func take() -> [CaughtRow] {
        defer { caught = [] }
        return caught
    }

    /// Takes one call's part of a row from a catch trigger: a row's first part (`offset` 0) starts a row,
    /// a later one continues it, since a call takes at most ``valuesPerCall`` values (SQLite caps a
    /// function's arguments at 127 by default, and a table may have many more columns).
    private func receive(table: String, offset: Int, values: ArraySlice<SQLiteValue>) {
        if offset == 0 {
            caught.append(CaughtRow(table: table, values: Array(values)))
        } else if let last = caught.indices.last, caught[last].table == table, caught[last].values.count == offset {
            caught[last].values += values
        }
    }

    /// How many of a row's values one call of ``catchFunction`` takes.
    static let valuesPerCall = 100

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
