import ConcordTestSupport
import ConcordTesting
import Testing

struct TooBig: Error { let value: Int }
struct TooSmall: Error { let value: Int }

@Suite(.tags(.concordTesting), .timeLimit(.hangGuard))
struct PropertyTests {
    static func sumAtMost100(_ source: inout ChoiceSource) throws {
        let xs = source.draw(Gen.int(in: 0...1_000).array(), label: "xs")
        if xs.reduce(0, +) > 100 { throw TooBig(value: xs.reduce(0, +)) }
    }

    @Test func passingPropertyDoesNotThrow() throws {
        try Property.check(seed: 1, iterations: 200) { source in
            let x = source.draw(Gen.int(in: -10...10))
            try Property.require(abs(x) <= 10, "x out of range")
        }
        try Property.check(Gen.int(in: 0...9), seed: 2) { $0 < 10 }
    }

    @Test func failureIsShrunkAndDescribed() throws {
        let failure = try #require(Property.findFailure(seed: 1234, iterations: 100, Self.sumAtMost100))
        #expect(failure.masterSeed == 1234)
        #expect(failure.counterexample == ["xs = [101]"])
        #expect(failure.error is TooBig)
        #expect(failure.choices.count <= 3)
        let text = failure.description
        #expect(text.contains("master seed 1234"))
        #expect(text.contains("iteration seed \(failure.iterationSeed)"))
        #expect(text.contains("xs = [101]"))
        #expect(text.contains("Property.replay(seed: \(failure.iterationSeed))"))
        #expect(text.contains("CONCORD_SEED=1234"))
    }

    @Test func checkThrowsThePropertyFailure() {
        #expect(throws: PropertyFailure.self) {
            try Property.check(seed: 7, Self.sumAtMost100)
        }
    }

    @Test func sameMasterSeedFindsTheSameFailure() throws {
        let first = try #require(Property.findFailure(seed: 42, Self.sumAtMost100))
        let second = try #require(Property.findFailure(seed: 42, Self.sumAtMost100))
        #expect(first.iteration == second.iteration)
        #expect(first.iterationSeed == second.iterationSeed)
        #expect(first.choices == second.choices)
        #expect(first.description == second.description)
        #expect(first.iterationSeed == Property.iterationSeed(masterSeed: 42, iteration: first.iteration ?? -1))
    }

    @Test func replayingTheIterationSeedReproducesTheFailure() throws {
        let failure = try #require(Property.findFailure(seed: 9, Self.sumAtMost100))
        do {
            try Property.replay(seed: failure.iterationSeed, Self.sumAtMost100)
            Issue.record("replay passed")
        } catch {
            #expect(error.choices == failure.choices)
            #expect(error.counterexample == failure.counterexample)
            #expect(error.masterSeed == nil)
            #expect(!error.description.contains("CONCORD_SEED"))
        }
        #expect(throws: TooBig.self) {
            try Property.replay(choices: failure.choices, Self.sumAtMost100)
        }
    }

    @Test func shrinkingKeepsTheSameKindOfError() throws {
        let failure = try #require(
            Property.findFailure(seed: 3) { source in
                let x = source.draw(Gen.int(in: 0...1_000), label: "x")
                if x >= 500 { throw TooBig(value: x) }
                if (1...9).contains(x) { throw TooSmall(value: x) }
            })
        if failure.error is TooBig {
            #expect(failure.counterexample == ["x = 500"])
        } else {
            #expect(failure.counterexample == ["x = 1"])
        }
    }

    @Test func genPredicatePropertiesShrinkTheValue() throws {
        let failure = try #require(Property.findFailure(Gen.int(in: 0...1_000), seed: 5) { $0 < 300 })
        #expect(failure.counterexample == ["300"])
        #expect(failure.error is PredicateFailed)
    }

    @Test func requireFailsTheCaseWithItsMessage() throws {
        let failure = try #require(
            Property.findFailure(seed: 8) { source in
                let word = source.draw(Gen.string(alphabet: "abc", length: 0...8), label: "word")
                try Property.require(!word.contains("cc"), "no double c")
            })
        #expect(failure.counterexample == ["word = cc"])
        #expect((failure.error as? PredicateFailed)?.message == "no double c")
        #expect(failure.description.contains("Error: no double c"))
    }

    @Test func iterationSeedsAreDistinctAndStable() {
        let seeds = (0..<1_000).map { Property.iterationSeed(masterSeed: 77, iteration: $0) }
        #expect(Set(seeds).count == 1_000)
        #expect(seeds == (0..<1_000).map { Property.iterationSeed(masterSeed: 77, iteration: $0) })
        #expect(Property.masterSeed(5) == 5)
    }

    /// `CONCORD_SEED` takes decimal or `0x` hexadecimal; anything else stops the run (`masterSeed()`) rather than
    /// quietly running the default seed.
    @Test func seedsAreReadInDecimalOrHexadecimalAndNothingElse() {
        #expect(Property.parseSeed("42") == 42)
        #expect(Property.parseSeed(" 0x2A ") == 42)
        #expect(Property.parseSeed("0X2a") == 42)
        #expect(Property.parseSeed("18446744073709551615") == .max)
        for text in ["", "4 2", "-1", "0x", "2A", "18446744073709551616", "0x1_0"] {
            #expect(Property.parseSeed(text) == nil, "\(text)")
        }
    }

    /// A body that fails only on its first run is reported as flaky: its minimal case passes when run again.
    @Test func aFailureThatDoesNotReproduceIsReportedAsFlaky() throws {
        final class Runs: @unchecked Sendable { var count = 0 }
        let runs = Runs()
        let failure = try #require(
            Property.findFailure(seed: 1, iterations: 1) { source in
                _ = source.draw(Gen.int(in: 0...100), label: "x")
                runs.count += 1
                if runs.count == 1 { throw TooBig(value: 0) }
            })
        #expect(!failure.reproduced)
        #expect(failure.description.contains("Flaky: the minimal case passed when run again"))
        let steady = try #require(Property.findFailure(seed: 1, iterations: 1) { _ in throw TooBig(value: 0) })
        #expect(steady.reproduced && !steady.description.contains("Flaky"))
    }

    @Test func zeroIterationsFindNothing() {
        #expect(Property.findFailure(seed: 1, iterations: 0) { _ in throw TooBig(value: 0) } == nil)
    }
}
