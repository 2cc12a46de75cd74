/// The canonical JSON array a `union` column holds: sorted, without duplicates.
///
/// Elements are strings or integers, ordered as SQLite orders them (integers
/// by value, then strings by their UTF-8 bytes), so every replica renders the
/// same set as the same text.
///
/// ```swift
/// UnionValue.merge(.text(#"["b","a"]"#), .text(#"["c",1]"#))   // .text(#"[1,"a","b","c"]"#)
/// ```
public enum UnionValue {
    /// One element of the set.
    public enum Element: Hashable, Comparable, Sendable {
        case integer(Int64)
        case text(String)

        public static func < (lhs: Element, rhs: Element) -> Bool {
            switch (lhs, rhs) {
            case (.integer(let a), .integer(let b)): a < b
            case (.integer, .text): true
            case (.text, .integer): false
            case (.text(let a), .text(let b)): Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
            }
        }
    }

    /// The union of two column values; NULL and anything that is not such an array count as empty.
    public static func merge(_ a: SQLiteValue, _ b: SQLiteValue) -> SQLiteValue {
        render(Set(elements(of: a)).union(elements(of: b)))
    }

    /// The canonical form of one value.
    public static func canonical(_ value: SQLiteValue) -> SQLiteValue { render(Set(elements(of: value))) }

    /// The elements of a JSON array of strings and integers, or `nil` when `value` is not one.
    public static func parse(_ value: SQLiteValue) -> [Element]? {
        guard case .text(let text) = value else { return value.isNull ? [] : nil }
        var parser = Parser(bytes: text.bytes)
        return parser.array()
    }

    static func elements(of value: SQLiteValue) -> [Element] { parse(value) ?? [] }

    static func render(_ elements: Set<Element>) -> SQLiteValue {
        .text("[" + elements.sorted().map { element in
            switch element {
            case .integer(let v): String(v)
            case .text(let s): quote(s)
            }
        }.joined(separator: ",") + "]")
    }

    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A strict reader for `[ element, ... ]` with string and integer elements.
    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        mutating func array() -> [Element]? {
            skipSpace()
            guard take(UInt8(ascii: "[")) else { return nil }
            var elements: [Element] = []
            skipSpace()
            if take(UInt8(ascii: "]")) { return atEnd() ? elements : nil }
            while true {
                skipSpace()
                guard let element = element() else { return nil }
                elements.append(element)
                skipSpace()
                if take(UInt8(ascii: ",")) { continue }
                guard take(UInt8(ascii: "]")) else { return nil }
                return atEnd() ? elements : nil
            }
        }

        private mutating func element() -> Element? {
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: "\"") { return string().map(Element.text) }
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return Int64(String(decoding: bytes[start..<index], as: UTF8.self)).map(Element.integer)
        }

        private mutating func string() -> String? {
            index += 1
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flush() {
                scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                raw = []
            }
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    flush()
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    flush()
                    guard index < bytes.count else { return nil }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""): scalars.append("\"")
                    case UInt8(ascii: "\\"): scalars.append("\\")
                    case UInt8(ascii: "/"): scalars.append("/")
                    case UInt8(ascii: "b"): scalars.append("\u{08}")
                    case UInt8(ascii: "f"): scalars.append("\u{0C}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"):
                        guard let scalar = unicodeEscape() else { return nil }
                        scalars.append(scalar)
                    default: return nil
                    }
                default:
                    if byte < 0x20 { return nil }
                    raw.append(byte)
                }
            }
            return nil
        }

        /// `XXXX` after `\u`, joining a surrogate pair when one follows.
        private mutating func unicodeEscape() -> Unicode.Scalar? {
            guard let high = hex4() else { return nil }
            if (0xD800..<0xDC00).contains(high) {
                guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = hex4(),
                      (0xDC00..<0xE000).contains(low) else { return nil }
                return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
            }
            return Unicode.Scalar(high)
        }

        private mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count,
                  let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
            else { return nil }
            index += 4
            return value
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        private mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        private func atEnd() -> Bool {
            var rest = index
            while rest < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[rest]) { rest += 1 }
            return rest == bytes.count
        }
    }
}
