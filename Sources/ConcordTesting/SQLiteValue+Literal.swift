import ConcordCore

extension SQLiteValue {
    /// SQL text that evaluates to exactly this value: same storage class, same bytes, same bits.
    ///
    /// Generated SQL (a simulated app's statements, say) must write the value a
    /// generator drew, not one near it. Text that is UTF-8 without NUL is a quoted
    /// string; other text is `CAST(X'…' AS TEXT)`, which keeps every byte. A
    /// whole real below 2^53 is a decimal literal (`3.0`, `-0.0`), infinities
    /// overflow a literal (`9e999`); any other real is its odd integer
    /// significand times or over powers of two no larger than 2^62, since
    /// SQLite's decimal-to-double conversion is not correctly rounded for every
    /// shortest decimal (it misreads about one random double in two hundred),
    /// while integer-to-double conversion and multiplying or dividing by a power
    /// of two are exact. NaN has no literal: SQLite stores it as NULL, so this
    /// gives `NULL`.
    ///
    /// ```swift
    /// SQLiteValue.real(1.5).sqlLiteral                          // "(3.0/2)"
    /// SQLiteValue.text(SQLiteText(bytes: [0x61, 0])).sqlLiteral // "CAST(X'6100' AS TEXT)"
    /// ```
    public var sqlLiteral: String {
        // NULL, integers, text and blobs: the description is already SQL that stores exactly the value
        // (text that is not UTF-8 or holds NUL as CAST(X'…' AS TEXT)); a real's is not.
        if case .real(let value) = self { return Self.realLiteral(value) }
        return description
    }

    /// A real as SQL that SQLite evaluates to exactly its bits (see ``sqlLiteral``).
    static func realLiteral(_ value: Double) -> String {
        if value.isNaN { return "NULL" }
        if value.isInfinite { return value < 0 ? "-9e999" : "9e999" }
        if value == value.rounded(), value.magnitude < 0x1p53 {
            return (value.sign == .minus ? "-" : "") + String(Int64(value.magnitude)) + ".0"
        }
        // value = significand × 2^exponent, with an odd integer significand below 2^53.
        var significand =
            value.isSubnormal ? value.significandBitPattern : value.significandBitPattern | (1 << 52)
        var exponent = (value.isSubnormal ? -1_022 : Int(value.exponent)) - 52
        while significand & 1 == 0 {
            significand >>= 1
            exponent += 1
        }
        var literal = (value.sign == .minus ? "-" : "") + String(significand) + ".0"
        while exponent != 0 {
            let step = min(exponent.magnitude, 62)
            literal = "(" + literal + (exponent > 0 ? "*" : "/") + String(UInt64(1) << step) + ")"
            exponent += exponent > 0 ? -Int(step) : Int(step)
        }
        return literal
    }
}
