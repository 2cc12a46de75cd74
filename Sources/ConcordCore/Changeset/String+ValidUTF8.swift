import Foundation

extension String {
    /// The text of `bytes` if they are valid UTF-8, `nil` if not.
    ///
    /// Decoding and repairing, then checking that nothing was repaired, is
    /// the standard library's fast path; `String(validating:as:)` goes
    /// through the generic one, which cost some 1,200 instructions per
    /// value when importing a changeset. A repair replaces bytes, so valid
    /// input is exactly the input that comes back unchanged.
    ///
    /// ```swift
    /// [0x68, 0x69].withUnsafeBufferPointer { String(validUTF8: $0) }   // "hi"
    /// [0xFF].withUnsafeBufferPointer { String(validUTF8: $0) }         // nil
    /// ```
    package init?(validUTF8 bytes: UnsafeBufferPointer<UInt8>) {
        let text = String(decoding: bytes, as: UTF8.self)
        let unchanged =
            text.utf8.withContiguousStorageIfAvailable { decoded in
                decoded.count == bytes.count
                    && (bytes.isEmpty || memcmp(decoded.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
            } ?? text.utf8.elementsEqual(bytes)
        guard unchanged else { return nil }
        self = text
    }
}
