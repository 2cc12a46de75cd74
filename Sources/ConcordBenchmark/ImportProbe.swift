/// The full changeset imported by `concord import` in a child process, with its peak memory.
///
/// The child is a fresh process, so its peak resident set is the import's
/// alone, not the benchmark's. Linux carries a parent's peak into a spawned
/// child's `ru_maxrss`, so that figure is used only when it exceeds the
/// benchmark's own peak; otherwise the child's `VmHWM` is sampled every 2 ms
/// while it runs (a high-water mark, so only the last 2 ms can escape). A
/// second, tiny import gives the process's baseline, so what grows with the
/// changeset stands out.
///
/// ```swift
/// probe.peakBytes < ImportProbe.limitBytes   // the 200 MB
/// ```
public struct ImportProbe: Encodable, Sendable {
    /// The limit issue 6 sets for a 1M-change import: 200 MB (10^6 bytes each).
    public static let limitBytes = 200_000_000

    /// Rows in the changeset file.
    public var changes: Int
    /// Size of the changeset file.
    public var fileBytes: Int
    /// What the child printed: `applied N, ignored M`.
    public var childReport: String
    /// Wall time of the child importing the whole file.
    public var seconds: Double
    /// Peak resident set of the child importing the whole file.
    public var peakBytes: Int
    /// Where `peakBytes` comes from: the kernel's `ru_maxrss`, or `VmHWM` sampled while the child ran.
    public var peakSource: String
    /// Peak resident set of the same child importing a changeset of a few rows.
    public var baselinePeakBytes: Int

    /// Whether the peak stayed under ``limitBytes``.
    public var withinLimit: Bool { peakBytes < Self.limitBytes }

    enum CodingKeys: String, CodingKey {
        case changes, fileBytes, childReport, seconds, peakBytes, peakSource, baselinePeakBytes, limitBytes, withinLimit
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(changes, forKey: .changes)
        try container.encode(fileBytes, forKey: .fileBytes)
        try container.encode(childReport, forKey: .childReport)
        try container.encode(seconds, forKey: .seconds)
        try container.encode(peakBytes, forKey: .peakBytes)
        try container.encode(peakSource, forKey: .peakSource)
        try container.encode(baselinePeakBytes, forKey: .baselinePeakBytes)
        try container.encode(Self.limitBytes, forKey: .limitBytes)
        try container.encode(withinLimit, forKey: .withinLimit)
    }
}
