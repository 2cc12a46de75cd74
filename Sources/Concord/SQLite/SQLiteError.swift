import CSQLite

/// An error SQLite reported, with the statement that caused it.
///
/// Reads like `SQLite error 19: FOREIGN KEY constraint failed - while
/// executing `DELETE FROM lists WHERE id = ?``, so a message in a log says what
/// failed and where without a debugger.
public struct SQLiteError: Error, Equatable, CustomStringConvertible {
    /// The extended result code (`SQLITE_CONSTRAINT_FOREIGNKEY` = 787, ...).
    public let extendedCode: Int32
    /// SQLite's message for the failure.
    public let message: String
    /// The SQL being executed, when there was one.
    public let sql: String?

    /// The primary result code (`SQLITE_CONSTRAINT` = 19, ...).
    public var code: Int32 { extendedCode & 0xFF }

    public init(code: Int32, message: String, sql: String? = nil) {
        self.extendedCode = code
        self.message = message
        self.sql = sql
    }

    public var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " - while executing `\(sql)`" }
        return text
    }
}

extension SQLiteError {
    /// Reads the connection's last error.
    init(connection: OpaquePointer?, code: Int32, sql: String?) {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? code
        self.init(code: (extended & 0xFF) == (code & 0xFF) ? extended : code, message: message, sql: sql)
    }
}
