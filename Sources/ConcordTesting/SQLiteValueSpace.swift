import ConcordCore
import Foundation

/// The awkward corners of SQLite's value space that the value, key and
/// identifier generators draw from, and the byte-level helpers they share.
enum SQLiteValueSpace {
    /// Integers at the int64 extremes, at the edges of each integer width of
    /// SQLite's record format (1, 2, 3, 4, 6, 8 bytes) and around 2^53.
    static let edgeIntegers: [Int64] = [
        .max, .min, .max - 1, .min + 1,
        127, 128, -128, -129, 32_767, 32_768, -32_768, -32_769,
        8_388_607, 8_388_608, -8_388_608, -8_388_609,
        2_147_483_647, 2_147_483_648, -2_147_483_648, -2_147_483_649,
        140_737_488_355_327, 140_737_488_355_328, -140_737_488_355_328, -140_737_488_355_329,
        1 << 53, (1 << 53) + 1, -(1 << 53) - 1, 1 << 62,
    ]

    /// Reals that text renderings, integer conversions and comparisons get wrong.
    static let edgeReals: [Double] = [
        -0.0, 0.5, -2.5, 0.1, 1.0 / 3.0, .infinity, -.infinity,
        .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
        .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
        .leastNormalMagnitude, Double.leastNormalMagnitude.nextDown,
        0x1p53, 0x1p53 + 2, 0x1p63, -0x1p63, 0x1p64,
        1e300, -1e-300, 0.1 + 0.2, 123_456_789.123_456_79, 1e15 + 0.3,
    ]

    /// Characters that trip up text handling: NUL, quotes, escapes, a
    /// combining mark on its own, emoji and flags, the byte-order mark,
    /// noncharacters, case pairs that fold differently, line separators.
    static let awkwardCharacters: [String] = [
        "a", "A", "é", "e\u{301}", "\u{0}", "'", "\"", "\\", " ", "\n", "\t", "%", "_",
        "😀", "\u{FEFF}", "\u{FFFF}", "\u{10FFFF}", "\u{7F}", "\u{80}", "ß", "İ", "ı", "Σ", "ς",
        "中", "א", "\u{200B}", "\u{2028}", "ﬁ", "🇫🇷", "\u{301}",
        // A quote carrying a combining mark is one `Character`: code that escapes quotes by searching for the
        // character "'" misses it and ends a literal early.
        "'\u{301}", "\"\u{301}",
    ]

