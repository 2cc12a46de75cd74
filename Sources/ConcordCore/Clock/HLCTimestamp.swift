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
    /// The packed reading: `milliseconds << 16 | counter`.
    public let rawValue: UInt64

    /// The reading packed as `rawValue`.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// The reading `milliseconds.counter`; milliseconds beyond 48 bits do not fit and lose their high bits.
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

    /// The reading SQLite stores as `sqliteValue` (the same 64 bits, read as unsigned).
    public init(sqliteValue: Int64) { rawValue = UInt64(bitPattern: sqliteValue) }

    /// Earlier: by milliseconds, then by counter, which is the order of the packed values.
    public static func < (lhs: HLCTimestamp, rhs: HLCTimestamp) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `milliseconds.counter`, the counter in five digits, such as `1700000000000.00003`: read as a decimal,
    /// it orders as the clock does (`.4` and `.12` read the other way round).
    public var description: String {
        let counter = String(counter)
        return "\(milliseconds)." + String(repeating: "0", count: max(0, 5 - counter.count)) + counter
    }
}
