import Concord
import ConcordTestSupport
import ConcordTesting
import Testing

@Suite(.tags(.concordTesting))
struct SQLiteValueGenTests {
    static let samples = (0..<600 as Range<UInt64>).map { Gen.sqliteValue.sample(seed: $0) }

    @Test func everyStorageClassAppears() {
        let kinds = Set(Self.samples.map(\.typeName))
        #expect(kinds == ["null", "integer", "real", "text", "blob"])
    }

    @Test func valuesCollideOften() {
        let distinct = Set(Self.samples).count
        #expect(distinct < Self.samples.count / 3)
        let smallIntegers = Self.samples.compactMap(\.integerValue).filter { (-3...3).contains($0) }
        #expect(smallIntegers.count > 150)
    }

    @Test func noValueIsNaN() {
        for value in Self.samples {
            if case .real(let number) = value { #expect(!number.isNaN) }
        }
    }

    @Test func shrinkingPrefersNullThenSmallIntegers() {
        #expect(Gen.sqliteValue.replay([0]) == .null)
        #expect(Gen.sqliteValue.replay([1, 0, 0]) == .integer(0))
        #expect(Gen.sqliteValue.replay([1, 0, 1]) == .integer(1))
        #expect(Gen.sqliteValue.replay([3, 0, 1, 1, 0]) == .text("b"))
    }
}
