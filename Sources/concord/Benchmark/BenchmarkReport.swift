/// What `concord bench` measured at one row count: the compared phases, the
/// export since a recent version, and the child-process streamed import.
///
/// It is plain data, encoded as the `--json` output and rendered as a text
/// or Markdown table; phases keep ``BenchmarkPhaseKind`` order so the output
/// is the same shape on every run.
///
/// ```swift
/// let report = try BenchmarkRunner(sizes: [100_000], runs: 3, largeRuns: 1, seed: 1).run().reports[0]
/// print(report.table)
/// ```
struct BenchmarkReport: Encodable, Sendable {
    var rows: Int
    var runs: Int
    var sqlite: String
    var phases: [BenchmarkPhase]
    var recentExport: RecentExport
    /// Measured in the first run only; `nil` when the probe was switched off.
    var importProbe: ImportProbe?

    func phase(_ kind: BenchmarkPhaseKind) -> BenchmarkPhase? { phases.first { $0.kind == kind } }
}

/// Exporting the changes since a version taken just before a few more writes.
///
/// Set next to the full export, it shows whether `exportChanges(since:)`
/// costs in proportion to the changes it returns or to the database size.
///
/// ```swift
/// recent.perChange / recent.fullExportPerRow   // ≈ 1 when export scales with the changes
/// ```
struct RecentExport: Encodable, Sendable {
    /// Writes made after the version was taken.
    var writes: Int
    /// Rows in the exported changeset (writes to the same row share one).
    var changes: Int
    /// Median seconds of `exportChanges(since: versionBefore, to: MemoryByteSink())`.
    var seconds: Double
    var bytes: Int
    /// Median seconds and rows of the full export in the same runs.
    var fullExportSeconds: Double
    var fullExportRows: Int

    var perChange: Double { seconds / Double(max(changes, 1)) }
    var fullExportPerRow: Double { fullExportSeconds / Double(max(fullExportRows, 1)) }

    enum CodingKeys: String, CodingKey {
        case writes, changes, seconds, bytes, fullExportSeconds, fullExportRows
        case microsecondsPerChange, fullExportMicrosecondsPerRow
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(writes, forKey: .writes)
        try container.encode(changes, forKey: .changes)
        try container.encode(seconds, forKey: .seconds)
        try container.encode(bytes, forKey: .bytes)
        try container.encode(fullExportSeconds, forKey: .fullExportSeconds)
        try container.encode(fullExportRows, forKey: .fullExportRows)
        try container.encode(perChange * 1e6, forKey: .microsecondsPerChange)
        try container.encode(fullExportPerRow * 1e6, forKey: .fullExportMicrosecondsPerRow)
    }
}

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
struct ImportProbe: Encodable, Sendable {
    /// The limit issue 6 sets for a 1M-change import: 200 MB (10^6 bytes each).
    static let limitBytes = 200_000_000

    /// Rows in the changeset file and what the child reported.
    var changes: Int
    var fileBytes: Int
    var childReport: String
    var seconds: Double
    /// Peak resident set of the child importing the whole file.
    var peakBytes: Int
    /// Where `peakBytes` comes from: the kernel's `ru_maxrss`, or `VmHWM` sampled while the child ran.
    var peakSource: String
    /// Peak resident set of the same child importing a changeset of a few rows.
    var baselinePeakBytes: Int

    var withinLimit: Bool { peakBytes < Self.limitBytes }

    enum CodingKeys: String, CodingKey {
        case changes, fileBytes, childReport, seconds, peakBytes, peakSource, baselinePeakBytes, limitBytes, withinLimit
    }

    func encode(to encoder: Encoder) throws {
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

/// Reports at several row counts, for `--scaling` or `--rows 10000,100000`.
///
/// Per-row costs side by side make linear growth (or its absence) visible.
///
/// ```swift
/// let scaling = try BenchmarkRunner(sizes: [10_000, 100_000, 1_000_000], runs: 3, largeRuns: 1, seed: 1).run()
/// print(scaling.markdown)
/// ```
struct BenchmarkScaling: Encodable, Sendable {
    var sqlite: String
    var reports: [BenchmarkReport]
    /// Row counts at or above this run ``largeRuns`` times instead of ``runs``.
    static let largeSize = 1_000_000
}
