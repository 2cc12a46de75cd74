/// One compared phase: medians over the runs, and how many rows it touched.
///
/// Times are seconds, sizes bytes. `operations` is what a per-row cost
/// divides by (rows written or exported, or reads made), so costs at
/// different sizes can be set side by side.
///
/// ```swift
/// let phase = BenchmarkPhase(kind: .insert, plain: 0.64, concord: 1.2, operations: 100_000)
/// phase.ratio          // 1.875
/// phase.withinTarget   // true
/// ```
public struct BenchmarkPhase: Encodable, Equatable, Sendable {
    public var kind: BenchmarkPhaseKind
    /// Plain SQLite's median: seconds, or bytes for a size.
    public var plain: Double
    /// Concord's median: seconds, or bytes for a size.
    public var concord: Double
    /// What a per-row cost divides by: rows written or exported, or reads made.
    public var operations: Int

    public init(kind: BenchmarkPhaseKind, plain: Double, concord: Double, operations: Int) {
        self.kind = kind
        self.plain = plain
        self.concord = concord
        self.operations = operations
    }

    /// The kind's name, as reports print it.
    public var name: String { kind.rawValue }
    /// The ratio the phase is held to, if any.
    public var target: Double? { kind.target }
    /// Concord over plain; 0 when plain measured nothing.
    public var ratio: Double { plain > 0 ? concord / plain : 0 }
    /// Whether the ratio is within the target (always, without one).
    public var withinTarget: Bool { target.map { ratio <= $0 } ?? true }
    /// Plain and Concord cost per operation: microseconds for times, bytes for sizes.
    public var perOperation: (plain: Double, concord: Double) {
        let scale = kind.isSize ? 1.0 : 1e6
        let count = Double(max(operations, 1))
        return (plain * scale / count, concord * scale / count)
    }

    enum CodingKeys: String, CodingKey {
        case name, unit, plain, concord, ratio, target, withinTarget, baseline, operations
        case plainPerOperation, concordPerOperation
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(kind.isSize ? "bytes" : "seconds", forKey: .unit)
        try container.encode(plain, forKey: .plain)
        try container.encode(concord, forKey: .concord)
        try container.encode(ratio, forKey: .ratio)
        try container.encodeIfPresent(target, forKey: .target)
        try container.encode(withinTarget, forKey: .withinTarget)
        try container.encode(kind.baseline, forKey: .baseline)
        try container.encode(operations, forKey: .operations)
        try container.encode(perOperation.plain, forKey: .plainPerOperation)
        try container.encode(perOperation.concord, forKey: .concordPerOperation)
    }
}
