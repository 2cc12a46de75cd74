import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// Increments made on several devices at once that add up past the 64-bit range show the largest (or
/// smallest) integer everywhere, never a count wrapped to the other sign.
///
/// Each device's write is a valid integer (the capture trigger refuses one that is not), so only the
/// merged sum can pass the range: it was wrapped, so two +500s on a count near `Int64.max` showed
/// -9223372036854775616 on both devices with `check` content.
@Suite("Counters past the 64-bit range", .tags(.replica), .timeLimit(.hangGuard))
struct CounterOverflowTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    @Test(arguments: [(Int64.max - 807, Int64(500), Int64.max), (Int64.min + 808, Int64(-500), Int64.min)])
    func concurrentIncrementsPastTheRangeHoldAtItsEnd(start: Int64, step: Int64, shown: Int64) throws {
        let devices = try (1...2).map { node in
            let device = try Replica.inMemory(configuration: configuration(node: UInt8(node), clock: clock))
            try device.database.execute("CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL DEFAULT 0)")
            try device.enableSync(on: "t", merges: ["n": .counter])
            return device
        }
        try devices[0].database.execute("INSERT INTO t VALUES ('likes', ?)", [.integer(start)])
        _ = try Replica.sync(devices)
        for device in devices {
            try device.database.execute("UPDATE t SET n = n + ? WHERE id = 'likes'", [.integer(step)])
        }
        _ = try Replica.sync(devices)
        for device in devices {
            #expect(try device.database.scalar("SELECT n FROM t") == .integer(shown))
            #expect(try device.check().isConsistent)
        }
    }

    /// A device's own share held at the end of the range, never wrapped (a probe of merge kinds found both):
    /// a share that adds up past the range, and one write that changes the count by more than an `Int64`.
    /// Every device shows one value, of the sign the app wrote: the count as the share at its end gives it.
    @Test func aDevicesOwnSharePastTheRangeHoldsAtItsEnd() throws {
        let devices = try (1...2).map { node in
            let device = try Replica.inMemory(configuration: configuration(node: UInt8(node), clock: clock))
            try device.database.execute("CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL DEFAULT 0)")
            try device.enableSync(on: "t", merges: ["n": .counter])
            return device
        }
        func write(_ device: Int, _ sql: String) throws {
            try devices[device].database.execute(sql)
            _ = try Replica.sync(devices)
        }
        func shown(_ key: String) throws -> [SQLiteValue?] {
            try devices.map { try $0.database.scalar("SELECT n FROM t WHERE id = ?", [.text(key)]) }
        }
        try write(0, "INSERT INTO t VALUES ('k', 0)")
        try write(0, "UPDATE t SET n = n + 8000000000000000000 WHERE id = 'k'")
        try write(1, "UPDATE t SET n = n - 8000000000000000000 WHERE id = 'k'")
        try write(0, "UPDATE t SET n = n + 2000000000000000000 WHERE id = 'k'")
        // Device 0's share would be 1e19: it keeps Int64.max, and the count shows max - 8e18.
        #expect(
            try shown("k") == [.integer(.max - 8_000_000_000_000_000_000), .integer(.max - 8_000_000_000_000_000_000)])
        try write(0, "INSERT INTO t VALUES ('j', -9000000000000000000)")
        try write(1, "UPDATE t SET n = 9000000000000000000 WHERE id = 'j'")
        // Device 1's write changes the count by 1.8e19: its share keeps Int64.max, so the count shows max - 9e18.
        #expect(
            try shown("j") == [.integer(.max - 9_000_000_000_000_000_000), .integer(.max - 9_000_000_000_000_000_000)])
        for device in devices { #expect(try device.check().isConsistent) }
    }

    /// The exact sum is clamped once, so the order contributions come in does not change the value.
    @Test func theClampedSumDoesNotDependOnOrder() {
        let amounts: [Int64] = [.max, 1, -1, .min, .max]
        let orders: [[Int64]] = [amounts, amounts.reversed(), [1, .max, .max, .min, -1]]
        for order in orders { #expect(RowMerge.clampedSum(order) == .max - 1) }
        #expect(RowMerge.clampedSum([.max, 1, -2]) == .max - 1)
    }
}
