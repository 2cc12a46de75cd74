import ConcordCore

/// A second, independent reading of what a `union` column holds, for the reference model and the
/// simulator's oracle.
///
/// Why: an oracle that asks the engine's own `UnionValue` what a set is agrees with every mistake in
/// it — a parser that skips one byte too many, an order that puts -10 after -9 — so those mistakes
/// pass every run. This one is written from DESIGN.md's words alone and shares no code with the
/// engine: a value is a JSON array of strings and integers (whitespace allowed around tokens; NULL
/// and anything else is the empty set); a string is the bytes its spelling decodes to (escapes
/// resolved, a surrogate pair joined, a lone surrogate kept as its three UTF-8-style bytes, raw
/// bytes as they are); an integer is its sign and digits without leading zeros, so `-0` is `0`;
/// the set is written sorted — integers by value before strings by bytes — without duplicates, each
/// string quoted with `"`, `\`, newline, return and tab escaped as `\"`, `\\`, `\n`, `\r`, `\t`, other
/// control bytes as `\u00xx`, and everything else as is.
///
/// It reads by splitting slices (each reader returns what it took and the rest), and orders
/// integers by a byte key, where the engine walks an index and compares digit arrays.
///
/// ```swift
/// ReferenceUnion.merge([.text(#"["b", 10]"#), .text(#"[-2,"a"]"#)])   // .text(#"[-2,10,"a","b"]"#)
/// ```
public enum ReferenceUnion {
    /// The canonical union of every value in `values`.
    public static func merge(_ values: [SQLiteValue]) -> SQLiteValue {
        var atoms: [Atom] = []
        for value in values { atoms += self.atoms(of: value) ?? [] }
        return render(atoms)
    }

    /// Whether `value` is exactly the canonical text of its own elements (how every stored union must look).
    public static func isCanonical(_ value: SQLiteValue) -> Bool { merge([value]) == value }

    /// What `value` holds as a set, or `nil` when it is not an array of strings and integers (NULL is `[]`).
    static func atoms(of value: SQLiteValue) -> [Atom]? {
        guard case .text(let text) = value else { return value.isNull ? [] : nil }
        var rest = ArraySlice(text.bytes)
        guard let open = token(UInt8(ascii: "["), rest) else { return nil }
        rest = open
        var found: [Atom] = []
        if let close = token(UInt8(ascii: "]"), rest) { return trimmed(close).isEmpty ? found : nil }
        while true {
            guard let (atom, after) = element(trimmed(rest)) else { return nil }
            found.append(atom)
            if let next = token(UInt8(ascii: ","), after) {
                rest = next
            } else if let close = token(UInt8(ascii: "]"), after) {
                return trimmed(close).isEmpty ? found : nil
            } else {
                return nil
            }
        }
    }

    /// One element of a set: an integer (sign and digits) or a string (its bytes).
    enum Atom: Hashable {
        case integer(negative: Bool, digits: [UInt8])
        case string([UInt8])

        /// Bytes whose plain byte order is the order the set is written in.
        ///
        /// `I` before `S` puts integers first. A non-negative integer is `I1`, its digit count in
        /// eight decimal places, then its digits; a negative one is `I0`, the count subtracted from
        /// 99,999,999, then each digit as nine minus it, so a longer (further from zero) negative
        /// sorts first and, for equal counts, larger digits sort first too.
        var orderKey: [UInt8] {
            switch self {
            case .string(let bytes):
                return [UInt8(ascii: "S")] + bytes
            case .integer(let negative, let digits):
                let count = negative ? 99_999_999 - digits.count : digits.count
                var key = Array("I\(negative ? 0 : 1)".utf8)
                let padded = String(count)
                key += Array(String(repeating: "0", count: 8 - padded.count).utf8) + Array(padded.utf8)
                key += negative ? digits.map { UInt8(ascii: "9") - ($0 - UInt8(ascii: "0")) } : digits
                return key
            }
        }
    }

    private static func render(_ atoms: [Atom]) -> SQLiteValue {
        var seen: Set<Atom> = []
        let unique = atoms.filter { seen.insert($0).inserted }
        let ordered = unique.map { ($0.orderKey, $0) }.sorted { $0.0.lexicographicallyPrecedes($1.0) }.map(\.1)
        let parts = ordered.map { atom -> [UInt8] in
            switch atom {
            case .integer(let negative, let digits): return (negative ? [UInt8(ascii: "-")] : []) + digits
            case .string(let bytes): return quoted(bytes)
            }
        }
        let joined = parts.enumerated().flatMap { $0.offset == 0 ? $0.element : [UInt8(ascii: ",")] + $0.element }
        return .text(SQLiteText(bytes: [UInt8(ascii: "[")] + joined + [UInt8(ascii: "]")]))
    }

