/// The phases `concord bench` compares, in the order every report lists them.
///
/// Each phase names what its Concord figure is set against, so a ratio is
/// never read against the wrong baseline: the fold is compared with the plain
/// insert it follows, export and apply with inserting the same rows into a
/// fresh plain table. The order is this enum's, never a dictionary's.
///
/// ```swift
/// BenchmarkPhaseKind.insert.target        // 2.0
/// BenchmarkPhaseKind.foldInserts.baseline // "plain insert"
/// ```
enum BenchmarkPhaseKind: String, CaseIterable, Encodable, Sendable {
    case insert
    case foldInserts = "fold inserts"
    case insertWithFold = "insert + fold"
    case update
    case foldUpdates = "fold updates"
    case updateWithFold = "update + fold"
    case export
    case apply
    case size
    case sizeAfterUpdate = "size after update"
    case sizeApplied = "size of applied replica"
    case pointReads = "point reads"

    /// The ratio to plain SQLite this phase is held to (issue 6), if any.
    var target: Double? {
        switch self {
        case .insert, .update: 2.0
        case .apply: 3.0
        case .size: 1.8
        case .pointReads: 1.1
        default: nil
        }
    }

    /// Whether the figures are bytes on disk rather than seconds.
    var isSize: Bool { self == .size || self == .sizeAfterUpdate || self == .sizeApplied }

    /// What the plain column holds for this phase.
    var baseline: String {
        switch self {
        case .insert, .foldInserts, .insertWithFold, .export, .apply: "plain insert"
        case .update, .foldUpdates, .updateWithFold: "plain update"
        case .size, .sizeApplied: "plain file after insert"
        case .sizeAfterUpdate: "plain file after update"
        case .pointReads: "plain point reads"
        }
    }

    /// What the Concord column measures, in a few words.
    var measures: String {
        switch self {
        case .insert: "N inserts in one transaction, trigger capture only (what the app waits for)"
        case .foldInserts: "foldLocalWrites() after the insert: stamp the log, write registers"
        case .insertWithFold: "insert plus its fold: the full cost of making N inserts exportable"
        case .update: "one column of every row, row by row, one transaction, trigger capture only"
        case .foldUpdates: "foldLocalWrites() after the update"
        case .updateWithFold: "update plus its fold"
        case .export: "streamed exportChanges(since: 0) of all N rows to a file, log already folded"
        case .apply: "applyChangeset(atPath:) of that file into a fresh replica (validate + merge)"
        case .size: "main file after fold and wal_checkpoint(TRUNCATE)"
        case .sizeAfterUpdate: "main file after the update, its fold and a checkpoint"
        case .sizeApplied: "the replica that applied the changeset, after a checkpoint"
        case .pointReads: "SELECT by key, 2 passes of min(N, 100,000) reads in scattered order, ABBA, after a warm-up"
        }
    }
}

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
struct BenchmarkPhase: Encodable, Equatable, Sendable {
    var kind: BenchmarkPhaseKind
    var plain: Double
    var concord: Double
    var operations: Int

    var name: String { kind.rawValue }
    var target: Double? { kind.target }
    var ratio: Double { plain > 0 ? concord / plain : 0 }
    var withinTarget: Bool { target.map { ratio <= $0 } ?? true }
    /// Plain and Concord cost per operation: microseconds for times, bytes for sizes.
    var perOperation: (plain: Double, concord: Double) {
        let scale = kind.isSize ? 1.0 : 1e6, count = Double(max(operations, 1))
        return (plain * scale / count, concord * scale / count)
    }

    enum CodingKeys: String, CodingKey {
        case name, unit, plain, concord, ratio, target, withinTarget, baseline, operations
        case plainPerOperation, concordPerOperation
    }

    func encode(to encoder: Encoder) throws {
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
