import ConcordTestSupport
import ConcordTesting
import Testing

@Suite(.tags(.concordTesting), .timeLimit(.hangGuard))
struct ShrinkerTests {
    /// The choices of the first seed whose value satisfies `fails`.
    static func failingChoices<Value>(_ gen: Gen<Value>, _ fails: (Value) -> Bool) -> [UInt64] {
        for seed: UInt64 in 0..<10_000 {
            var source = ChoiceSource(seed: seed)
            if fails(gen.generate(using: &source)) { return source.choices }
        }
        Issue.record("no failing case found")
        return []
    }

    /// Shrinks the first failing case of `gen` and returns its value.
    static func minimal<Value>(_ gen: Gen<Value>, _ fails: @escaping (Value) -> Bool) -> Value {
        let start = failingChoices(gen, fails)
        let result = Shrinker.shrink(start) { candidate in
            var source = ChoiceSource(replaying: candidate)
            return fails(gen.generate(using: &source)) ? source.choices : nil
        }
        return gen.replay(result.choices)
    }

    @Test func arrayWithLargeSumShrinksToOneElement() {
        let gen = Gen.int(in: 0...1_000).array(length: 0...20)
        let found = Self.minimal(gen) { $0.reduce(0, +) > 100 }
        #expect(found == [101])
    }

    @Test func arrayContainingLargeElementShrinksToIt() {
        let gen = Gen.int(in: -1_000...1_000).array(length: 0...20)
        let found = Self.minimal(gen) { $0.contains { $0 >= 50 } }
        #expect(found == [50])
    }

    @Test func singleIntegerShrinksToItsBoundary() {
        let gen = Gen.int(in: 0...1_000_000)
        #expect(Self.minimal(gen) { $0 > 1_000 } == 1_001)
        let negative = Gen.int(in: -1_000_000...1_000_000)
        #expect(Self.minimal(negative) { $0 < -777 } == -778)
    }

    @Test func distinctPairShrinksToOneAndZero() {
        // Trailing zero choices are free (replay pads with 0), so [1] — that
        // is (1, 0) — is simpler than [0, 1].
        let gen = Gen.zip(Gen.int(in: -100...100), Gen.int(in: -100...100))
        let found = Self.minimal(gen) { $0.0 != $0.1 }
        #expect(found.0 == 1 && found.1 == 0)
    }

    @Test func stringsShrinkToShortEarlyLetters() {
        let gen = Gen.string(alphabet: "abc", length: 0...10)
        #expect(Self.minimal(gen) { $0.count >= 3 } == "aaa")
        #expect(Self.minimal(gen) { $0.contains("c") } == "c")
    }

    @Test func rawSequencesShrinkWithAPlainPredicate() {
        let result = Shrinker.shrink([9, 9, 9, 3]) { $0.contains { $0 >= 5 } }
        #expect(result.choices == [5])
        #expect(!result.exhausted)
        let sorted = Shrinker.shrink([7, 2]) { $0.count == 2 && $0[0] > $0[1] }
        #expect(sorted.choices == [1, 0])
    }

    @Test func shrinkingIsDeterministic() {
        let start = Self.failingChoices(Gen.int(in: 0...1_000).array()) { $0.reduce(0, +) > 500 }
        let fails: ([UInt64]) -> Bool = { Gen.int(in: 0...1_000).array().replay($0).reduce(0, +) > 500 }
        let first = Shrinker.shrink(start, stillFails: fails)
        let second = Shrinker.shrink(start, stillFails: fails)
        #expect(first == second)
    }

    @Test func predicateCallsAreBounded() {
        var calls = 0
        let start = (0..<100).map { UInt64($0 * 7 % 13) }
        let result = Shrinker.shrink(start, maxCalls: 25) { candidate in
            calls += 1
            return candidate.count > 40
        }
        #expect(calls <= 25)
        #expect(result.calls == calls)
        #expect(result.exhausted)
        #expect(result.choices.count > 40)
    }

    @Test func passingSequencesAreLeftAlone() {
        let result = Shrinker.shrink([0]) { _ in true }
        #expect(result.choices == [])
        let unchanged = Shrinker.shrink([0, 0]) { $0 == [0, 0] }
        #expect(unchanged.choices == [0, 0])
        #expect(unchanged.improvements == 0)
    }
}
