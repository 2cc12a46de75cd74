import ConcordTestSupport
import ConcordTesting
import Testing

@Suite(.tags(.concordTesting))
struct ChoiceSourceTests {
    @Test func sameSeedDrawsSameChoices() {
        var first = ChoiceSource(seed: 99)
        var second = ChoiceSource(seed: 99)
        let a = (0..<50).map { _ in first.choose(upTo: 1_000) }
        let b = (0..<50).map { _ in second.choose(upTo: 1_000) }
        #expect(a == b)
        #expect(first.choices == a)
        #expect(!first.isReplaying)
    }

    @Test func differentSeedsDiffer() {
        let draws = (0..<10 as Range<UInt64>).map { seed in
            var source = ChoiceSource(seed: seed)
            return (0..<8).map { _ in source.choose(upTo: 1_000_000) }
        }
        #expect(Set(draws).count == 10)
    }

    @Test func freshChoicesStayInRange() {
        var source = ChoiceSource(seed: 3)
        for maximum: UInt64 in [0, 1, 2, 7, 1_000, .max - 1, .max] {
            for _ in 0..<200 {
                #expect(source.choose(upTo: maximum) <= maximum)
            }
        }
    }

    @Test func replayReturnsRecordedChoices() {
        var source = ChoiceSource(replaying: [3, 1, 4])
        #expect(source.isReplaying)
        #expect(source.choose(upTo: 10) == 3)
        #expect(source.choose(upTo: 10) == 1)
        #expect(source.choose(upTo: 10) == 4)
        #expect(source.choices == [3, 1, 4])
    }

    @Test func replayClampsOutOfRangeChoices() {
        var source = ChoiceSource(replaying: [50, 7])
        #expect(source.choose(upTo: 9) == 9)
        #expect(source.bool() == true)
        #expect(source.choices == [9, 1])
    }

    /// Shrinking once landed on an alternative of `Gen.frequency` that fresh draws never give (weight 0).
    @Test func aReplayedChoiceOfWeightZeroGivesAnIndexOfPositiveWeight() {
        var source = ChoiceSource(replaying: [0, 1, 2, 3])
        let weights: [UInt64] = [0, 5, 0, 1]
        #expect((0..<4).map { _ in source.index(weights: weights) } == [1, 1, 3, 3])
        var last = ChoiceSource(replaying: [2])
        #expect(last.index(weights: [4, 1, 0]) == 1)
        let gen = Gen<Int>.frequency([(weight: 0, gen: .constant(-1)), (weight: 1, gen: .int(in: 0...10))])
        let failure = Property.findFailure(gen, seed: 5) { x in x >= 0 && x < 5 }
        #expect(failure?.counterexample == ["5"])
    }

    @Test func exhaustedReplayYieldsMinimalChoices() {
        var source = ChoiceSource(replaying: [2])
        #expect(source.choose(upTo: 5) == 2)
        #expect(source.choose(upTo: 5) == 0)
        #expect(source.bool() == false)
        #expect(source.int(in: 10...20) == 10)
        #expect(source.int(in: -20...(-10)) == -10)
        #expect(source.choices == [2, 0, 0, 0, 0])
    }

    @Test func integersCountOutwardFromZero() {
        let values = (0...7 as ClosedRange<UInt64>).map { choice in
            var source = ChoiceSource(replaying: [choice])
            return source.int(in: -2...5)
        }
        #expect(values == [0, 1, -1, 2, -2, 3, 4, 5])
        let negative = (0...3 as ClosedRange<UInt64>).map { choice in
            var source = ChoiceSource(replaying: [choice])
            return source.int(in: -6...(-3))
        }
        #expect(negative == [-3, -4, -5, -6])
    }

    @Test func fullWidthIntegersMapEveryChoice() {
        var source = ChoiceSource(replaying: [.max, .max - 1, .max - 2, 1, 2])
        let range = Int64.min...Int64.max
        #expect(source.int64(in: range) == .min)
        #expect(source.int64(in: range) == .min + 1)
        #expect(source.int64(in: range) == .max)
        #expect(source.int64(in: range) == 1)
        #expect(source.int64(in: range) == -1)
    }

    @Test func freshIntegersCoverSmallRangesAndEdges() {
        var source = ChoiceSource(seed: 11)
        let small = (0..<300).map { _ in source.int(in: -3...3) }
        #expect(Set(small) == Set(-3...3))
        let wide = (0..<400).map { _ in source.int(in: -1_000_000...1_000_000) }
        #expect(wide.contains(-1_000_000))
        #expect(wide.contains(1_000_000))
        #expect(wide.allSatisfy { (-1_000_000...1_000_000).contains($0) })
    }

    @Test func weightedIndexFollowsWeightsAndClamps() {
        var source = ChoiceSource(seed: 5)
        let picks = (0..<1_000).map { _ in source.index(weights: [9, 0, 1]) }
        #expect(!picks.contains(1))
        #expect(picks.filter { $0 == 0 }.count > 800)
        var replay = ChoiceSource(replaying: [17])
        #expect(replay.index(weights: [1, 1, 1]) == 2)
    }

    @Test func maxChoicesBoundsARun() {
        var source = ChoiceSource(seed: 1, maxChoices: 3)
        let draws = (0..<5).map { _ in source.choose(upTo: .max) }
        #expect(source.choices.count == 3)
        #expect(draws.suffix(2) == [0, 0])
        #expect(source.overran)
    }

    @Test func topLevelDrawsAreLogged() {
        var source = ChoiceSource(replaying: [1, 4, 1, 2, 0])
        let xs = source.draw(Gen.int(in: 0...9).array(), label: "xs")
        source.note("checked")
        #expect(xs == [4, 2])
        #expect(source.log == ["xs = [4, 2]", "checked"])
    }
}
