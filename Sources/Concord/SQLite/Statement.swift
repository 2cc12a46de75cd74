import CSQLite
import Foundation

/// A prepared SQL statement: bind parameters, step through rows, read columns.
///
/// Statements are prepared once and reused on hot paths (capture, apply,
/// export) through ``Database/cached(_:)``; values are always bound, never
/// formatted into the SQL text.
///
/// ```swift
/// let statement = try database.prepare("SELECT title FROM reminders WHERE id = ?")
/// try statement.bind(["r1"])
/// while try statement.step() { print(statement.column(0)) }
/// ```
public final class Statement {
    // The mutable properties here and in ``TriggerSilencer`` are read on every bind and step, and Swift
    // checks each read of a class's `var` for a conflicting access at run time: about 3,500 instructions of
    // each row a fold or an apply writes (6%). None is ever accessed while another access to it is under
    // way (a recompile replaces them between runs), so they go unchecked.
    @exclusivity(unchecked) private(set) var handle: OpaquePointer
    /// The connection it was prepared on, kept open while the statement lives (see ``Connection``).
    let connection: Connection
    /// The SQL text, for error messages.
    public let sql: String
    /// Whether it was compiled silencing triggers, when its code depends on it (it writes where a
    /// silenceable trigger fires); `nil` when it does not (see ``TriggerSilencer``).
    @exclusivity(unchecked) private var compiledSilencing: Bool?
    /// The tables its code deletes from through triggers the silencer watches (see
    /// ``TriggerSilencer/watchesDeletes``).
    @exclusivity(unchecked) private var codedDeletes: [String]

    /// The synced tables its code deletes from through the app's triggers (``TriggerSilencer/watchesDeletes``),
    /// as of its last compile.
    var deletesThroughTriggers: [String] { codedDeletes }

    init(database: Database, sql: String) throws {
        connection = database.connection
        self.sql = sql
        (handle, compiledSilencing, codedDeletes) = try Self.compile(sql, on: database.connection)
    }

