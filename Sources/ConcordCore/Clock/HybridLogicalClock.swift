/// The hybrid logical clock of Kulkarni et al. (2014), on packed 64-bit readings.
///
/// Every stamp a replica issues comes from here (or from the same rule written
/// in SQL inside the capture triggers). The value semantics keep it pure: the
/// replica loads it from the database, advances it, and stores it back in the
/// same transaction, so a restart never reissues a stamp.
///
/// With readings packed as `l << 16 | c`, the paper's rules collapse to:
/// - local event or send: `max(last + 1, pt << 16)`;
/// - receive: `max(last + 1, remote + 1, pt << 16)`.
/// A counter overflow therefore rolls into the next millisecond.
///
/// ```swift
/// var clock = HybridLogicalClock()
/// let a = clock.tick(physical: 1_000)        // 1000.0
/// let b = clock.tick(physical: 1_000)        // 1000.1
/// let c = try clock.receive(remote, from: peer, physical: 999)  // above a, b and remote
/// ```
public struct HybridLogicalClock: Hashable, Sendable {
    /// The last reading issued or received.
    public private(set) var last: HLCTimestamp
    /// How far ahead of the physical clock a remote reading may be.
    public var maxDrift: Int64

    /// Five minutes, the default tolerance for a peer's clock running ahead.
    public static let defaultMaxDrift: Int64 = 5 * 60 * 1000

    /// A clock whose next reading is above `last` (a fresh clock starts from zero).
    public init(last: HLCTimestamp = .zero, maxDrift: Int64 = defaultMaxDrift) {
        self.last = last
        self.maxDrift = maxDrift
    }

    /// A new reading for a local event (a write, or a send).
    public mutating func tick(physical: Int64) -> HLCTimestamp {
        last = HLCTimestamp(rawValue: max(Self.successor(last.rawValue), Self.floor(physical)))
        return last
    }

    /// Merges a remote reading and returns a reading above it and above `last`.
    ///
    /// - Throws: ``ClockDriftError`` when `remote` is more than ``maxDrift``
    ///   ahead of `physical`; the clock is then unchanged.
    @discardableResult
    public mutating func receive(_ remote: HLCTimestamp, from node: NodeID, physical: Int64) throws -> HLCTimestamp {
        try check(remote, from: node, physical: physical)
        last = HLCTimestamp(
            rawValue: max(Self.successor(last.rawValue), Self.successor(remote.rawValue), Self.floor(physical)))
        return last
    }

    /// Refuses a remote reading too far ahead of the physical clock.
    public func check(_ remote: HLCTimestamp, from node: NodeID, physical: Int64) throws {
        let (difference, overflow) = Int64(clamping: remote.milliseconds).subtractingReportingOverflow(physical)
        let ahead = overflow ? Int64.max : difference
        if ahead > maxDrift {
            throw ClockDriftError(node: node, drift: ahead, maxDrift: maxDrift)
        }
    }

    /// The next reading; the last one SQLite can store (2^63 - 1) stays put rather than wrap to a
    /// negative integer in the file (a replica refuses to stamp with a physical clock that far ahead, see
    /// ``maxPhysical``, so only a file damaged by hand gets there).
    package static func successor(_ raw: UInt64) -> UInt64 { raw >= UInt64(Int64.max) ? raw : raw + 1 }

    /// The last physical millisecond a reading holds (2^47 - 1 ms, in the year 6429). A replica whose
    /// clock reads later refuses to stamp; readings are held there, so the packed value never overflows.
    public static let maxPhysical: Int64 = 1 << 47 - 1

    /// The reading at the start of physical millisecond `physical` (held to `0...maxPhysical`).
    package static func floor(_ physical: Int64) -> UInt64 { UInt64(min(max(physical, 0), maxPhysical)) << 16 }
}

/// A peer's stamp is too far ahead of this replica's clock.
///
/// Accepting it would drag this replica's clock (and every stamp it issues)
/// into the future, so the whole changeset is refused; it can be applied once
/// the clocks agree again.
public struct ClockDriftError: Error, Equatable, CustomStringConvertible {
    /// The node whose stamp was refused.
    public let node: NodeID
    /// How far ahead, in milliseconds.
    public let drift: Int64
    /// The tolerance in force, in milliseconds.
    public let maxDrift: Int64

    /// The node, how far ahead its stamp was, the tolerance, and what to set right.
    public var description: String {
        "a stamp from node \(node) is \(drift) ms ahead of this replica's clock, "
            + "more than the allowed \(maxDrift) ms; nothing was applied. Either that device's clock runs fast "
            + "or this one's runs slow: set whichever is wrong right (or have the app raise "
            + "Replica.Configuration.maxDrift), then sync again. "
            + "If both are right now, that device stamped while its clock ran fast, and its changes are taken "
            + "once this clock is within \(maxDrift) ms of them, in \(Self.duration(Int64(clamping: Int128(drift) - Int128(maxDrift))))"
    }

    /// `milliseconds` in days, hours and minutes (seconds under a minute), as a person reads a wait.
    package static func duration(_ milliseconds: Int64) -> String {
        let minutes = milliseconds / 60_000
        guard minutes > 0 else { return "\(max(1, (milliseconds + 999) / 1000)) s" }
        let (days, hours, rest) = (minutes / 1440, minutes / 60 % 24, minutes % 60)
        return [(days, "d"), (hours, "h"), (rest, "min")].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
            .joined(separator: " ")
    }
}
