/// The bytes of one SQLite TEXT value, exactly as SQLite stores them.
///
/// SQLite does not check that TEXT is UTF-8: `CAST(x'61ff62' AS TEXT)` and
/// `'ab' || char(0) || 'cd'` are TEXT values like any other, and an app may
/// store them. A Swift `String` cannot hold bytes that are not UTF-8 (it
/// repairs them), and compares by Unicode canonical equivalence, so `"é"`
/// written precomposed equals `"é"` written as `e` plus a combining accent
/// although SQLite holds two different values. Concord therefore carries text
/// as its bytes, compares it bytewise (SQLite's BINARY collation), and
/// offers a `String` only when the bytes are valid UTF-8.
///
/// ```swift
/// let title: SQLiteText = "Buy milk"
/// title.string                                   // "Buy milk"
/// SQLiteText(bytes: [0x61, 0xFF, 0x62]).string   // nil: not UTF-8
/// ```
public struct SQLiteText: Hashable, Comparable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The stored bytes, in the database's text encoding (UTF-8).
    public let bytes: [UInt8]

    /// The text of a string, as its UTF-8 bytes.
    public init(_ string: String) { bytes = Array(string.utf8) }

    /// Text of any bytes, UTF-8 or not, NUL included.
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// The UTF-8 bytes of a string literal.
    public init(stringLiteral value: String) { self.init(value) }

    /// The bytes as a string, or `nil` when they are not valid UTF-8.
    public var string: String? { bytes.withUnsafeBufferPointer { String(validUTF8: $0) } }

    /// Whether the bytes are valid UTF-8 (NUL is valid UTF-8).
    public var isValidUTF8: Bool { string != nil }

    /// Byte order: SQLite's BINARY collation.
    public static func < (lhs: SQLiteText, rhs: SQLiteText) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }

    /// The string, or the bytes in hex with non-UTF-8 marked, for messages.
    public var description: String { string ?? "x'" + bytes.map { hex2($0) }.joined() + "' (not UTF-8)" }
}