    private static func quoted(_ bytes: [UInt8]) -> [UInt8] {
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = [0x22]
        for byte in bytes {
            switch byte {
            case 0x22, 0x5C: out += [0x5C, byte]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x0D: out += [0x5C, UInt8(ascii: "r")]
            case 0x09: out += [0x5C, UInt8(ascii: "t")]
            case 0x00...0x1F: out += Array(#"\u00"#.utf8) + [hex[Int(byte / 16)], hex[Int(byte % 16)]]
            default: out.append(byte)
            }
        }
        return out + [0x22]
    }

    /// `rest` without JSON whitespace in front.
    private static func trimmed(_ rest: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        rest.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
    }

    /// What follows `byte` once whitespace before it is skipped, or `nil` when `byte` is not next.
    private static func token(_ byte: UInt8, _ rest: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let start = trimmed(rest)
        return start.first == byte ? start.dropFirst() : nil
    }

    private static func element(_ rest: ArraySlice<UInt8>) -> (Atom, ArraySlice<UInt8>)? {
        if rest.first == 0x22 { return string(rest.dropFirst()).map { (.string($0.0), $0.1) } }
        let negative = rest.first == UInt8(ascii: "-")
        let unsigned = negative ? rest.dropFirst() : rest
        let digits = unsigned.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        let after = unsigned.dropFirst(digits.count)
        guard !digits.isEmpty else { return nil }
        if let next = after.first, next == UInt8(ascii: ".") || next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            return nil
        }
        let significant = Array(digits.drop { $0 == UInt8(ascii: "0") })
        if significant.isEmpty { return (.integer(negative: false, digits: [UInt8(ascii: "0")]), after) }
        return (.integer(negative: negative, digits: significant), after)
    }

    /// `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`: the letter after the backslash, and the byte it stands for.
    private static let singleEscapes: [UInt8: UInt8] = [
        0x22: 0x22, 0x5C: 0x5C, 0x2F: 0x2F, 0x62: 0x08, 0x66: 0x0C, 0x6E: 0x0A, 0x72: 0x0D, 0x74: 0x09,
    ]

    /// The bytes of a string whose opening quote is already taken, and what follows its closing quote.
    private static func string(_ body: ArraySlice<UInt8>) -> ([UInt8], ArraySlice<UInt8>)? {
        var out: [UInt8] = []
        var rest = body
        while let byte = rest.popFirst() {
            if byte == 0x22 { return (out, rest) }
            if byte < 0x20 { return nil }
            guard byte == 0x5C else {
                out.append(byte)
                continue
            }
            guard let escape = rest.popFirst() else { return nil }
            if let plain = singleEscapes[escape] {
                out.append(plain)
                continue
            }
            guard escape == UInt8(ascii: "u"), let unit = hexUnit(rest) else { return nil }
            rest = rest.dropFirst(4)
            var scalar = unit
            if (0xD800...0xDBFF).contains(unit), rest.starts(with: Array(#"\u"#.utf8)),
                let low = hexUnit(rest.dropFirst(2)), (0xDC00...0xDFFF).contains(low)
            {
                scalar = 0x10000 + (unit - 0xD800) * 0x400 + (low - 0xDC00)
                rest = rest.dropFirst(6)
            }
            out += utf8(scalar)
        }
        return nil
    }

    /// Four hex digits at the front of `rest`, as a number.
    private static func hexUnit(_ rest: ArraySlice<UInt8>) -> UInt32? {
        let four = rest.prefix(4)
        guard four.count == 4 else { return nil }
        var unit: UInt32 = 0
        for byte in four {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            unit = unit * 16 + UInt32(digit)
        }
        return unit
    }

    /// A code point as UTF-8; a surrogate (which UTF-8 forbids) takes the same three-byte shape.
    private static func utf8(_ scalar: UInt32) -> [UInt8] {
        if scalar < 0x80 { return [UInt8(scalar)] }
        if scalar < 0x800 { return [0xC0 + UInt8(scalar >> 6), 0x80 + UInt8(scalar & 0x3F)] }
        if scalar < 0x10000 {
            return [0xE0 + UInt8(scalar >> 12), 0x80 + UInt8((scalar >> 6) & 0x3F), 0x80 + UInt8(scalar & 0x3F)]
        }
        return [
            0xF0 + UInt8(scalar >> 18), 0x80 + UInt8((scalar >> 12) & 0x3F), 0x80 + UInt8((scalar >> 6) & 0x3F),
            0x80 + UInt8(scalar & 0x3F),
        ]
    }
}
