/// The canonical JSON array a `union` column holds: sorted, without duplicates.
///
/// Elements are strings or integers, exactly as SQLite's JSON functions read
/// them (`json_each` says `text` or `integer`): a string is the bytes its JSON
/// spelling decodes to — escapes resolved, a lone surrogate as SQLite encodes
/// it, bytes that are not UTF-8 kept as they are — and an integer is its
/// decimal digits, however many. Two strings are one element only when their
/// bytes are equal (never by Unicode equivalence), and two integers only when
/// their digits are. Elements are ordered as SQLite orders them (integers by
/// value, then strings by their bytes), so every replica renders the same set
/// as the same text.
///
/// ```swift
/// UnionValue.merge(.text(#"["b","a"]"#), .text(#"["c",1]"#))   // .text(#"[1,"a","b","c"]"#)
/// ```
public enum UnionValue {
    /// One element of the set.
    public enum Element: Hashable, Comparable, Sendable {
        /// An integer: its sign and its decimal digits without leading zeros (`0` is not negative).
        case integer(negative: Bool, digits: [UInt8])
        /// A string: the bytes it decodes to.
        case text([UInt8])

        /// SQLite's order: integers before strings, integers by value however many digits, strings by their bytes.
        public static func < (lhs: Element, rhs: Element) -> Bool {
            switch (lhs, rhs) {
            case (.integer(let a, let x), .integer(let b, let y)):
                if a != b { return a }
                // Same sign: more digits is further from zero.
                let magnitude = x.count != y.count ? x.count < y.count : x.lexicographicallyPrecedes(y)
                return a ? (x != y && !magnitude) : magnitude
            case (.integer, .text): return true
            case (.text, .integer): return false
            case (.text(let a), .text(let b)): return a.lexicographicallyPrecedes(b)
            }
        }

        /// The element as an integer, when it fits in 64 bits.
        public var integerValue: Int64? {
            guard case .integer(let negative, let digits) = self else { return nil }
            return Int64(String(decoding: (negative ? [UInt8(ascii: "-")] : []) + digits, as: UTF8.self))
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
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (index, element) in elements.sorted().enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            switch element {
            case .integer(let negative, let digits):
                if negative { out.append(UInt8(ascii: "-")) }
                out += digits
            case .text(let bytes):
                quote(bytes, into: &out)
            }
        }
        out.append(UInt8(ascii: "]"))
        return .text(SQLiteText(bytes: out))
    }

    /// A JSON string of `bytes`: quote, backslash and control bytes escaped, every other byte as it is.
    static func quote(_ bytes: [UInt8], into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): out += Array(#"\""#.utf8)
            case UInt8(ascii: "\\"): out += Array(#"\\"#.utf8)
            case 0x0A: out += Array(#"\n"#.utf8)
            case 0x0D: out += Array(#"\r"#.utf8)
            case 0x09: out += Array(#"\t"#.utf8)
            case ..<0x20: out += Array(#"\u00"#.utf8) + Array(Hex.encode([byte]).utf8)
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// A strict reader for `[ element, ... ]` with string and integer elements, over bytes.
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
            let negative = take(UInt8(ascii: "-"))
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > start else { return nil }
            // A fraction or an exponent makes a real, which a union does not hold.
            if index < bytes.count, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index]) {
                return nil
            }
            let digits = Array(bytes[start..<index].drop { $0 == UInt8(ascii: "0") })
            return digits.isEmpty
                ? .integer(negative: false, digits: [UInt8(ascii: "0")])
                : .integer(negative: negative, digits: digits)
        }

        private mutating func string() -> [UInt8]? {
            index += 1
            var out: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return out
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return nil }
                    let escape = bytes[index]
                    index += 1
                    if let byte = JSONText.unescaped(escape) {
                        out.append(byte)
                    } else if escape == UInt8(ascii: "u"), let point = unicodeEscape() {
                        Self.appendUTF8(point, to: &out)
                    } else {
                        return nil
                    }
                default:
                    if byte < 0x20 { return nil }
                    out.append(byte)
                }
            }
            return nil
        }

        /// `XXXX` after `\u`, joined with a following low surrogate escape into one code point; a
        /// lone surrogate stays a code point of its own, as SQLite's JSON functions keep it.
        private mutating func unicodeEscape() -> UInt32? {
            guard let high = hex4() else { return nil }
            guard (0xD800..<0xDC00).contains(high), index + 6 <= bytes.count,
                bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else { return high }
            let mark = index
            index += 2
            guard let low = hex4(), (0xDC00..<0xE000).contains(low) else {
                index = mark
                return high
            }
            return 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
        }

        /// UTF-8 of a code point, surrogates included (three bytes, as SQLite writes them).
        private static func appendUTF8(_ point: UInt32, to out: inout [UInt8]) {
            switch point {
            case ..<0x80: out.append(UInt8(point))
            case ..<0x800: out += [UInt8(0xC0 | point >> 6), UInt8(0x80 | point & 0x3F)]
            case ..<0x10000:
                out += [UInt8(0xE0 | point >> 12), UInt8(0x80 | point >> 6 & 0x3F), UInt8(0x80 | point & 0x3F)]
            default:
                out += [
                    UInt8(0xF0 | point >> 18), UInt8(0x80 | point >> 12 & 0x3F), UInt8(0x80 | point >> 6 & 0x3F),
                    UInt8(0x80 | point & 0x3F),
                ]
            }
        }

        private mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for byte in bytes[index..<index + 4] {
                guard let digit = Hex.value(of: byte) else { return nil }
                value = value << 4 | UInt32(digit)
            }
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
