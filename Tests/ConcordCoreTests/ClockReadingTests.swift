import ConcordTestTraits
import Foundation
import Testing

@testable import ConcordCore

/// Where a replica reads the time, and how a clock reading is stored in SQLite's signed integers.
@Suite("Clock readings", .tags(.core))
struct ClockReadingTests {
    @Test func aManualClockMovesOnlyWhenTold() {
        let clock = ManualClock(unixMilliseconds: 1_700_000_000_000)
        #expect(clock.unixMilliseconds() == 1_700_000_000_000)
        #expect(clock.unixMilliseconds() == 1_700_000_000_000, "reading does not move it")
        clock.advance(by: 250)
        #expect(clock.unixMilliseconds() == 1_700_000_000_250)
        clock.advance(by: -1_000)
        #expect(clock.unixMilliseconds() == 1_699_999_999_250, "it can go back, as a wall clock can")
        clock.set(5)
        #expect(clock.unixMilliseconds() == 5)
    }

    @Test func aManualClockSharedBetweenTasksLosesNoAdvance() async {
        let clock = ManualClock(unixMilliseconds: 0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<1_000 { clock.advance(by: 1) } }
            }
        }
        #expect(clock.unixMilliseconds() == 8_000)
    }

    @Test func theSystemClockReadsWholeMillisecondsOfNow() {
        let before = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        let reading = SystemClock().unixMilliseconds()
        let after = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        #expect(before <= reading && reading <= after)
    }

    @Test func aReadingIsStoredAsTheSame64Bits() {
        for raw: UInt64 in [0, 1, 0xFFFF, 1 << 62, UInt64(Int64.max), 1 << 63, .max] {
            let reading = HLCTimestamp(rawValue: raw)
            #expect(HLCTimestamp(sqliteValue: reading.sqliteValue) == reading)
        }
        #expect(HLCTimestamp(rawValue: UInt64(Int64.max)).sqliteValue == .max)
        #expect(HLCTimestamp(rawValue: .max).sqliteValue == -1, "why changesets refuse clocks above Int64.max")
        #expect(HLCTimestamp(sqliteValue: .min).rawValue == 1 << 63)
        // Below the limit, SQLite's integer order is the clock's order.
        let readings = [0, 1, 0x1_0000, 0x1_0001, UInt64(Int64.max)].map(HLCTimestamp.init(rawValue:))
        #expect(readings.map(\.sqliteValue) == readings.map(\.sqliteValue).sorted())
    }

    @Test func aReadingPrintsAsMillisecondsDotCounterInFiveDigits() {
        #expect(HLCTimestamp(milliseconds: 1_700_000_000_000, counter: 3).description == "1700000000000.00003")
        #expect(HLCTimestamp(milliseconds: 1_700_000_000_000, counter: 65_535).description == "1700000000000.65535")
        #expect(HLCTimestamp.zero.description == "0.00000")
        // Read as decimals, they order as the clock does.
        let readings = [(5, 4), (5, 12), (6, 0)].map { HLCTimestamp(milliseconds: $0, counter: $1) }
        let decimals = readings.map { Double($0.description)! }
        #expect(decimals == decimals.sorted())
        // Milliseconds beyond 48 bits do not fit: their high bits are lost, the counter is kept.
        #expect(HLCTimestamp(milliseconds: 1 << 48 | 5, counter: 7) == HLCTimestamp(milliseconds: 5, counter: 7))
    }
}