    /// Byte sequences that are not UTF-8: a lone continuation byte, bytes
    /// that never occur, overlong forms (of NUL too), surrogates, code points
    /// past U+10FFFF and sequences cut short.
    static let invalidUTF8: [[UInt8]] = [
        [0x80], [0xFF], [0xFE], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80],
        [0xED, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80], [0xC3],
        [0xE2, 0x82], [0xF0, 0x9F, 0x98],
    ]

    /// Groups of canonically equivalent spellings with different bytes:
    /// precomposed against decomposed, singletons (Å and the Ångström sign,
    /// Ω and the Ohm sign), Hangul syllables against jamo, and combining
    /// marks in both orders.
    static let equivalentSpellings: [[String]] = [
        ["é", "e\u{301}"],
        ["Å", "A\u{30A}", "\u{212B}"],
        ["가", "\u{1100}\u{1161}"],
        ["ṩ", "s\u{323}\u{307}", "s\u{307}\u{323}", "\u{1E63}\u{307}"],
        ["Ω", "\u{2126}"],
        ["ñ", "n\u{303}"],
    ]

    /// Unicode text made of ``awkwardCharacters``.
    static let unicodeBytes: Gen<[UInt8]> =
        Gen<String>.element(of: awkwardCharacters).array(length: 0...6).map { Array($0.joined().utf8) }

    /// Bytes that are mostly not UTF-8: ASCII, awkward characters and invalid sequences mixed.
    static let mixedBytes: Gen<[UInt8]> = Gen<[UInt8]>.frequency([
        (weight: 2, gen: .element(of: [[0x61], [0x62]])),
        (weight: 1, gen: Gen<String>.element(of: awkwardCharacters).map { Array($0.utf8) }),
        (weight: 3, gen: .element(of: invalidUTF8)),
    ]).array(length: 1...6).map { Array($0.joined()) }

    /// One of the ``equivalentSpellings``, in one of its forms, after an optional ASCII prefix.
    static let equivalentSpelling: Gen<[UInt8]> = Gen { source in
        let prefix = Gen<String>.string(alphabet: "ab", length: 0...2).generate(using: &source)
        let group = equivalentSpellings[source.int(in: 0...equivalentSpellings.count - 1)]
        let form = group[source.int(in: 0...group.count - 1)]
        return Array((prefix + form).utf8)
    }

    /// A JSON string literal whose characters are written raw or as `\u` escapes.
    static let jsonString: Gen<[UInt8]> = {
        let piece = Gen<[UInt8]> { source in
            let index = source.index(weights: [3, 3, 2])
            switch index {
            case 0:
                return [source.bool() ? UInt8(ascii: "b") : UInt8(ascii: "a")]
            case 1:
                let character = awkwardCharacters[source.int(in: 0...awkwardCharacters.count - 1)]
                return jsonEscaped(character)
            default:
                let character = awkwardCharacters[source.int(in: 0...awkwardCharacters.count - 1)]
                return Array(character.utf16.map { "\\u" + hex4($0) }.joined().utf8)
            }
        }
        let plain = piece.array(length: 0...4).map { [UInt8(ascii: "\"")] + Array($0.joined()) + [UInt8(ascii: "\"")] }
        let equivalent = equivalentSpelling.map { [UInt8(ascii: "\"")] + $0 + [UInt8(ascii: "\"")] }
        return Gen<[UInt8]>.frequency([(weight: 4, gen: plain), (weight: 1, gen: equivalent)])
    }()

    /// Elements SQLite's JSON functions accept as strings and integers that a
    /// Swift `String` or `Int64` cannot hold as they are, and spellings a
    /// reader may get wrong: a high surrogate before an escape that is not a
    /// low one, uppercase hex, `\/`, `\b`, `\f`, integers of one and two digits
    /// below zero.
    static let jsonOddities: [[UInt8]] = [
        Array("-0".utf8),
        [0x22, 0x61, 0xFF, 0x22],
        Array(#""\ud800""#.utf8),
        Array(#""\udc00x""#.utf8),
        Array("9223372036854775808".utf8),
        Array("-9223372036854775809".utf8),
        Array(#""\ud800\u0041""#.utf8),
        Array(#""\uD83D\uDE00\/\b\f""#.utf8),
        Array("-10".utf8),
        Array("-9".utf8),
    ]

    /// `character` as it may appear raw inside a JSON string: `"`, `\` and controls escaped.
    static func jsonEscaped(_ character: String) -> [UInt8] {
        var out: [UInt8] = []
        for scalar in character.unicodeScalars {
            switch scalar.value {
            case 0x22: out += Array(#"\""#.utf8)
            case 0x5C: out += Array(#"\\"#.utf8)
            case 0..<0x20: out += Array(("\\u" + hex4(UInt16(scalar.value))).utf8)
            default: out += Array(String(scalar).utf8)
            }
        }
        return out
    }

    static func hex4(_ unit: UInt16) -> String {
        let digits = String(unit, radix: 16)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// `length` random bytes.
    static func randomBytes(_ length: Int, using rng: inout SeededGenerator) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length + 8)
        while bytes.count < length {
            withUnsafeBytes(of: rng.next()) { bytes.append(contentsOf: $0) }
        }
        bytes.removeLast(bytes.count - length)
        return bytes
    }

    /// `length` bytes of valid UTF-8: a random run of ``awkwardCharacters``
    /// (up to 4 KiB) repeated, then ASCII to the exact length.
    static func randomUTF8(_ length: Int, using rng: inout SeededGenerator) -> [UInt8] {
        var chunk: [UInt8] = []
        let chunkLength = min(length, 256 + Int(rng.next() % 3_840))
        while true {
            let character = awkwardCharacters[Int(rng.next() % UInt64(awkwardCharacters.count))].utf8
            if chunk.count + character.count > chunkLength { break }
            chunk += character
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        while !chunk.isEmpty, bytes.count + chunk.count <= length { bytes += chunk }
        while bytes.count < length { bytes.append(UInt8(ascii: "a") + UInt8(rng.next() % 26)) }
        return bytes
    }

    /// ``randomUTF8(_:using:)`` with about one byte in a thousand replaced by NUL or a byte that is never UTF-8.
    static func saltedUTF8(_ length: Int, using rng: inout SeededGenerator) -> [UInt8] {
        var bytes = randomUTF8(length, using: &rng)
        guard !bytes.isEmpty else { return bytes }
        for _ in 0...(length / 1_000) {
            bytes[Int(rng.next() % UInt64(bytes.count))] = [0x00, 0xFF, 0xC0, 0x80][Int(rng.next() % 4)]
        }
        return bytes
    }

    /// The same text in another canonically equivalent spelling (decomposed,
    /// else precomposed), or `nil` when both are its own bytes or it is not UTF-8.
    static func respelled(_ bytes: [UInt8]) -> [UInt8]? {
        guard let string = SQLiteText(bytes: bytes).string else { return nil }
        for other in [string.decomposedStringWithCanonicalMapping, string.precomposedStringWithCanonicalMapping] {
            let otherBytes = Array(other.utf8)
            if otherBytes != bytes { return otherBytes }
        }
        return nil
    }

    /// The bytes with the first ASCII letter's case flipped, or `nil` when there is none.
    static func caseFlipped(_ bytes: [UInt8]) -> [UInt8]? {
        guard let index = bytes.firstIndex(where: { isASCIILetter($0) }) else { return nil }
        var flipped = bytes
        flipped[index] ^= 0x20
        return flipped
    }

    static func isASCIILetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    /// The bytes as SQLite compares identifiers: ASCII letters folded to lower case, nothing else.
    static func identifierFold(_ name: String) -> [UInt8] {
        name.utf8.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 }
    }
}
