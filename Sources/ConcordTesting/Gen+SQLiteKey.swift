import ConcordCore

extension Gen where Value == SQLiteValue {
    /// A row key: TEXT or BLOB, the two types a synced key may have, over
    /// the whole byte space.
    ///
    /// Keys identify rows on every device, so a key must be compared as its
    /// bytes: this generator gives the keys that break anything else — the
    /// empty text and the empty blob (two different keys), TEXT holding NUL
    /// or bytes that are not UTF-8, canonically equivalent spellings — as
    /// well as ordinary UUID strings.
    ///
    /// Shrinks toward `''`, then short ASCII text, then small blobs.
    ///
    /// ```swift
    /// let key = Gen.sqliteKey   // e.g. '', X'', CAST(X'6100' AS TEXT), '9B2E…-…'
    /// ```
    public static var sqliteKey: Gen<SQLiteValue> {
        let uuid = Gen<[UInt8]> { source in
            var rng = SeededGenerator(seed: source.choose(upTo: .max))
            let hex = SQLiteValueSpace.randomBytes(16, using: &rng).map { SQLiteValueSpace.hex2($0) }
            let groups = [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }
            return Array(groups.joined(separator: "-").utf8)
        }
        return frequency([
            (weight: 4, gen: Gen<String>.string(alphabet: "ab", length: 0...3).map { .text($0) }),
            (weight: 2, gen: Gen<UInt8>.element(of: [0x00, 0x01, 0xFF]).array(length: 0...3).map { .blob($0) }),
            (weight: 3, gen: anySQLiteText),
            (weight: 2, gen: anySQLiteBlob),
            (weight: 1, gen: uuid.map { .text(SQLiteText(bytes: $0)) }),
        ])
    }

    /// A value that SQL considers equal, or all but equal, to `value`, but
    /// that SQLite stores differently (another type or other bytes).
    ///
    /// Such writes are the ones a sync engine overlooks when it tests
    /// "changed" with SQL equality: `1` and `1.0`, `0.0` and `-0.0`, `'A'`
    /// and `'a'` under NOCASE, precomposed and decomposed accents, text and
    /// a blob of the same bytes, a trailing NUL, a real one unit in the last
    /// place away. The result never equals `value` (see `SQLiteValue`'s
    /// `==`: same type, same bytes). Candidates closest to `value` in SQL's
    /// eyes come first, so they are the simplest, and fresh draws favour
    /// them: the closest comes about half the time.
    ///
    /// ```swift
    /// let before = SQLiteValue.real(0)
    /// let after = Gen.sqliteLookalike(of: before)   // -0.0 first, then 0, …
    /// ```
    public static func sqliteLookalike(of value: SQLiteValue) -> Gen<SQLiteValue> {
        let candidates = SQLiteValueSpace.lookalikes(of: value)
        let weights = candidates.indices.map { $0 == 0 ? UInt64(max(candidates.count - 1, 1)) : 1 }
        return Gen { source in candidates[source.index(weights: weights)] }
    }
}

extension Gen where Value == [SQLiteValue] {
    /// Distinct row keys (by type and bytes), about half of them
    /// near-duplicates of an earlier one.
    ///
    /// A near-duplicate differs from its original in one byte, one byte
    /// more or less, its type alone (text against a blob of the same bytes),
    /// its Unicode normalization alone, or the case of one letter — the
    /// keys that a store comparing by anything but bytes and type merges
    /// into one row. Each key is a recipe of a few choices (fresh, or derived
    /// from the key at some earlier position), laid out like
    /// ``Gen/array(length:)``, so shrinking drops keys and turns derived keys
    /// into fresh simple ones; a key that comes out equal to an earlier one
    /// gets NUL bytes appended until it differs.
    ///
    /// ```swift
    /// let keys = Gen.sqliteKeys(count: 1...8)   // e.g. ['é', 'e\u{301}', X'C3A9', '']
    /// ```
    public static func sqliteKeys(count: ClosedRange<Int>) -> Gen<[SQLiteValue]> {
        let recipe = Gen<(derived: Bool, base: Int, change: Int, fresh: SQLiteValue?)> { source in
            if source.bool(probability: 0.5) {
                return (true, source.int(in: 0...64), source.int(in: 0...5), nil)
            }
            return (false, 0, 0, Gen<SQLiteValue>.sqliteKey.generate(using: &source))
        }
        return recipe.array(length: count).map { recipes in
            var keys: [SQLiteValue] = []
            var seen: Set<SQLiteValue> = []
            for recipe in recipes {
                var key: SQLiteValue
                if let fresh = recipe.fresh {
                    key = fresh
                } else if keys.isEmpty {
                    key = .text("")
                } else {
                    key = SQLiteValueSpace.nearDuplicate(of: keys[recipe.base % keys.count], change: recipe.change)
                }
                while seen.contains(key) { key = SQLiteValueSpace.appendingNUL(to: key) }
                keys.append(key)
                seen.insert(key)
            }
            return keys
        }
    }
}

