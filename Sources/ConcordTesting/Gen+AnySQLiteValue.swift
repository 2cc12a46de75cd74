import ConcordCore

extension Gen where Value == SQLiteValue {
    /// The lengths ``anySQLiteValue`` gives its occasional large text and blobs:
    /// hundreds of kilobytes, enough to spill SQLite pages onto overflow chains
    /// and to make a changeset large.
    public static var defaultLargeLengths: ClosedRange<Int> { 100_000...300_000 }

    /// Any value SQLite can store, edge cases included, with occasional large
    /// values (see ``defaultLargeLengths``).
    ///
    /// Where ``sqliteValue`` stays in a few small values so that replicas
    /// collide, this one covers the whole value space, to test that values
    /// survive storage, capture, changesets and merging *exactly*: integers
    /// at every width SQLite's record format distinguishes and at the int64
    /// extremes; reals including `-0.0`, ±infinity, the largest and smallest
    /// finite doubles, subnormals, whole numbers equal to small integers
    /// (`1.0` against `1`) and arbitrary bit patterns; text holding NUL,
    /// bytes that are not UTF-8, and canonically equivalent but byte-different
    /// spellings (precomposed `é` against `e` + combining accent); blobs
    /// including the empty blob. NaN is never generated: SQLite stores it as
    /// NULL, so it is not a value SQLite can hold.
    ///
    /// Kinds are tried in the order NULL, integer, real, text, blob, large,
    /// and each kind's simplest value is its zero (`0`, `0.0`, `''`, `X''`),
    /// so shrunk counterexamples are small and simple. Fresh draws give a
    /// large value about one time in 35.
    ///
    /// ```swift
    /// let row = Gen.anySQLiteValue.array(length: 4...4)   // e.g. [-0.0, CAST(X'61FF' AS TEXT), X'', 9223372036854775807]
    /// ```
    public static var anySQLiteValue: Gen<SQLiteValue> { anySQLiteValue(largeLengths: defaultLargeLengths) }

    /// Any value SQLite can store, as ``anySQLiteValue``, with large text and
    /// blobs of `largeLengths` bytes, or none when `largeLengths` is `nil`.
    ///
    /// ```swift
    /// let small = Gen.anySQLiteValue(largeLengths: nil)              // never larger than a few dozen bytes
    /// let huge = Gen.anySQLiteValue(largeLengths: 4_000_000...5_000_000)
    /// ```
    public static func anySQLiteValue(largeLengths: ClosedRange<Int>?) -> Gen<SQLiteValue> {
        var kinds: [(weight: UInt64, gen: Gen<SQLiteValue>)] = [
            (weight: 2, gen: .constant(.null)),
            (weight: 8, gen: anySQLiteInteger),
            (weight: 8, gen: anySQLiteReal),
            (weight: 10, gen: anySQLiteText),
            (weight: 6, gen: anySQLiteBlob),
        ]
        if let largeLengths { kinds.append((weight: 1, gen: largeSQLiteValue(lengths: largeLengths))) }
        return frequency(kinds)
    }

    /// Any 64-bit integer, biased toward small ones, the extremes and the
    /// boundaries between the integer widths of SQLite's record format
    /// (1, 2, 3, 4, 6 and 8 bytes) and of exact doubles (2^53).
    ///
    /// Shrinks toward `0` among the small ones; a failure that an edge value
    /// gives may shrink to the first edge, `Int64.max`, which takes as few
    /// choices as `0` does (shrinking works on choices, see ``Shrinker``).
    ///
    /// ```swift
    /// let counterValues = Gen.anySQLiteInteger
    /// ```
    public static var anySQLiteInteger: Gen<SQLiteValue> {
        Gen<Int64>.frequency([
            (weight: 4, gen: .int64(in: -3...3)),
            (weight: 3, gen: .element(of: SQLiteValueSpace.edgeIntegers)),
            (weight: 2, gen: .int64(in: Int64.min...Int64.max)),
        ]).map { .integer($0) }
    }

