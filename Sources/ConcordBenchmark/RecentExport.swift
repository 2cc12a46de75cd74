/// Exporting the changes since a version taken just before a few more writes.
///
/// Set next to the full export, it shows whether `exportChanges(since:)`
/// costs in proportion to the changes it returns or to the database size.
///
/// ```swift
/// recent.perChange / recent.fullExportPerRow   // ≈ 1 when export scales with the changes
/// ```
public struct RecentExport: Encodable, Sendable {
    /// Writes made after the version was taken.
    public var writes: Int
    /// Rows in the exported changeset (writes to the same row share one).
    public var changes: Int
    /// Median seconds of `exportChanges(since: versionBefore, to: MemoryByteSink())`.
    public var seconds: Double
    /// Size of that changeset.
    public var bytes: Int
    /// Median seconds of the full export in the same runs.
    public var fullExportSeconds: Double
    /// Rows of the full export.
    public var fullExportRows: Int

    /// Seconds per exported row of the recent export.
    public var perChange: Double { seconds / Double(max(changes, 1)) }
    /// Seconds per row of the full export.
    public var fullExportPerRow: Double { fullExportSeconds / Double(max(fullExportRows, 1)) }

    enum CodingKeys: String, CodingKey {
        case writes, changes, seconds, bytes, fullExportSeconds, fullExportRows
        case microsecondsPerChange, fullExportMicrosecondsPerRow
    }

    public func encode(to encoder: any Encoder) throws {
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
