import ConcordCore
import Testing

@testable import ConcordTesting

/// A merge that orders text with Swift's `String` `<`, which calls `"é"` and `"e\u{301}"` equal, breaks
/// commutativity on SQLite's values: two replicas writing the two spellings keep different bytes for good.
/// `MergeLaws` over `Gen.sqliteValue`, as the guide runs it, once reported that its laws hold.
@Suite(.tags(.property))
struct MergeLawsEquivalentTextTests {
    static func greatestByString(_ a: SQLiteValue, _ b: SQLiteValue) -> SQLiteValue {
        if let x = a.textValue, let y = b.textValue { return x < y ? b : a }
        return SQLiteValue.totallyOrdered(a, before: b) ? b : a
    }

    @Test func aMergeComparingSwiftStringsIsCaughtAtTheDefaultSettings() {
        let report = MergeLaws.check(Gen.sqliteValue) { Self.greatestByString($0, $1) }
        #expect(!report.holds)
    }

    /// Caught under most master seeds, not only the default one.
    @Test func aMergeComparingSwiftStringsIsCaughtUnderMostSeeds() {
        let caught = (1...20 as ClosedRange<UInt64>).filter { seed in
            !MergeLaws.check(Gen.sqliteValue, seed: seed) { Self.greatestByString($0, $1) }.holds
        }
        #expect(caught.count >= 18, "caught under seeds \(caught)")
    }

    /// The report tells the two spellings apart, which print alike.
    @Test func theReportWritesOutScalarsWhenTwoValuesReadTheSame() {
        let texts = MergeLaws.distinctDescriptions([SQLiteValue.text("\u{E9}"), .text("e\u{301}")]) { "\($0)" }
        #expect(texts[0] != texts[1])
        #expect(texts.allSatisfy { $0.unicodeScalars.allSatisfy { $0.isASCII } })
        #expect(MergeLaws.distinctDescriptions([SQLiteValue.text("é"), .integer(1)]) { "\($0)" } == ["'é'", "1"])
    }
}
