import CSQLite
import Foundation

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

    /// The extended result code, by name (``ResultCode/primary`` gives the primary one).
    public var resultCode: ResultCode { ResultCode(rawValue: extendedCode) }

    /// An error with this extended `code` (a primary one is an extended code too), `message` and `sql`.
    public init(code: Int32, message: String, sql: String? = nil) {
        self.extendedCode = code
        self.message = message
        self.sql = sql
    }

    /// The primary code, the message, the statement shortened to one line, and, for a lock, a read-only
    /// file, a damaged file or a full disk, what to do.
    public var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " - while executing `\(Self.shortened(sql))`" }
        if let hint { text += "; " + hint }
        return text
    }

    /// What to do about the failures an app's user can act on.
    private var hint: String? {
        if resultCode == .readOnlyDatabaseMoved {
            return "the database file was deleted, moved or replaced while it was open; the write that failed "
                + "changed nothing: open the file again where it is now"
        }
        return switch resultCode.primary {
        // What failed is undone, and only that: a sync keeps the changesets it applied before (the
        // disk may fill only as it records how far a peer has read).
        case .busy, .locked:
            "another connection or process holds a lock on the database for longer than the busy timeout "
                + "(5 s); the step that waited for it changed nothing: try again when it has finished"
        case .readOnly: "the database file or its folder is read-only; the write that failed changed nothing"
        case .corrupt, .notADatabase: "the file is not a healthy SQLite database; restore it from a backup"
        case .full: "the disk is full; the write that ran out of space was undone: free some space and try again"
        default: nil
        }
    }

    /// SQL as it appears in a message: one line, and no more than a few hundred characters.
    static func shortened(_ sql: String) -> String {
        let line = sql.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(
            separator: " ")
        return line.count <= 300 ? line : String(line.prefix(297)) + "..."
    }
}

extension SQLiteError {
    /// Reads the connection's last error.
    init(connection: OpaquePointer?, code: Int32, sql: String?) {
        let message =
            connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(code))
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? code
        self.init(code: (extended & 0xFF) == (code & 0xFF) ? extended : code, message: message, sql: sql)
    }
}