    /// Any double but NaN: whole numbers equal to small integers, edge
    /// values (`-0.0`, ±infinity, the largest and smallest finite doubles,
    /// the largest subnormal, 2^53 and 2^63, values that need all 17
    /// significant digits), random subnormals and random finite bit patterns.
    ///
    /// Shrinks toward `0.0`.
    ///
    /// ```swift
    /// let reals = Gen.anySQLiteReal   // e.g. -0.0, 5e-324, 1.7976931348623157e308, -inf
    /// ```
    public static var anySQLiteReal: Gen<SQLiteValue> {
        let subnormal = Gen<Double> { source in
            let negative = source.bool()
            let significand = source.int64(in: 1...(1 << 52) - 1)
            return Double(
                sign: negative ? .minus : .plus, exponentBitPattern: 0,
                significandBitPattern: UInt64(significand))
        }
        let finite = Gen<Double> { source in
            let negative = source.bool()
            let exponent = source.int(in: 0...2_046)
            let significand = source.int64(in: 0...(1 << 52) - 1)
            return Double(
                sign: negative ? .minus : .plus, exponentBitPattern: UInt(exponent),
                significandBitPattern: UInt64(significand))
        }
        return Gen<Double>.frequency([
            (weight: 4, gen: Gen<Int64>.int64(in: -3...3).map { Double($0) }),
            (weight: 4, gen: .element(of: SQLiteValueSpace.edgeReals)),
            (weight: 1, gen: subnormal),
            (weight: 2, gen: finite),
        ]).map { .real($0) }
    }

    /// TEXT of up to a few dozen bytes over the whole byte space: short
    /// ASCII, Unicode with NUL, quotes, emoji, byte-order marks and
    /// noncharacters, byte sequences that are not UTF-8 (overlong forms,
    /// surrogates, truncated sequences, lone continuation bytes), and
    /// canonically equivalent spellings in their different byte forms.
    ///
    /// Shrinks toward `''`, then short ASCII.
    ///
    /// ```swift
    /// let titles = Gen.anySQLiteText   // e.g. 'e\u{301}', CAST(X'6100FF' AS TEXT)
    /// ```
    public static var anySQLiteText: Gen<SQLiteValue> {
        Gen<[UInt8]>.frequency([
            (weight: 3, gen: Gen<String>.string(alphabet: "ab", length: 0...3).map { Array($0.utf8) }),
            (weight: 3, gen: SQLiteValueSpace.unicodeBytes),
            (weight: 2, gen: SQLiteValueSpace.mixedBytes),
            (weight: 2, gen: SQLiteValueSpace.equivalentSpelling),
        ]).map { .text(SQLiteText(bytes: $0)) }
    }

    /// BLOBs of up to eight bytes, mostly `00`, `01`, `7F`, `80` and `FF`,
    /// sometimes any byte.
    ///
    /// Shrinks toward `X''`, the empty blob (which differs from `''` and NULL).
    ///
    /// ```swift
    /// let blobs = Gen.anySQLiteBlob   // e.g. X'', X'00FF'
    /// ```
    public static var anySQLiteBlob: Gen<SQLiteValue> {
        Gen<UInt8>.frequency([
            (weight: 3, gen: .element(of: [0x00, 0x01, 0x7F, 0x80, 0xFF])),
            (weight: 1, gen: Gen<Int>.int(in: 0...255).map { UInt8($0) }),
        ]).array(length: 0...8).map { .blob($0) }
    }

    /// Large TEXT or BLOB values of `lengths` bytes: random blobs, UTF-8
    /// text mixing one- to four-byte characters, and text salted with NUL
    /// and bytes that are not UTF-8.
    ///
    /// The bytes come from a seed that is itself a choice, so a large value
    /// costs three choices, replays exactly, and shrinks toward the shortest
    /// length in `lengths`.
    ///
    /// ```swift
    /// let photo = Gen.largeSQLiteValue(lengths: 3_000_000...4_000_000)
    /// ```
    public static func largeSQLiteValue(lengths: ClosedRange<Int>) -> Gen<SQLiteValue> {
        precondition(lengths.lowerBound >= 0, "large values cannot have a negative length")
        return Gen { source in
            let kind = source.index(weights: [2, 2, 1])
            let length = source.int(in: lengths)
            var rng = SeededGenerator(seed: source.choose(upTo: .max))
            switch kind {
            case 0: return .blob(SQLiteValueSpace.randomBytes(length, using: &rng))
            case 1: return .text(SQLiteText(bytes: SQLiteValueSpace.randomUTF8(length, using: &rng)))
            default: return .text(SQLiteText(bytes: SQLiteValueSpace.saltedUTF8(length, using: &rng)))
            }
        }
    }

