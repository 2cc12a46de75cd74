/// A SQLite result code, primary or extended, by name rather than number.
///
/// SQLite reports failures as integers (`19`, `787`); code that reacts to one
/// reads better naming it, as GRDB's `ResultCode` does. The primary code is
/// the low byte of an extended one.
///
/// ```swift
/// if error.resultCode.primary == .constraint && error.resultCode != .foreignKeyConstraint { park(row) }
/// ```
public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The number SQLite uses for the code.
    public let rawValue: Int32

    /// The code SQLite numbers `rawValue`; any number is accepted, named here or not.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The primary code of an extended one (`.foreignKeyConstraint.primary == .constraint`).
    public var primary: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

    /// `SQLITE_ERROR`: a generic error, such as an SQL syntax error or a missing table.
    public static let error = ResultCode(rawValue: 1)
    /// `SQLITE_BUSY`: another connection holds a lock for longer than the busy timeout.
    public static let busy = ResultCode(rawValue: 5)
    /// `SQLITE_LOCKED`: a conflict with another use of the same connection or shared cache.
    public static let locked = ResultCode(rawValue: 6)
    /// `SQLITE_READONLY`: a write to a database that cannot be written.
    public static let readOnly = ResultCode(rawValue: 8)
    /// `SQLITE_READONLY_DBMOVED`: the file was deleted, moved or replaced while the connection had it open.
    public static let readOnlyDatabaseMoved = ResultCode(rawValue: 1032)
    /// `SQLITE_CORRUPT`: the file is damaged.
    public static let corrupt = ResultCode(rawValue: 11)
    /// `SQLITE_FULL`: the disk is full.
    public static let full = ResultCode(rawValue: 13)
    /// `SQLITE_TOOBIG`: a string, blob or row is past SQLite's length limit (1 GB by default).
    public static let tooBig = ResultCode(rawValue: 18)
    /// `SQLITE_CONSTRAINT`: a NOT NULL, CHECK, UNIQUE, primary or foreign key constraint failed.
    public static let constraint = ResultCode(rawValue: 19)
    /// `SQLITE_NOTADB`: the file is not a SQLite database.
    public static let notADatabase = ResultCode(rawValue: 26)
    /// `SQLITE_CONSTRAINT_PRIMARYKEY`: a declared PRIMARY KEY's value is taken (in a rowid table too).
    public static let primaryKeyConstraint = ResultCode(rawValue: 1555)
    /// `SQLITE_CONSTRAINT_UNIQUE`: a UNIQUE constraint's or index's value is taken.
    public static let uniqueConstraint = ResultCode(rawValue: 2067)
    /// `SQLITE_CONSTRAINT_FOREIGNKEY`.
    public static let foreignKeyConstraint = ResultCode(rawValue: 787)
    /// `SQLITE_CONSTRAINT_TRIGGER`: a trigger answered `RAISE(ABORT, ...)` or `RAISE(FAIL, ...)`.
    public static let triggerConstraint = ResultCode(rawValue: 1811)

    /// The number, as SQLite documents it (`19`, `787`).
    public var description: String { String(rawValue) }
}
