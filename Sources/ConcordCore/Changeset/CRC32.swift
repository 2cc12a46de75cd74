/// An incremental CRC-32: the IEEE 802.3 polynomial, reflected, as zlib and PNG compute it.
///
/// A changeset ends with the CRC-32 of every byte before it, so a file damaged
/// in transit is refused instead of merged. Being incremental, it hashes a
/// stream chunk by chunk without holding it in memory; being table driven, it
/// costs one lookup per byte.
///
/// ```swift
/// var crc = CRC32()
/// crc.update(Array("1234".utf8))
/// crc.update(Array("56789".utf8))
/// crc.value   // 0xCBF43926
/// ```
public struct CRC32: Hashable, Sendable {
    /// The running register, pre- and post-inverted as the standard requires.
    private var state: UInt32 = 0xFFFF_FFFF

    /// A CRC over no bytes yet.
    public init() {}

    /// The CRC-32 of every byte passed to ``update(_:)`` so far (0 for none).
    public var value: UInt32 { state ^ 0xFFFF_FFFF }

    /// Feeds more bytes.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        var crc = state
        crc32Table.withUnsafeBufferPointer { table in
            // The index is masked to 0...255, so the table needs no bounds check per byte.
            let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
                for byte in buffer {
                    crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
                }
            }
            if done == nil {
                for byte in bytes {
                    crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
                }
            }
        }
        state = crc
    }

    /// The CRC-32 of `bytes` in one call.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }
}

/// The 256 remainders of the reflected polynomial 0xEDB88320, one per byte value.
private let crc32Table: [UInt32] = (0..<256).map { index -> UInt32 in
    var crc = UInt32(index)
    for _ in 0..<8 {
        crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1
    }
    return crc
}
