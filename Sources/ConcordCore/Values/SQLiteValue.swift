import Foundation

/// One SQLite value: the five storage classes SQLite knows.
///
/// Concord moves values between the user's tables, its own metadata and
/// changesets without ever formatting them into SQL text, so this type is what
/// every bound parameter and every read column is. Two values are equal
/// exactly when SQLite stores the same bytes under the same type: `1` and
/// `1.0` differ, `0.0` and `-0.0` differ, and text compares by its bytes
/// (see ``SQLiteText``), never by Unicode equivalence.
///
/// ```swift
/// let values: [SQLiteValue] = [.text("buy milk"), .integer(2), .null]
/// ```
public enum SQLiteValue: Sendable {
    /// SQL NULL.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// A 64-bit IEEE 754 floating-point number; SQLite stores NaN as NULL.
    case real(Double)
    /// Text, as its bytes (see ``SQLiteText``).
    case text(SQLiteText)
    /// Bytes, as they are.
    case blob([UInt8])

    /// Text holding `string`'s UTF-8 bytes.
    public static func text(_ string: String) -> SQLiteValue { .text(SQLiteText(string)) }

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

    /// Whether the value is NULL.
    public var isNull: Bool { if case .null = self { true } else { false } }

    /// The integer; `nil` for other types (a real is not converted).
    public var integerValue: Int64? { if case .integer(let v) = self { v } else { nil } }
    /// The text as a string; `nil` for other types and for text whose bytes are not UTF-8.
    public var textValue: String? { if case .text(let v) = self { v.string } else { nil } }
    /// The bytes of a blob; `nil` for other types (text is not converted).
    public var blobValue: [UInt8]? { if case .blob(let v) = self { v } else { nil } }
}

extension SQLiteValue: Hashable {
    /// Same type and same bytes: a real compares by its bit pattern, so `-0.0` is not `0.0`.
    public static func == (lhs: SQLiteValue, rhs: SQLiteValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.integer(let a), .integer(let b)): a == b
        case (.real(let a), .real(let b)): a.bitPattern == b.bitPattern
        case (.text(let a), .text(let b)): a == b
        case (.blob(let a), .blob(let b)): a == b
        default: false
        }
    }

    /// Hashes the type and the bytes, a real by its bit pattern, consistently with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0 as UInt8)
        case .integer(let v):
            hasher.combine(1 as UInt8)
            hasher.combine(v)
        case .real(let v):
            hasher.combine(2 as UInt8)
            hasher.combine(v.bitPattern)
        case .text(let v):
            hasher.combine(3 as UInt8)
            hasher.combine(v)
        case .blob(let v):
            hasher.combine(4 as UInt8)
            hasher.combine(v)
        }
    }
}

extension SQLiteValue: Comparable {
    /// SQLite's own sort order: NULL, then numbers, then text, then blobs.
    ///
    /// Integers and reals compare by numeric value (so `1` and `1.0`, or
    /// `0.0` and `-0.0`, are neither less nor greater), exactly, even beyond
    /// 2^53; text compares by its bytes (SQLite's BINARY collation), blobs
    /// bytewise.
    public static func < (lhs: SQLiteValue, rhs: SQLiteValue) -> Bool {
        switch (lhs, rhs) {
        case (.integer(let a), .integer(let b)): return a < b
        case (.real(let a), .real(let b)): return a < b
        case (.integer(let a), .real(let b)): return NumericOrder.compare(a, b) < 0
        case (.real(let a), .integer(let b)): return NumericOrder.compare(b, a) > 0
        case (.text(let a), .text(let b)): return a < b
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

extension SQLiteValue {
    /// A total order that tells every two different values apart: by type (NULL, integer,
    /// real, text, blob), then by value, reals by IEEE total order (`-0.0` before `0.0`).
    ///
    /// SQLite's order holds `1 = 1.0` and `0.0 = -0.0`; when two writes carry the same stamp
    /// (a forged or cloned peer) this decides between their values the same way on every replica.
    public static func totallyOrdered(_ lhs: SQLiteValue, before rhs: SQLiteValue) -> Bool {
        switch (lhs, rhs) {
        case (.integer(let a), .integer(let b)): return a < b
        case (.real(let a), .real(let b)): return a.isTotallyOrdered(belowOrEqualTo: b) && a.bitPattern != b.bitPattern
        case (.text(let a), .text(let b)): return a < b
        case (.blob(let a), .blob(let b)): return a.lexicographicallyPrecedes(b)
        default: return lhs.typeRank < rhs.typeRank
        }
    }

    private var typeRank: Int {
        switch self {
        case .null: 0
        case .integer: 1
        case .real: 2
        case .text: 3
        case .blob: 4
        }
    }
}

/// Exact comparison of an integer with a double, as SQLite makes it.
///
/// `Double(a)` rounds integers beyond 2^53, so `2^53 + 1 < 2^53 as Double`
/// would come out wrong both ways; compare in the integer domain when the
/// double is integral and in range, in the double domain otherwise.
enum NumericOrder {
    /// Negative, zero or positive as `integer` is below, equal to or above `real`.
    static func compare(_ integer: Int64, _ real: Double) -> Int {
        if real.isNaN { return 1 }
        if real >= 9_223_372_036_854_775_808.0 { return -1 }
        if real < -9_223_372_036_854_775_808.0 { return 1 }
        let truncated = real.rounded(.towardZero)
        let whole = Int64(truncated)
        if integer != whole { return integer < whole ? -1 : 1 }
        let fraction = real - truncated
        return fraction > 0 ? -1 : fraction < 0 ? 1 : 0
    }
}

// Deliberately not ExpressibleByNilLiteral: `nil` must always mean "no value"
// (Optional.none), never SQL NULL, or `SQLiteValue?` becomes ambiguous.
extension SQLiteValue: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral {
    /// An integer literal is ``integer(_:)``.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A floating-point literal is ``real(_:)``.
    public init(floatLiteral value: Double) { self = .real(value) }
    /// A string literal is `.text`, its UTF-8 bytes.
    public init(stringLiteral value: String) { self = .text(SQLiteText(value)) }
}

extension SQLiteValue: CustomStringConvertible {
    /// A SQL-literal rendering, for messages and dumps (never spliced into SQL).
    ///
    /// Exact and unambiguous: a real always shows a decimal point or exponent
    /// (`1.0`, `-0.0`, `inf`), and text that is not UTF-8 or holds NUL shows
    /// as `CAST(X'…' AS TEXT)`.
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let v): return v.description
        case .text(let v):
            guard let string = v.string, !v.bytes.contains(0) else {
                return "CAST(X'" + v.bytes.map { hex2($0) }.joined() + "' AS TEXT)"
            }
            // Quotes doubled scalar by scalar: a quote followed by a combining mark is one `Character`, which
            // a search for the character "'" does not find, and would end the literal there.
            var quoted = String.UnicodeScalarView()
            for scalar in string.unicodeScalars {
                quoted.append(scalar)
                if scalar == "'" { quoted.append(scalar) }
            }
            return "'" + String(quoted) + "'"
        case .blob(let v): return "X'" + v.map { hex2($0) }.joined() + "'"
        }
    }
}
