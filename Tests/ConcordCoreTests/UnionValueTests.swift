import ConcordTestTraits
import Testing

@testable import ConcordCore

/// The canonical union of `text`'s JSON array, as rendered text.
private func canonical(_ text: String) -> SQLiteValue { UnionValue.canonical(.text(text)) }

private func bytes(_ value: SQLiteValue) -> [UInt8] {
    guard case .text(let text) = value else { return [] }
    return text.bytes
}

private func integer(_ digits: String) -> UnionValue.Element {
    let negative = digits.hasPrefix("-")
    return .integer(negative: negative, digits: Array(digits.dropFirst(negative ? 1 : 0).utf8))
}

/// A `union` column's value is a set of strings and integers, read as SQLite's JSON functions read them
/// and rendered in one canonical text, so every replica holds the same bytes for the same set.
@Suite("Union values", .tags(.core))
struct UnionValueTests {
    @Test func elementsSortAsSQLiteOrdersThem() {
        #expect(
            canonical(#"[100, "a", -1, 10, "A", 0, -10, "", 9, -9, 1, "é"]"#)
                == .text(#"[-10,-9,-1,0,1,9,10,100,"","A","a","é"]"#))
        // However many digits: integers beyond 64 bits keep their digits and their place.
        #expect(
            canonical("[18446744073709551616, -9223372036854775808, -18446744073709551616, 9223372036854775807]")
                == .text("[-18446744073709551616,-9223372036854775808,9223372036854775807,18446744073709551616]"))
        #expect(integer("-5") < integer("0") && integer("-5") < integer("-4") && integer("-40") < integer("-5"))
        #expect(integer("99") < .text([]) && !(UnionValue.Element.text([]) < integer("99")))
    }

    @Test func integersConvertWhenTheyFitIn64Bits() throws {
        let elements = try #require(
            UnionValue.parse(.text("[9223372036854775807, -9223372036854775808, 9223372036854775808, -0, \"1\"]")))
        #expect(elements.map(\.integerValue) == [.max, .min, nil, 0, nil])
    }

    @Test func equalElementsAreKeptOnce() {
        #expect(canonical("[0, -0, 0]") == .text("[0]"), "-0 is 0")
        #expect(canonical(#"["a", "a", "b", "a"]"#) == .text(#"["a","b"]"#))
        #expect(canonical(#"["\u00e9", "é"]"#) == .text(#"["é"]"#), "an escape is the bytes it stands for")
        #expect(canonical(#"["\ud83d\ude00", "😀"]"#) == .text(#"["😀"]"#))
        #expect(canonical(#"["\u00e9", "e\u0301"]"#) == .text("[\"e\u{301}\",\"\u{E9}\"]"), "equivalent, not equal")
        #expect(canonical(#"[1, "1"]"#) == .text(#"[1,"1"]"#), "an integer and a string are different elements")
    }

    @Test func parsingKeepsDocumentOrderAndDuplicates() {
        #expect(UnionValue.parse(.text(#"["b","a","b"]"#)) == [.text([0x62]), .text([0x61]), .text([0x62])])
        #expect(UnionValue.parse(.text("\t[\n1\r,\"a\" ]\n")) == [integer("1"), .text([0x61])], "JSON whitespace")
        #expect(UnionValue.parse(.text("[]")) == [] && UnionValue.parse(.text(" [ ] ")) == [])
        #expect(UnionValue.parse(.null) == [], "NULL is the empty set")
    }

    @Test func anythingButAnArrayOfStringsAndIntegersIsRefused() {
        let refused = [
            "", "[", "]", "{}", "1", "\"a\"", "[1,]", "[,1]", "[1 2]", "[1]]", "[1] x", "[-]", "[1.5]", "[1e3]",
            "[1E3]",
            "[true]", "[null]", "[{}]", "[[1]]", #"["a]"#, #"["\x"]"#, #"["\u12"]"#, #"["\u12G4"]"#, #"["\"#,
            #"["\ud83d\u00"]"#, "[\"a\u{1}\"]", "[\"tab\there\"]",
        ]
        for text in refused { #expect(UnionValue.parse(.text(text)) == nil, "\(text.debugDescription)") }
        for value: SQLiteValue in [.integer(5), .real(1), .blob(Array("[]".utf8))] {
            #expect(UnionValue.parse(value) == nil, "\(value)")
        }
        // A value that is not a set merges as the empty set.
        #expect(UnionValue.merge(.integer(5), .text("[2, 1]")) == .text("[1,2]"))
        #expect(UnionValue.merge(.text("not json"), .null) == .text("[]"))
        #expect(UnionValue.canonical(.blob([0x5B, 0x5D])) == .text("[]"))
    }

    @Test func escapesDecodeToBytesAndRenderCanonically() {
        // Quote, backslash and control bytes are escaped (\t, \n, \r by name, others as \u00xx); "/" is not.
        #expect(canonical(#"["\u0001\b\f\t\n\r\"\\\/"]"#) == .text(#"["\u0001\u0008\u000c\t\n\r\"\\/"]"#))
        #expect(bytes(canonical(#"["\u00e9\u0800\ud83d\ude00"]"#)) == Array("[\"\u{E9}\u{800}\u{1F600}\"]".utf8))
    }

    @Test func loneSurrogatesAreKeptAsSQLiteEncodesThem() {
        // Three bytes each, which are not UTF-8: a replica must keep them exactly, not repair them.
        let quoted = { (inner: [UInt8]) -> [UInt8] in Array(#"[""#.utf8) + inner + Array(#""]"#.utf8) }
        #expect(bytes(canonical(#"["\ud83d"]"#)) == quoted([0xED, 0xA0, 0xBD]))
        #expect(bytes(canonical(#"["\ude00"]"#)) == quoted([0xED, 0xB8, 0x80]))
        #expect(
            bytes(canonical(#"["\ud83d\u0041"]"#)) == quoted([0xED, 0xA0, 0xBD, 0x41]), "a high one before no low one")
        #expect(bytes(canonical(#"["\ud83dx"]"#)) == quoted([0xED, 0xA0, 0xBD, 0x78]))
        // Bytes that are not UTF-8 in the stored text stay as they are.
        let raw = SQLiteValue.text(SQLiteText(bytes: quoted([0xFF, 0x61])))
        #expect(UnionValue.parse(raw) == [.text([0xFF, 0x61])])
        #expect(UnionValue.canonical(raw) == raw)
    }
}
