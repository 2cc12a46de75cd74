/// A hybrid logical clock reading: 48 bits of milliseconds, 16 bits of counter.
///
/// Packing both into one 64-bit integer makes the integer order the same as
/// the `(milliseconds, counter)` order, so SQLite compares stamps with `<`
/// and the capture triggers advance the clock with one `max()`.
///
/// ```swift
/// let t = HLCTimestamp(milliseconds: 1_700_000_000_000, counter: 3)
/// t.rawValue == 1_700_000_000_000 << 16 | 3
/// ```
public struct HLCTimestamp: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public init(milliseconds: UInt64, counter: UInt16) {
        rawValue = milliseconds << 16 | UInt64(counter)
    }

    /// The zero reading, below every real stamp.
    public static let zero = HLCTimestamp(rawValue: 0)

    /// Milliseconds since the Unix epoch (the paper's `l`).
    public var milliseconds: UInt64 { rawValue >> 16 }
    /// The logical counter (the paper's `c`).
    public var counter: UInt16 { UInt16(truncatingIfNeeded: rawValue) }

    /// The value as SQLite stores it.
    public var sqliteValue: Int64 { Int64(bitPattern: rawValue) }

    public init(sqliteValue: Int64) { rawValue = UInt64(bitPattern: sqliteValue) }

    public static func < (lhs: HLCTimestamp, rhs: HLCTimestamp) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "\(milliseconds).\(counter)" }
}
