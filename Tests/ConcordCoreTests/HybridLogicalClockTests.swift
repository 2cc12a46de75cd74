import ConcordTestTraits
import Testing

@testable import ConcordCore

@Suite("Hybrid logical clock", .tags(.core))
struct HybridLogicalClockTests {
    @Test func packedEncodingOrdersLikeMillisecondsThenCounter() {
        var rng = SeededGenerator(seed: 11)
        for _ in 0..<2_000 {
            let a = (UInt64.random(in: 0..<1 << 47, using: &rng), UInt16.random(in: .min ... .max, using: &rng))
            let b = (
                UInt64.random(in: a.0 - min(a.0, 2)...a.0 + 2, using: &rng),
                UInt16.random(in: .min ... .max, using: &rng)
            )
            let x = HLCTimestamp(milliseconds: a.0, counter: a.1)
            let y = HLCTimestamp(milliseconds: b.0, counter: b.1)
            #expect((x < y) == (a.0 != b.0 ? a.0 < b.0 : a.1 < b.1))
            #expect(x.milliseconds == a.0 && x.counter == a.1)
        }
    }

    @Test func localEventsFollowThePhysicalClockAndCountWithinAMillisecond() {
        var clock = HybridLogicalClock()
        #expect(clock.tick(physical: 1_000) == HLCTimestamp(milliseconds: 1_000, counter: 0))
        #expect(clock.tick(physical: 1_000) == HLCTimestamp(milliseconds: 1_000, counter: 1))
        #expect(clock.tick(physical: 990) == HLCTimestamp(milliseconds: 1_000, counter: 2))
        #expect(clock.tick(physical: 1_005) == HLCTimestamp(milliseconds: 1_005, counter: 0))
    }

    @Test func counterOverflowRollsIntoTheNextMillisecond() {
        var clock = HybridLogicalClock(last: HLCTimestamp(milliseconds: 7, counter: .max))
        #expect(clock.tick(physical: 7) == HLCTimestamp(milliseconds: 8, counter: 0))
    }

    @Test func receiveFollowsThePaper() throws {
        var clock = HybridLogicalClock(last: HLCTimestamp(milliseconds: 100, counter: 4))
        // l == l_m: max of the counters + 1
        #expect(
            try clock.receive(HLCTimestamp(milliseconds: 100, counter: 9), from: node(1), physical: 50)
                == HLCTimestamp(milliseconds: 100, counter: 10))
        // remote ahead: remote counter + 1
        #expect(
            try clock.receive(HLCTimestamp(milliseconds: 120, counter: 3), from: node(1), physical: 50)
                == HLCTimestamp(milliseconds: 120, counter: 4))
        // physical ahead of both: counter resets
        #expect(
            try clock.receive(HLCTimestamp(milliseconds: 120, counter: 3), from: node(1), physical: 200)
                == HLCTimestamp(milliseconds: 200, counter: 0))
    }

    @Test func aStampTooFarAheadIsRefusedAndLeavesTheClockAlone() {
        var clock = HybridLogicalClock(last: HLCTimestamp(milliseconds: 1_000, counter: 0), maxDrift: 300_000)
        let before = clock
        #expect(throws: ClockDriftError(node: node(9), drift: 300_001, maxDrift: 300_000)) {
            try clock.receive(HLCTimestamp(milliseconds: 301_001, counter: 0), from: node(9), physical: 1_000)
        }
        #expect(clock == before)
        #expect(throws: Never.self) {
            try clock.receive(HLCTimestamp(milliseconds: 301_000, counter: 0), from: node(9), physical: 1_000)
        }
    }

    /// Random interleavings of local events, receives (from peers with skewed
    /// clocks) and restarts that reload the last persisted reading.
    @Test(arguments: 0..<24 as Range<UInt64>)
    func stampsStrictlyIncreaseAcrossReceivesAndRestarts(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        var physical: Int64 = 1_000_000
        var clock = HybridLogicalClock()
        var persisted = clock.last
        var issued: Set<HLCTimestamp> = []
        var previous = HLCTimestamp.zero
        for step in 0..<500 {
            physical += Int64.random(in: -20...40, using: &rng)  // clocks jump back too
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<6:
                let stamp = clock.tick(physical: physical)
                #expect(stamp > previous, "seed \(seed) step \(step): tick went backwards")
                #expect(!issued.contains(stamp), "seed \(seed) step \(step): stamp reissued")
                issued.insert(stamp)
                previous = stamp
            case 6..<9:
                let skew = Int64.random(in: -1_000...1_000, using: &rng)
                let remote = HLCTimestamp(
                    milliseconds: UInt64(physical + skew),
                    counter: UInt16.random(in: 0...5, using: &rng))
                let stamp = try clock.receive(remote, from: node(2), physical: physical)
                #expect(stamp > previous && stamp > remote, "seed \(seed) step \(step): receive not above inputs")
                previous = stamp
            default:
                // Restart: a replica persists every reading before it leaves, so it reloads the last one.
                clock = HybridLogicalClock(last: persisted)
            }
            persisted = clock.last
        }
    }
}
