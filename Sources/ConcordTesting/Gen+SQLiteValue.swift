import ConcordCore

extension Gen where Value == SQLiteValue {
    /// Any SQLite value, biased toward a handful of small values so that two
    /// replicas writing generated values collide (and so conflict) often.
    ///
    /// Kinds are tried in the order NULL, integer, real, text, blob, so a
    /// shrunk counterexample prefers NULL, then integers (small ones, or the
    /// first extreme, `Int64.max`, which takes as few choices). Integers are
    /// mostly in `-3...3`, with the occasional extreme; reals are mostly the
    /// same whole numbers (`1.0` ties with `1` in SQLite's order, a classic
    /// source of order-dependent merges); text uses a two-letter
    /// alphabet with an occasional quote or accent; blobs use three bytes.
    /// No NaN is generated, so values stay `Equatable` with themselves.
    ///
    /// ```swift
    /// let row = Gen.sqliteValue.array(length: 3...3)   // e.g. [NULL, 1, 'ab']
    /// ```
    public static var sqliteValue: Gen<SQLiteValue> {
        frequency([
            (weight: 1, gen: .constant(.null)),
            (weight: 4, gen: sqliteInteger),
            (weight: 2, gen: sqliteReal),
            (weight: 3, gen: sqliteText),
            (weight: 1, gen: sqliteBlob),
        ])
    }

    /// SQLite integers: mostly `-3...3`, sometimes `Int64.min`/`Int64.max`,
    /// sometimes anything.
    public static var sqliteInteger: Gen<SQLiteValue> {
        Gen<Int64>.frequency([
            (weight: 8, gen: .int64(in: -3...3)),
            (weight: 1, gen: .element(of: [Int64.max, Int64.min])),
            (weight: 1, gen: .int64(in: Int64.min...Int64.max)),
        ]).map { .integer($0) }
    }

    /// SQLite reals: mostly whole numbers in `-3...3` (equal, in SQLite's
    /// order, to the integers ``sqliteInteger`` favours), sometimes a half,
    /// a huge value or infinity (no NaN, no negative zero).
    public static var sqliteReal: Gen<SQLiteValue> {
        Gen<Double>.frequency([
            (weight: 3, gen: Gen<Int64>.int64(in: -3...3).map { Double($0) }),
            (weight: 1, gen: .element(of: [0.5, -2.5, 1e300, .infinity])),
        ]).map { .real($0) }
    }

    /// SQLite text: mostly over `"ab"`, sometimes with a quote, a space or a
    /// non-ASCII letter, and often `é` spelled one of two ways that Swift's
    /// `String` calls equal and SQLite holds apart (precomposed, and `e` with a
    /// combining accent), where a merge written with `String`'s `<` or `==`
    /// breaks its laws.
    public static var sqliteText: Gen<SQLiteValue> {
        Gen<String>.frequency([
            (weight: 4, gen: .string(alphabet: "ab", length: 0...3)),
            (weight: 1, gen: .string(alphabet: "a'é ", length: 0...4)),
            (weight: 3, gen: .element(of: canonicallyEquivalentTexts)),
        ]).map { .text($0) }
    }

    /// Two texts that `String` compares equal and whose bytes differ.
    static let canonicallyEquivalentTexts = ["\u{E9}", "e\u{301}"]

    /// SQLite blobs of up to three bytes from `00`, `01`, `FF`.
    public static var sqliteBlob: Gen<SQLiteValue> {
        Gen<UInt8>.element(of: [0x00, 0x01, 0xFF])
            .array(length: 0...3)
            .map { .blob($0) }
    }
}
