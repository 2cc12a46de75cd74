/// A stable 64-bit hash of a row key, stored with each register row.
///
/// Registers are found through a small index on this hash rather than
/// through a second copy of the key: a UUID key is 36 bytes, its hash 8, so
/// the one B-tree that every merge writes at a random position stays a
/// fraction of the size (and mostly in the page cache). Lookups compare the
/// key itself too, so collisions only cost an extra row read.
///
/// ``FNV1a`` over a type tag and the key's bytes. It is stored on disk, so it
/// must never change.
///
/// ```swift
/// KeyHash.of(.text("r1"))   // the same value on every machine and every run
/// ```
package enum KeyHash {
    package static func of(_ key: SQLiteValue) -> Int64 {
        switch key {
        case .text(let text):
            return text.bytes.withUnsafeBufferPointer { hash($0, tag: 3) }
        case .blob(let bytes):
            return bytes.withUnsafeBufferPointer { hash($0, tag: 4) }
        case .integer(let value):
            return withUnsafeBytes(of: value.littleEndian) { hash($0.bindMemory(to: UInt8.self), tag: 1) }
        case .real(let value):
            return withUnsafeBytes(of: value.bitPattern.littleEndian) { hash($0.bindMemory(to: UInt8.self), tag: 2) }
        case .null:
            return hash(UnsafeBufferPointer(start: nil, count: 0), tag: 0)
        }
    }

    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>, tag: UInt8) -> Int64 {
        var hash = FNV1a()
        hash.add(tag)
        hash.add(bytes)
        return Int64(bitPattern: hash.value)
    }
}