extension SQLiteValueSpace {
    /// Two uppercase hex digits.
    static func hex2(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }

    /// The bytes of a TEXT or BLOB key (other values have none).
    static func bytes(of key: SQLiteValue) -> [UInt8] {
        switch key {
        case .text(let text): text.bytes
        case .blob(let bytes): bytes
        default: []
        }
    }

    /// A key of the same type as `key` with these bytes (BLOB unless `key` is TEXT).
    static func key(like key: SQLiteValue, bytes: [UInt8]) -> SQLiteValue {
        if case .text = key { return .text(SQLiteText(bytes: bytes)) }
        return .blob(bytes)
    }

    static func appendingNUL(to key: SQLiteValue) -> SQLiteValue { self.key(like: key, bytes: bytes(of: key) + [0]) }

    /// `key` changed in one small way (see ``Gen/sqliteKeys(count:)``); the
    /// type flip stands in for a change that does not apply.
    static func nearDuplicate(of key: SQLiteValue, change: Int) -> SQLiteValue {
        let bytes = bytes(of: key)
        var changed: [UInt8]?
        switch change {
        case 0: changed = bytes.isEmpty ? [0] : bytes.dropLast() + [bytes[bytes.count - 1] ^ 1]
        case 1: changed = bytes + [[0x00, 0x61, 0xFF][bytes.count % 3]]
        case 2: changed = bytes.isEmpty ? nil : Array(bytes.dropLast())
        case 4: changed = respelled(bytes)
        case 5: changed = caseFlipped(bytes)
        default: changed = nil
        }
        if let changed { return self.key(like: key, bytes: changed) }
        if case .text = key { return .blob(bytes) }
        return .text(SQLiteText(bytes: bytes))
    }

    /// Values SQL holds equal or nearly equal to `value` but stored differently, closest first; never empty.
    static func lookalikes(of value: SQLiteValue) -> [SQLiteValue] {
        var candidates: [SQLiteValue]
        switch value {
        case .null:
            candidates = [.text(""), .blob([]), .integer(0), .real(0)]
        case .integer(let integer):
            candidates = [.real(Double(integer)), .text(String(integer)), .integer(integer &+ 1)]
        case .real(let real):
            candidates = []
            if real == 0 { candidates.append(.real(-real)) }
            if real.rounded() == real, abs(real) < 0x1p63 { candidates.append(.integer(Int64(real))) }
            candidates += [.real(real.nextUp), .real(real.nextDown), .text(SQLiteText(String(real)))]
        case .text(let text):
            candidates = [caseFlipped(text.bytes), respelled(text.bytes)].compactMap { $0 }.map {
                .text(SQLiteText(bytes: $0))
            }
            candidates += [.blob(text.bytes), .text(SQLiteText(bytes: text.bytes + [0]))]
        case .blob(let bytes):
            candidates = [
                .text(SQLiteText(bytes: bytes)),
                .blob(bytes.isEmpty ? [0] : bytes.dropLast() + [bytes[bytes.count - 1] ^ 1]),
                .blob(bytes + [0]),
            ]
        }
        var distinct: [SQLiteValue] = []
        for candidate in candidates where candidate != value && !distinct.contains(candidate) {
            if case .real(let real) = candidate, real.isNaN { continue }
            distinct.append(candidate)
        }
        return distinct
    }
}
