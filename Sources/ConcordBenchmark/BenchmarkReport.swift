/// What the benchmark measured at one row count: the compared phases, the
/// export since a recent version, and the child-process streamed import.
///
/// It is plain data, so a caller can encode it (`concord bench --json`) or
/// render it as a table; phases keep ``BenchmarkPhaseKind`` order, so the
/// output has the same shape on every run.
///
/// ```swift
/// let report = try BenchmarkRunner(sizes: [100_000], runs: 3, largeRuns: 1, seed: 1).run().reports[0]
/// report.phase(.insert)?.ratio   // e.g. 1.5
/// ```
public struct BenchmarkReport: Encodable, Sendable {
    /// Rows each phase wrote, read or exported.
    public var rows: Int
    /// Runs the medians were taken over.
    public var runs: Int
    /// The SQLite library version both sides ran on.
    public var sqlite: String
    /// One entry for each ``BenchmarkPhaseKind``, in its order.
    public var phases: [BenchmarkPhase]
    public var recentExport: RecentExport
    /// Measured in the first run only; `nil` when the probe was switched off.
    public var importProbe: ImportProbe?
    /// File sizes after each of ten rounds of the update, folded and checkpointed (medians over the runs):
    /// whether what Concord keeps per row stays bounded as rows are edited again and again.
    public var updateRounds: [UpdateRound] = []

    /// The plain and Concord file sizes after one round of the update.
    public struct UpdateRound: Encodable, Equatable, Sendable {
        public var round: Int
        /// Bytes.
        public var plain: Double
        /// Bytes.
        public var concord: Double
        /// Concord over plain.
        public var ratio: Double { plain > 0 ? concord / plain : 0 }

        enum CodingKeys: String, CodingKey { case round, plain, concord, ratio }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(round, forKey: .round)
            try container.encode(plain, forKey: .plain)
            try container.encode(concord, forKey: .concord)
            try container.encode(ratio, forKey: .ratio)
        }
    }

    /// The phase of that kind.
    ///
    /// Reports list every phase, so this is `nil` only for a report built by hand.
    ///
    /// ```swift
    /// report.phase(.apply)?.withinTarget   // true when apply costs at most 3x plain SQLite
    /// ```
    public func phase(_ kind: BenchmarkPhaseKind) -> BenchmarkPhase? { phases.first { $0.kind == kind } }
}