    /// Compiles `sql`, which must hold one statement: SQLite compiles only the first of several, so the others
    /// would never run, and nothing would say so.
    ///
    /// Why refuse rather than run the first: `execute("INSERT …; UPDATE …", values)` read like one call that
    /// writes both, and silently wrote only the INSERT. A script of several statements runs through
    /// ``Database/execute(_:)``, which takes no parameters.
    private static func compile(_ sql: String, on connection: Connection) throws -> (OpaquePointer, Bool?, [String]) {
        let encounters = connection.silencer.encounters
        let mark = connection.silencer.codingMark
        var handle: OpaquePointer?
        let (code, more) = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v2(connection.handle, text, -1, &handle, &tail)
            return (code, code == SQLITE_OK && handle != nil && holdsAnotherStatement(tail, connection.handle))
        }
        let deletes = connection.silencer.codedDeletes(since: mark)
        guard code == SQLITE_OK, let handle else {
            throw SQLiteError(connection: connection.handle, code: code, sql: sql)
        }
        if more {
            sqlite3_finalize(handle)
            throw SQLiteError(
                code: SQLITE_MISUSE,
                message: "the SQL holds more than one statement, and a prepared statement runs only the first; "
                    + "run a script of several with execute(_:), which takes no parameters, or prepare each on its own",
                sql: sql)
        }
        let dependent = connection.silencer.encounters != encounters
        return (handle, dependent ? connection.silencer.isSilencing : nil, deletes)
    }

    /// Whether the text at `tail`, left after a statement was compiled, holds more than spaces, comments and
    /// semicolons (text SQLite cannot compile counts as more).
    private static func holdsAnotherStatement(_ tail: UnsafePointer<CChar>?, _ connection: OpaquePointer) -> Bool {
        var rest = tail
        while let current = rest, current.pointee != 0 {
            var next: OpaquePointer?
            var after: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v2(connection, current, -1, &next, &after)
            if let next { sqlite3_finalize(next) }
            guard code == SQLITE_OK, next == nil, let after, after != current else { return true }
            rest = after
        }
        return false
    }

    /// Compiles the statement again when the connection's silencing changed since it was compiled and its
    /// code depends on it; called before each run binds it (bindings are reset then anyway).
    func settleSilencing() throws {
        guard let compiled = compiledSilencing, compiled != connection.silencer.isSilencing else { return }
        let (fresh, silencing, deletes) = try Self.compile(sql, on: connection)
        sqlite3_finalize(handle)
        (handle, compiledSilencing, codedDeletes) = (fresh, silencing, deletes)
    }

    deinit { sqlite3_finalize(handle) }

    /// The number of result columns.
    public var columnCount: Int32 { sqlite3_column_count(handle) }

    /// The name of result column `index`.
    public func columnName(_ index: Int32) -> String {
        String(cString: sqlite3_column_name(handle, index))
    }

    /// Resets the statement and binds `values` to parameters 1, 2, ...
    public func bind(_ values: [SQLiteValue]) throws {
        sqlite3_reset(handle)
        try settleSilencing()
        // Parameters left unbound must read NULL, not what an earlier run bound.
        if values.count < sqlite3_bind_parameter_count(handle) { sqlite3_clear_bindings(handle) }
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// Binds one value to the 1-based parameter `index`.
    public func bind(_ value: SQLiteValue, at index: Int32) throws {
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(handle, index)
        case .integer(let v): code = sqlite3_bind_int64(handle, index, v)
        case .real(let v): code = sqlite3_bind_double(handle, index, v)
        case .text(let v):
            // Every byte, NUL and non-UTF-8 ones included: TEXT is bytes to SQLite.
            code = v.bytes.withUnsafeBufferPointer { bytes in
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    return sqlite3_bind_text(handle, index, "", 0, sqliteTransient)
                }
                return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    sqlite3_bind_text(handle, index, $0, Int32(bytes.count), sqliteTransient)
                }
            }
        case .blob(let v):
            code = v.withUnsafeBytes { bytes in
                // A zero-length blob must still be a blob, not NULL.
                sqlite3_bind_blob(
                    handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                    Int32(v.count), sqliteTransient)
            }
        }
        guard code == SQLITE_OK else {
            throw SQLiteError(connection: connection.handle, code: code, sql: sql)
        }
    }

    /// Advances to the next row; `false` once the statement is done.
    @discardableResult
    public func step() throws -> Bool {
        let encounters = connection.silencer.encounters
        let mark = connection.silencer.codingMark
        let catching =
            connection.silencer.isSilencing && !codedDeletes.isEmpty
            && connection.silencer.catcher.start(on: connection.handle)
        let code = sqlite3_step(handle)
        if catching {
            connection.silencer.catcher.stop(on: connection.handle)
            try connection.silencer.deliverCaught(failed: code != SQLITE_ROW && code != SQLITE_DONE)
        }
        // SQLite compiled it again inside the step (it had expired), in the mode of the moment.
        if connection.silencer.encounters != encounters { compiledSilencing = connection.silencer.isSilencing }
        if connection.silencer.codingMark != mark { codedDeletes = connection.silencer.codedDeletes(since: mark) }
        connection.silencer.ran(codedDeletes: codedDeletes)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = SQLiteError(connection: connection.handle, code: code, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Whether it has started a run and not yet been reset or finished it.
    var isRunning: Bool { sqlite3_stmt_busy(handle) != 0 }

    /// Resets the statement so it can run again; bindings are kept.
    public func reset() { sqlite3_reset(handle) }

    /// The value of column `index` in the current row.
    public func column(_ index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT:
            // Read by length, not up to the first NUL, and kept as bytes: see ``SQLiteText``.
            // sqlite3_column_text first: sqlite3_column_bytes then counts the bytes it returned.
            guard let base = sqlite3_column_text(handle, index) else { return .text(SQLiteText(bytes: [])) }
            let count = Int(sqlite3_column_bytes(handle, index))
            return .text(SQLiteText(bytes: Array(UnsafeBufferPointer(start: base, count: count))))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard count > 0, let base = sqlite3_column_blob(handle, index) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: base, count: count)))
        default: return .null
        }
    }

    /// Column `index` as an integer (0 for NULL), for metadata columns known to be integers.
    public func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// Column `index` as a floating-point number (0 for NULL), for metadata columns known to be numbers.
    public func double(_ index: Int32) -> Double { sqlite3_column_double(handle, index) }

    /// Whether column `index` is NULL in the current row.
    public func isNull(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    /// All columns of the current row.
    public func row() -> [SQLiteValue] { (0..<columnCount).map(column) }

    /// Binds `values`, runs to completion, and returns every row.
    public func all(_ values: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        try bind(values)
        defer { reset() }
        var rows: [[SQLiteValue]] = []
        while try step() { rows.append(row()) }
        return rows
    }

    /// Binds `values` and runs the statement, ignoring any rows.
    public func run(_ values: [SQLiteValue] = []) throws {
        try bind(values)
        defer { reset() }
        while try step() {}
    }
}

/// SQLite's `SQLITE_TRANSIENT`: copy the bound bytes before returning.
private var sqliteTransient: sqlite3_destructor_type {
    unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}
