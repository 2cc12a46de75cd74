import Foundation
import Synchronization

/// Where a replica reads the time: the system, or a clock a test controls.
///
/// Concord never calls `Date()` directly; everything that needs the time
/// asks the replica's physical clock, so a simulation decides every reading.
///
/// ```swift
/// struct FixedClock: PhysicalClock {
///     func unixMilliseconds() -> Int64 { 1_700_000_000_000 }
/// }
/// let replica = try Replica.inMemory(configuration: .init(clock: FixedClock()))
/// ```
public protocol PhysicalClock: Sendable {
    /// Milliseconds since the Unix epoch.
    func unixMilliseconds() -> Int64
}

/// The system's wall clock.
public struct SystemClock: PhysicalClock {
    /// The system clock; every instance reads the same time.
    public init() {}
    /// The current time, in whole milliseconds since the Unix epoch (rounded down).
    public func unixMilliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}

/// A clock that moves only when told to, for tests and the simulator.
///
/// ```swift
/// let clock = ManualClock(unixMilliseconds: 1_700_000_000_000)
/// clock.advance(by: 250)
/// ```
public final class ManualClock: PhysicalClock {
    private let now: Mutex<Int64>

    /// A clock stopped at `unixMilliseconds` until it is advanced or set.
    public init(unixMilliseconds: Int64) { now = Mutex(unixMilliseconds) }

    /// The time it was last set or advanced to.
    public func unixMilliseconds() -> Int64 { now.withLock { $0 } }

    /// Moves the clock by `milliseconds` (negative moves it back).
    public func advance(by milliseconds: Int64) { now.withLock { $0 += milliseconds } }

    /// Sets the clock to `unixMilliseconds`.
    public func set(_ unixMilliseconds: Int64) { now.withLock { $0 = unixMilliseconds } }
}
