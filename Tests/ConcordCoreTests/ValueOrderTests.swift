import ConcordTestTraits
import Testing

@testable import ConcordCore

/// SQLite values compare, hash, order and print as SQLite holds them: by type and bytes, never by
/// Unicode equivalence or by rounding through a double.
@Suite("SQLite values: equality, order, rendering", .tags(.core))
struct ValueOrderTests {
    /// Values at the edges the order and the renderings must get right, all different as stored.
    private static let edges: [SQLiteValue] = [
        .null,
        .integer(.min), .integer(-1), .integer(0), .integer(1), .integer(9_007_199_254_740_993), .integer(.max),
        .real(-.infinity), .real(-9_223_372_036_854_775_808.0), .real(-1.5), .real(-0.0), .real(0.0), .real(1.0),
        .real(9_007_199_254_740_992.0), .real(9_223_372_036_854_775_808.0), .real(.infinity),
        .text(""), .text("A"), .text("a"), .text("a\u{0}"), .text(SQLiteText(bytes: [0x61, 0xFF])),
        .text("\u{E9}"), .text("e\u{301}"),
        .blob([]), .blob([0x00]), .blob([0x00, 0x01]), .blob([0xFF]),
    ]

    @Test func typeNamesAreWhatTypeofReports() {
        #expect(
            [SQLiteValue.null, 1, 1.5, "x", .blob([1])].map(\.typeName) == ["null", "integer", "real", "text", "blob"])
    }

    @Test func equalValuesAreTheSameTypeAndBytes() {
        #expect(SQLiteValue.integer(1) != .real(1.0))
        #expect(SQLiteValue.real(0.0) != .real(-0.0))
        #expect(SQLiteValue.real(.nan) == .real(.nan), "a real is its bit pattern")
        #expect(SQLiteValue.text("0") != .blob([0x30]))
        // Canonically equivalent strings are equal Swift strings, but two different TEXT values.
        #expect("\u{E9}" == "e\u{301}")
        #expect(SQLiteValue.text("\u{E9}") != .text("e\u{301}"))
        #expect(SQLiteText("\u{E9}").bytes == [0xC3, 0xA9])
        // Hashing agrees: every edge value is its own element, and looks itself up.
        let set = Set(Self.edges + Self.edges)
        #expect(set.count == Self.edges.count)
        let index = Dictionary(uniqueKeysWithValues: Self.edges.enumerated().map { ($1, $0) })
        for (position, value) in Self.edges.enumerated() { #expect(index[value] == position, "\(value)") }
        #expect(index[.real(-0.0)] != index[.real(0.0)])
    }

    @Test func sqliteOrderPutsNullThenNumbersThenTextThenBlobs() {
        let shuffled: [SQLiteValue] = [.blob([0]), "b", .real(2.5), .null, .integer(-3), .blob([]), "a", .integer(7)]
        #expect(shuffled.sorted() == [.null, .integer(-3), .real(2.5), .integer(7), "a", "b", .blob([]), .blob([0])])
    }

    @Test func integersAndRealsCompareExactlyEvenBeyondTwoToThe53() {
        func less(_ a: SQLiteValue, _ b: SQLiteValue) -> Bool { a < b }
        func same(_ a: SQLiteValue, _ b: SQLiteValue) -> Bool { !(a < b) && !(b < a) }
        #expect(same(.integer(1), .real(1.0)))
        #expect(same(.real(-0.0), .real(0.0)))
        #expect(same(.integer(0), .real(-0.0)))
        #expect(less(.integer(1), .real(1.5)) && less(.real(0.5), .integer(1)))
        #expect(less(.integer(-2), .real(-1.5)) && less(.real(-1.5), .integer(-1)))
        // 2^53 + 1 rounds to 2^53 as a double; SQLite (and this order) still sees it above.
        #expect(less(.real(9_007_199_254_740_992.0), .integer(9_007_199_254_740_993)))
        #expect(!less(.integer(9_007_199_254_740_993), .real(9_007_199_254_740_992.0)))
        // Int64.max rounds up to 2^63 as a double, which is above every integer; Int64.min is exactly -2^63.
        #expect(less(.integer(.max), .real(9_223_372_036_854_775_808.0)))
        #expect(same(.integer(.min), .real(-9_223_372_036_854_775_808.0)))
        #expect(less(.real(-9_223_372_036_854_777_856.0), .integer(.min)))
        #expect(less(.real(-.infinity), .integer(.min)) && less(.integer(.max), .real(.infinity)))
    }

    @Test func textSortsByItsBytesAndBlobsBytewise() {
        #expect(SQLiteValue.text("B") < .text("a"), "BINARY collation: 0x42 before 0x61")
        #expect(SQLiteValue.text("e\u{301}") < .text("\u{E9}"), "0x65 before 0xC3")
        #expect(SQLiteValue.text("a") < .text("a\u{0}"), "a prefix comes first, NUL included")
        #expect(SQLiteValue.text("ab") < .text(SQLiteText(bytes: [0x61, 0xFF])))
        #expect(SQLiteText("ab") < SQLiteText(bytes: [0x61, 0xFF]))
        #expect(SQLiteValue.blob([0x00, 0x01]) < .blob([0xFF]) && SQLiteValue.blob([]) < .blob([0x00]))
    }

    @Test func totalOrderTellsEveryTwoDifferentValuesApart() {
        let before = SQLiteValue.totallyOrdered
        #expect(before(.real(-0.0), .real(0.0)) && !before(.real(0.0), .real(-0.0)))
        #expect(before(.integer(1), .real(1.0)) && !before(.real(1.0), .integer(1)), "integers before reals")
        #expect(before(.integer(.max), .real(-.infinity)), "by type first, then by value")
        #expect(before(.null, .integer(.min)) && before(.real(.infinity), .text("")) && before(.text("z"), .blob([])))
        #expect(!before(.real(.nan), .real(.nan)))
        let values = Self.edges
        for a in values {
            #expect(!before(a, a), "\(a) before itself")
            for b in values where a != b {
                #expect(before(a, b) != before(b, a), "\(a) and \(b) are not told apart")
                for c in values where before(a, b) && before(b, c) {
                    #expect(before(a, c), "\(a) < \(b) < \(c) but not \(a) < \(c)")
                }
            }
        }
    }

    @Test func descriptionIsAnExactSQLLiteral() {
        let cases: [(SQLiteValue, String)] = [
            (.null, "NULL"),
            (.integer(.min), "-9223372036854775808"),
            (.real(1), "1.0"),
            (.real(-0.0), "-0.0"),
            (.real(1e300), "1e+300"),
            (.real(-.infinity), "-inf"),
            (.text("it's"), "'it''s'"),
            // A quote carrying a combining mark is still a quote to SQL.
            (.text("'\u{301}x"), "'''\u{301}x'"),
            (.text(""), "''"),
            (.text("caf\u{E9}"), "'caf\u{E9}'"),
            // Text a literal could not spell: NUL, or bytes that are not UTF-8.
            (.text("a\u{0}b"), "CAST(X'610062' AS TEXT)"),
            (.text(SQLiteText(bytes: [0x61, 0xFF, 0x62])), "CAST(X'61FF62' AS TEXT)"),
            (.blob([]), "X''"),
            (.blob([0xDE, 0xAD, 0x0F]), "X'DEAD0F'"),
        ]
        for (value, expected) in cases { #expect(value.description == expected) }
    }

    @Test func accessorsConvertNothing() {
        #expect(SQLiteValue.integer(5).integerValue == 5)
        #expect(SQLiteValue.real(5).integerValue == nil)
        #expect(SQLiteValue.text("5").integerValue == nil)
        #expect(SQLiteValue.text("a\u{0}b").textValue == "a\u{0}b")
        #expect(SQLiteValue.text(SQLiteText(bytes: [0xFF])).textValue == nil)
        #expect(SQLiteValue.blob([0x61]).textValue == nil)
        #expect(SQLiteValue.blob([0x61]).blobValue == [0x61])
        #expect(SQLiteValue.blob([]).blobValue == [])
        #expect(SQLiteValue.text("a").blobValue == nil)
        #expect(SQLiteValue.null.isNull && !SQLiteValue.integer(0).isNull && !SQLiteValue.text("").isNull)
        let literals: [SQLiteValue] = [7, -2.5, "x"]
        #expect(literals == [.integer(7), .real(-2.5), .text(SQLiteText(bytes: [0x78]))])
    }

    @Test func textKeepsAnyBytesAndSaysWhenTheyAreNotUTF8() {
        let nul = SQLiteText("a\u{0}b")
        #expect(nul.bytes == [0x61, 0x00, 0x62] && nul.isValidUTF8 && nul.string == "a\u{0}b")
        let broken = SQLiteText(bytes: [0x61, 0xFF, 0x62])
        #expect(!broken.isValidUTF8 && broken.string == nil)
        #expect(broken.description == "x'61FF62' (not UTF-8)")
        #expect(SQLiteText(bytes: [0xED, 0xA0, 0x80]).description == "x'EDA080' (not UTF-8)", "a lone surrogate")
        let literal: SQLiteText = "Buy milk"
        #expect(literal.description == "Buy milk" && literal == SQLiteText(bytes: Array("Buy milk".utf8)))
        #expect(SQLiteText(bytes: []).isValidUTF8 && SQLiteText(bytes: []).description == "")
    }
}
