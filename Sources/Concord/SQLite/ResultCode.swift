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
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The primary code of an extended one (`.foreignKeyConstraint.primary == .constraint`).
    public var primary: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

    public static let error = ResultCode(rawValue: 1)
    public static let busy = ResultCode(rawValue: 5)
    public static let locked = ResultCode(rawValue: 6)
    public static let readOnly = ResultCode(rawValue: 8)
    public static let corrupt = ResultCode(rawValue: 11)
    public static let full = ResultCode(rawValue: 13)
    public static let constraint = ResultCode(rawValue: 19)
    public static let notADatabase = ResultCode(rawValue: 26)
    /// `SQLITE_CONSTRAINT_FOREIGNKEY`.
    public static let foreignKeyConstraint = ResultCode(rawValue: 787)

    public var description: String { String(rawValue) }
}
