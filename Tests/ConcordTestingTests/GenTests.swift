import Concord
import ConcordTestSupport
import ConcordTesting
import Testing

@Suite(.tags(.concordTesting))
struct GenTests {
    static let nested = Gen.zip(
        Gen.string(alphabet: "xyz", length: 0...4),
        Gen.sqliteValue.array(length: 0...6),
        Gen.int(in: -50...50).optional()
    ).array(length: 1...5)

    @Test func sameSeedGivesSameValues() {
        for seed: UInt64 in 0..<20 {
            let first = Self.nested.sample(seed: seed)
            let second = Self.nested.sample(seed: seed)
            #expect(String(describing: first) == String(describing: second))
        }
    }

    @Test func differentSeedsGiveDifferentValues() {
        let samples = (0..<20 as Range<UInt64>).map { String(describing: Self.nested.sample(seed: $0)) }
        #expect(Set(samples).count > 15)
    }

    @Test func replayingRecordedChoicesReproducesTheValue() {
        for seed: UInt64 in 0..<20 {
            var source = ChoiceSource(seed: seed)
            let value = Self.nested.generate(using: &source)
            let replayed = Self.nested.replay(source.choices)
            #expect(String(describing: replayed) == String(describing: value))
        }
    }

    @Test func emptyChoicesGiveTheSimplestValues() {
        #expect(Gen.int(in: -5...5).replay([]) == 0)
        #expect(Gen.int(in: 3...9).replay([]) == 3)
        #expect(Gen.bool.replay([]) == false)
        #expect(Gen.element(of: ["x", "y"]).replay([]) == "x")
        #expect(Gen.int(in: 0...9).array().replay([]) == [])
        #expect(Gen.int(in: 0...9).array(length: 2...5).replay([]) == [0, 0])
        #expect(Gen.int(in: 0...9).optional().replay([]) == nil)
        #expect(Gen.oneOf(Gen.constant("first"), Gen.constant("second")).replay([]) == "first")
        #expect(Gen.string().replay([]) == "")
        #expect(Gen.sqliteValue.replay([]) == .null)
    }

    @Test func arrayElementsAreDeletableInPairs() {
        let gen = Gen.int(in: 0...100).array()
        #expect(gen.replay([1, 5, 1, 7, 0]) == [5, 7])
        #expect(gen.replay([1, 7, 0]) == [7])
        #expect(gen.replay([1, 5, 0, 7]) == [5])
    }

    @Test func arraysRespectTheirLengthRange() {
        let gen = Gen.int(in: 0...3).array(length: 2...4)
        for seed: UInt64 in 0..<100 {
            #expect((2...4).contains(gen.sample(seed: seed).count))
        }
        #expect(gen.replay(Array(repeating: 1, count: 50)).count == 4)
        let lengths = (0..<200 as Range<UInt64>).map { Gen.bool.array(length: 0...100).sample(seed: $0).count }
        let average = Double(lengths.reduce(0, +)) / Double(lengths.count)
        #expect((3...8).contains(average))
    }

    @Test func elementsOneOfAndOptionalsClampOnReplay() {
        #expect(Gen.element(of: ["a", "b", "c"]).replay([99]) == "c")
        #expect(Gen.int(in: 0...10).replay([1_000]) == 10)
        #expect(Gen.oneOf([Gen.constant(1), Gen.constant(2)]).replay([5]) == 2)
        #expect(Gen.int(in: 0...9).optional().replay([1, 4]) == 4)
    }

    @Test func mapFlatMapAndZipCompose() {
        let doubled = Gen.int(in: 0...10).map { $0 * 2 }
        #expect(doubled.replay([3]) == 6)
        let sized = Gen.int(in: 0...3).flatMap { n in Gen.constant(0).array(length: n...n) }
        #expect(sized.replay([2]) == [0, 0])
        let pair = Gen.zip(Gen.int(in: 0...9), Gen.bool)
        let value = pair.replay([4, 1])
        #expect(value.0 == 4 && value.1 == true)
        let triple = Gen.zip(Gen.int(in: 0...9), Gen.int(in: 0...9), Gen.int(in: 0...9)).replay([1, 2, 3])
        #expect([triple.0, triple.1, triple.2] == [1, 2, 3])
    }

    @Test func stringsUseTheAlphabet() {
        let gen = Gen.string(alphabet: "ab", length: 0...3)
        for seed: UInt64 in 0..<100 {
            let text = gen.sample(seed: seed)
            #expect(text.count <= 3)
            #expect(text.allSatisfy { $0 == "a" || $0 == "b" })
        }
        #expect(gen.replay([1, 1, 1, 0, 0]) == "ba")
    }

    @Test func frequencyFavoursHeavyGenerators() {
        let gen = Gen.frequency([(weight: 9, gen: .constant("common")), (weight: 1, gen: .constant("rare"))])
        let samples = (0..<500 as Range<UInt64>).map { gen.sample(seed: $0) }
        let common = samples.filter { $0 == "common" }.count
        #expect(common > 400 && common < 500)
    }
}
