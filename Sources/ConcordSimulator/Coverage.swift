/// How often one run reached each ``CoverageEvent``.
///
/// A run counts each event where it happens (see ``CoverageEvent`` for what
/// each counts); events it never reached count 0. It is part of
/// ``SimulationResult``, so the same seed gives the same coverage, and in
/// JSON it is an object of the events reached, by name.
///
/// ```swift
/// var coverage = Coverage()
/// coverage.record(.tornWrite)
/// coverage[.tornWrite]     // 1
/// coverage.reached         // [.tornWrite]
/// ```
public struct Coverage: Equatable, Sendable, Codable {
    private var counts: [CoverageEvent: Int] = [:]

    /// No event reached.
    public init() {}

    /// How many times the run reached `event` (0 when it never did).
    public subscript(event: CoverageEvent) -> Int {
        get { counts[event] ?? 0 }
        set { counts[event] = newValue > 0 ? newValue : nil }
    }

    /// Counts `event` reached `times` more times.
    public mutating func record(_ event: CoverageEvent, times: Int = 1) { self[event] += times }

    /// The events reached at least once, in declaration order.
    public var reached: [CoverageEvent] { CoverageEvent.allCases.filter { self[$0] > 0 } }

    /// Reads an object of counts by event name; an unknown name is refused, naming the valid ones.
    public init(from decoder: any Decoder) throws {
        for (name, count) in try [String: Int](from: decoder) { self[try CoverageEvent(named: name)] = count }
    }

    /// Writes the events reached as an object of counts by name.
    public func encode(to encoder: any Encoder) throws {
        try Dictionary(uniqueKeysWithValues: reached.map { ($0.rawValue, self[$0]) }).encode(to: encoder)
    }
}
