import Foundation
/// One SQLite value: the five storage classes SQLite knows.
///
/// Concord moves values between the user's tables, its own metadata and
/// changesets without ever formatting them into SQL text, so this type is what
/// every bound parameter and every read column is.
///
/// ```swift
/// let values: [SQLiteValue] = [.text("buy milk"), .integer(2), .null]
/// ```
public enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// The storage class name SQLite's `typeof()` reports.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .integer: "integer"
        case .real: "real"
        case .text: "text"
        case .blob: "blob"
        }
    }

    public var isNull: Bool { if case .null = self { true } else { false } }

    public var integerValue: Int64? { if case .integer(let v) = self { v } else { nil } }
    public var textValue: String? { if case .text(let v) = self { v } else { nil } }
    public var blobValue: [UInt8]? { if case .blob(let v) = self { v } else { nil } }
}

extension SQLiteValue: Comparable {
    /// SQLite's own sort order: NULL, then numbers, then text, then blobs.
    ///
    /// Integers and reals compare by numeric value; text compares by its
    /// UTF-8 bytes (SQLite's BINARY collation), blobs bytewise.
    public static func < (lhs: SQLiteValue, rhs: SQLiteValue) -> Bool {
        switch (lhs, rhs) {
        case (.integer(let a), .integer(let b)): return a < b
        case (.real(let a), .real(let b)): return a < b
        case (.integer(let a), .real(let b)): return Double(a) < b
        case (.real(let a), .integer(let b)): return a < Double(b)
        case (.text(let a), .text(let b)): return Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
        case (.blob(let a), .blob(let b)): return a.lexicographicallyPrecedes(b)
        default: return lhs.rank < rhs.rank
        }
    }

    private var rank: Int {
        switch self {
        case .null: 0
        case .integer, .real: 1
        case .text: 2
        case .blob: 3
        }
    }
}

// Deliberately not ExpressibleByNilLiteral: `nil` must always mean "no value"
// (Optional.none), never SQL NULL, or `SQLiteValue?` becomes ambiguous.
extension SQLiteValue: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral {
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(stringLiteral value: String) { self = .text(value) }
}

extension SQLiteValue: CustomStringConvertible {
    /// A SQL-literal rendering, for messages and dumps (never spliced into SQL).
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let v): return v.description
        case .text(let v): return "'" + v.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let v): return "X'" + v.map { hex2($0) }.joined() + "'"
        }
    }
}

/// Two uppercase hex digits for a byte.
func hex2(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
}
