import Concord
import ConcordTestSupport
import ConcordTesting
import Testing

/// The reference model's own reading of `union` columns: the set DESIGN.md's words give, by hand,
/// and agreement with the engine's `UnionValue` on every value the generators draw.
@Suite("Reference union", .tags(.concordTesting), .timeLimit(.hangGuard))
struct ReferenceUnionTests {
    @Test func integersComeFirstByValueThenStringsByBytes() {
        let merged = ReferenceUnion.merge([.text(#"[10, -2, "b", -10]"#), .text(#"["a",-9,0,-0,007,"B",-100]"#)])
        #expect(merged == .text(#"[-100,-10,-9,-2,0,7,10,"B","a","b"]"#))
    }

    @Test func integersBeyondSixtyFourBitsKeepTheirDigits() {
        let merged = ReferenceUnion.merge([.text("[9223372036854775808,-9223372036854775809,1]")])
        #expect(merged == .text("[-9223372036854775809,1,9223372036854775808]"))
    }

    @Test func stringsAreTheBytesTheirSpellingDecodesTo() {
        // A pair joins into one code point, a lone surrogate keeps its three bytes, `\/` is `/`.
        let merged = ReferenceUnion.merge([.text(#"["\ud83d\ude00", "😀", "\/", "/", "\ud800\u0041"]"#)])
        let expected = Array(#"["/",""#.utf8) + [0xED, 0xA0, 0x80] + Array(#"A","😀"]"#.utf8)
        #expect(merged == .text(SQLiteText(bytes: expected)))
    }

    @Test func controlBytesAreEscapedWhenWritten() {
        let merged = ReferenceUnion.merge([.text(#"["a\u0000\n\t\r\b\"\\"]"#)])
        #expect(merged == .text(#"["a\u0000\n\t\r\u0008\"\\"]"#))
    }

    @Test func whatIsNotASetIsEmpty() {
        for value: SQLiteValue in [
            .null, .integer(3), .real(1.5), .blob(Array("[1]".utf8)), .text("[1.5]"), .text("[true]"),
            .text("[1,]"), .text(#"["a"#), .text("[1"), .text("[1] x"), .text(#"["\x"]"#), .text(""),
        ] {
            #expect(ReferenceUnion.merge([value, .text(#"["z"]"#)]) == .text(#"["z"]"#), "\(value)")
        }
        #expect(ReferenceUnion.merge([.text("\t[ 1 ,\r\n2 ]\n")]) == .text("[1,2]"))
    }

    @Test func agreesWithTheEngineOnEveryDrawnValue() throws {
        let values = Gen<SQLiteValue>.frequency([(weight: 1, gen: .notAUnionArray), (weight: 5, gen: .unionArray)])
        try Property.check(seed: 20_261_201, iterations: 2_000) { source in
            let a = source.draw(values, label: "a")
            let b = source.draw(values, label: "b")
            let reference = ReferenceUnion.merge([a, b])
            try Property.require(
                reference == UnionValue.merge(a, b), "engine \(UnionValue.merge(a, b)), reference \(reference)")
            try Property.require(ReferenceUnion.isCanonical(reference), "\(reference) is not canonical")
        }
    }
}
