extension Gen where Value == Int {
    /// Integers in `range`; shrinking moves toward the value nearest zero,
    /// and fresh draws hit the range's edges one time in eight.
    ///
    /// ```swift
    /// let small = Gen.int(in: -100...100)
    /// ```
    public static func int(in range: ClosedRange<Int>) -> Gen<Int> {
        Gen { source in source.int(in: range) }
    }
}

extension Gen where Value == Int64 {
    /// 64-bit integers in `range` (SQLite's integer type), laid out like
    /// ``Gen/int(in:)``.
    public static func int64(in range: ClosedRange<Int64>) -> Gen<Int64> {
        Gen { source in source.int64(in: range) }
    }
}

extension Gen where Value == Bool {
    /// `false` or `true`, evenly when fresh; `false` is simpler.
    public static var bool: Gen<Bool> {
        Gen { source in source.bool() }
    }
}

extension Gen where Value == String {
    /// Strings over a small alphabet, so that generated strings collide
    /// often; shorter strings and earlier letters are simpler.
    ///
    /// ```swift
    /// let names = Gen.string(alphabet: "ab", length: 0...3)   // "", "a", "ba", …
    /// ```
    public static func string(alphabet: String = "abc", length: ClosedRange<Int> = 0...5) -> Gen<String> {
        let letters = Array(alphabet)
        precondition(!letters.isEmpty, "string(alphabet:) needs a non-empty alphabet")
        return Gen<Character>.element(of: letters)
            .array(length: length)
            .map { String($0) }
    }
}