    /// A JSON array of strings and integers: what a `union` column holds.
    ///
    /// Strings draw from the same awkward characters as ``anySQLiteText``
    /// (written raw or as `\u` escapes, surrogate pairs included), and integers from
    /// ``anySQLiteInteger``; arrays come unsorted, with duplicates, with
    /// spaces, and sometimes hold two spellings of one string that differ
    /// only in Unicode normalization. A few elements are legal JSON that
    /// SQLite accepts but that no Swift `String` or `Int64` holds exactly —
    /// raw bytes that are not UTF-8, a lone surrogate escape, an integer
    /// beyond 64 bits — since an app may store them too.
    ///
    /// Shrinks toward `[]`.
    ///
    /// ```swift
    /// let tags = Gen.unionArray   // e.g. ["b",1,"a", "e\u0301"]
    /// ```
    public static var unionArray: Gen<SQLiteValue> {
        let element = Gen<[UInt8]>.frequency([
            (weight: 4, gen: SQLiteValueSpace.jsonString),
            (weight: 3, gen: anySQLiteInteger.map { Array(String($0.integerValue ?? 0).utf8) }),
            (weight: 1, gen: .element(of: SQLiteValueSpace.jsonOddities)),
        ])
        return Gen { source in
            let elements = element.array(length: 0...6).generate(using: &source)
            // JSON's four whitespace bytes, around any token, sometimes.
            let spaces: [[UInt8]] = [[], [0x20], [0x09], [0x0A], [0x0D, 0x0A], [0x20, 0x20]]
            let spaced = source.bool(probability: 0.2)
            func space() -> [UInt8] { spaced ? spaces[source.int(in: 0...spaces.count - 1)] : [] }
            var bytes: [UInt8] = space() + [UInt8(ascii: "[")]
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes += space() + [UInt8(ascii: ",")] }
                bytes += space() + element
            }
            bytes += space() + [UInt8(ascii: "]")] + space()
            return .text(SQLiteText(bytes: bytes))
        }
    }

    /// Values an app may write to a `union` column that are not arrays of strings and integers, which
    /// a union counts as the empty set: other JSON (reals, objects, nested arrays, `true`), JSON that
    /// SQLite refuses (a trailing comma, an open string, a raw control byte), values of other types,
    /// a ``unionArray`` cut off before its closing bracket (mid-string, mid-number, after a comma), as a
    /// write that was cut short leaves it, and one that SQLite's JSON functions read as an array though it
    /// is none: a BLOB (an app binding the JSON's bytes, as `Data`) or text with a NUL and more after it.
    ///
    /// ```swift
    /// let tags = Gen.frequency([(weight: 1, gen: .notAUnionArray), (weight: 9, gen: .unionArray)])
    /// ```
    public static var notAUnionArray: Gen<SQLiteValue> {
        let weighted: [(weight: UInt64, gen: Gen<SQLiteValue>)] = [
            (4, notAUnionOddities), (2, cutUnionArray), (1, disguisedUnionArray),
        ]
        return .frequency(weighted)
    }

    /// A ``unionArray`` that SQLite's JSON functions read as one, but that is no union's TEXT: its bytes as a
    /// BLOB, or the text with a NUL and more after it (those functions stop reading at the NUL).
    private static var disguisedUnionArray: Gen<SQLiteValue> {
        Gen { source in
            guard case .text(let text) = unionArray.generate(using: &source) else { return .blob(Array("[]".utf8)) }
            return source.bool() ? .blob(text.bytes) : .text(SQLiteText(bytes: text.bytes + [0] + Array("]x".utf8)))
        }
    }

    /// A ``unionArray`` cut somewhere after its opening bracket and before its closing one.
    private static var cutUnionArray: Gen<SQLiteValue> {
        Gen { source in
            guard case .text(let text) = unionArray.generate(using: &source),
                let open = text.bytes.firstIndex(of: UInt8(ascii: "[")),
                let close = text.bytes.lastIndex(of: UInt8(ascii: "]"))
            else { return .text("[1") }  // Never taken: a drawn array always has both brackets.
            return .text(SQLiteText(bytes: Array(text.bytes[..<source.int(in: open + 1...close)])))
        }
    }

    /// Fixed values that are no union array, each a way an app or a peer gets one wrong.
    private static var notAUnionOddities: Gen<SQLiteValue> {
        .element(of: [
            .text("[1.5]"), .text("[1e3]"), .text("[true]"), .text("[null]"), .text(#"[["a"]]"#),
            .text(#"{"a":1}"#), .text(#""a""#), .text("7"), .text("[1,]"), .text("[,1]"), .text(#"["a"#),
            .text("[1"), .text("[-"), .text("[12"), .text("[1] x"), .text("[+1]"), .text("[--1]"), .text(#"["\x"]"#),
            .text(#"["\u12"]"#),
            .text(SQLiteText(bytes: Array(#"["a"#.utf8) + [0x01] + Array(#""]"#.utf8))), .text(""),
            .integer(3), .real(1.5), .blob(Array("[1]".utf8)),
        ])
    }
}
