/// The 64-bit FNV-1a hash: the one hash Concord computes, for register keys on disk and for fingerprints.
///
/// It is small, fast on short inputs and the same on every machine, which is
/// all a key index and a trace fingerprint need (neither resists an attacker;
/// lookups compare the key itself). ``KeyHash`` stores it on disk, so the
/// function must never change without a metadata-layout migration.
///
/// ```swift
/// var hash = FNV1a()
/// hash.add("device 0 writes")
/// hash.hex   // "…" — sixteen hex digits, the same on every run
/// ```
package struct FNV1a: Sendable {
    /// The hash of what was added so far.
    package private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    /// The hash of nothing.
    package init() {}

    /// Adds one byte.
    @inline(__always)
    package mutating func add(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }

    /// Adds every byte of `bytes`.
    @inline(__always)
    package mutating func add<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        if bytes.withContiguousStorageIfAvailable({ add(contiguous: $0) }) != nil { return }
        for byte in bytes { add(byte) }
    }

    /// Adds bytes that lie next to each other in memory, in a loop the compiler sees whole (a generic
    /// sequence of a whole database file, iterated through its protocol, costs twenty times more).
    private mutating func add(contiguous bytes: UnsafeBufferPointer<UInt8>) {
        var value = value
        for byte in bytes { value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        self.value = value
    }

    /// Adds the UTF-8 bytes of `text`.
    package mutating func add(_ text: String) { add(text.utf8) }

    /// ``value`` as sixteen lowercase hex digits.
    package var hex: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
