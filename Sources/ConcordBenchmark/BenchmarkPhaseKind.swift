/// The phases the benchmark compares, in the order every report lists them.
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
public enum BenchmarkPhaseKind: String, CaseIterable, Encodable, Sendable {
    case insert
    case foldInserts = "fold inserts"
    case insertWithFold = "insert + fold"
    case insertOtherClient = "insert, other client"
    case update
    case foldUpdates = "fold updates"
    case updateWithFold = "update + fold"
    case updateOtherClient = "update, other client"
    case export
    case apply
    case size
    case sizeAfterUpdate = "size after update"
    case sizeAfterTenUpdates = "size after ten updates"
    case sizeApplied = "size of applied replica"
    case pointReads = "point reads"
    case applyConflicts = "apply conflicts"

    /// The ratio to plain SQLite this phase is held to (issue 6), if any.
    public var target: Double? {
        switch self {
        case .insert, .update: 2.0
        case .apply: 3.0
        case .size: 1.8
        case .pointReads: 1.1
        default: nil
        }
    }

    /// Whether the figures are bytes on disk rather than seconds.
    public var isSize: Bool {
        self == .size || self == .sizeAfterUpdate || self == .sizeAfterTenUpdates || self == .sizeApplied
    }

    /// What the plain column holds for this phase.
    public var baseline: String {
        switch self {
        case .insert, .foldInserts, .insertWithFold, .insertOtherClient, .export, .apply: "plain insert"
        case .update, .foldUpdates, .updateWithFold, .updateOtherClient, .applyConflicts: "plain update"
        case .size, .sizeApplied: "plain file after insert"
        case .sizeAfterUpdate: "plain file after update"
        case .sizeAfterTenUpdates: "plain file after ten updates"
        case .pointReads: "plain point reads"
        }
    }

    /// What the Concord column measures, in a few words.
    public var measures: String {
        switch self {
        case .insert: "N inserts in one transaction, trigger capture only (what the app waits for)"
        case .foldInserts: "foldLocalWrites() after the insert: stamp the log, write registers"
        case .insertWithFold: "insert plus its fold: the full cost of making N inserts exportable"
        case .update: "one column of every row, row by row, one transaction, trigger capture only"
        case .foldUpdates: "foldLocalWrites() after the update"
        case .updateWithFold: "update plus its fold"
        case .insertOtherClient:
            "the insert through a second, plain connection on SQLite's default VFS (another app, the sqlite3 "
                + "shell, another process), trigger capture only"
        case .updateOtherClient: "the update through that plain connection, trigger capture only"
        case .sizeAfterTenUpdates: "main file after ten rounds of the update, each folded, and a checkpoint"
        case .export: "streamed exportChanges(since: 0) of all N rows to a file, log already folded"
        case .apply: "applyChangeset(atPath:) of that file into a fresh replica (validate + merge)"
        case .size: "main file after fold and wal_checkpoint(TRUNCATE)"
        case .sizeAfterUpdate: "main file after the update, its fold and a checkpoint"
        case .sizeApplied: "the replica that applied the changeset, after a checkpoint"
        case .pointReads: "SELECT by key, 2 passes of min(N, 100,000) reads in scattered order, ABBA, after a warm-up"
        case .applyConflicts:
            "applyChangeset(atPath:) of a peer's N concurrent title edits, each losing to a later one made here: "
                + "every row logs a conflict (default retention)"
        }
    }
}
