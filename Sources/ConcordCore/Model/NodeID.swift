/// The 16 random bytes that name a replica.
///
/// Stamps order first by clock, then by node id, so two writes with the same
/// clock reading from different replicas are still ordered the same way
/// everywhere.
///
/// ```swift
/// var rng = SeededGenerator(seed: 7)
/// let node = NodeID.random(using: &rng)
/// print(node)   // 32 hex digits
/// ```
public struct NodeID: Hashable, Comparable, Sendable, CustomStringConvertible {
    // Held as two big-endian words rather than an array: stamps carry a node
    // id, and apply copies, compares and hashes stamps for every row, which
    // on an array costs a reference count and a loop each time.
    private let high: UInt64
    private let low: UInt64

    /// How many bytes a node id has: 16.
    public static let byteCount = 16

    /// Always 16 bytes.
    public var bytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
    }

    /// Wraps 16 bytes; `nil` for any other length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        high = bytes[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
        low = bytes[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Parses 32 hex digits.
    public init?(hex: String) {
        guard let bytes = Hex.decode(hex) else { return nil }
        self.init(bytes: bytes)
    }

    /// A fresh id drawn from `generator`.
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> NodeID {
        NodeID(bytes: (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) })!
    }

    /// Byte order: the first byte that differs decides, as for the bytes themselves.
    public static func < (lhs: NodeID, rhs: NodeID) -> Bool { (lhs.high, lhs.low) < (rhs.high, rhs.low) }

    /// The 16 bytes as 32 lowercase hex digits, as ``init(hex:)`` reads them.
    public var description: String { Hex.encode(bytes) }
}
