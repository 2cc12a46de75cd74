/// Hexadecimal text for bytes, and bytes from it: the one codec node ids, blobs in JSON and messages share.
///
/// ```swift
/// Hex.encode([0x0A, 0xFF])              // "0aff"
/// Hex.encode([0x0A, 0xFF], uppercase: true)   // "0AFF"
/// Hex.decode("0aFF")                    // [0x0A, 0xFF]
/// Hex.decode("abc")                     // nil: odd length
/// ```
public enum Hex {
    private static let lower = Array("0123456789abcdef".utf8)
    private static let upper = Array("0123456789ABCDEF".utf8)

    /// Two digits per byte, lowercase unless asked.
    public static func encode<Bytes: Sequence<UInt8>>(_ bytes: Bytes, uppercase: Bool = false) -> String {
        let digits = uppercase ? upper : lower
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes of an even number of hex digits in either case; `nil` for anything else.
    public static func decode(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for k in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(of: digits[k]), let low = value(of: digits[k + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// The value of one hex digit.
    package static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Two uppercase hex digits for a byte, for SQL literals in messages.
package func hex2(_ byte: UInt8) -> String { Hex.encode(CollectionOfOne(byte), uppercase: true) }
