@_spi(Testing) import Concord

/// How a device's app opens its database: the journal mode and the `synchronous` level, drawn per
/// device from the seed.
///
/// Every combination drawn keeps every acknowledged commit across a power loss
/// on a ``SimulatedDisk``, torn and reordered writes included: WAL under `FULL`
/// or `EXTRA`, and DELETE under `EXTRA`. DELETE under `FULL` is never drawn:
/// there a power loss right after a commit may roll that last commit back (the
/// journal's deletion is not durable until the next transaction syncs the
/// directory, as SQLite documents), so a device could lose a fold it already
/// exported, and the oracle's knowledge of what each database holds would
/// have to go back with it. What the oracle knows of a device (its ledger
/// reads, its knowledge, its clock) is then exactly what the disk keeps;
/// crashes inside an operation, whose commit may or may not have landed, are
/// settled after the relaunch (see `SimulationRun+Crashes.swift`).
///
/// ```swift
/// var generator = SeededGenerator(seed: 7)
/// let durability = Durability.draw(using: &generator)
/// try durability.prepare(replica)   // PRAGMA journal_mode, synchronous, foreign_keys
/// ```
struct Durability: Equatable, CustomStringConvertible {
    /// The database's journal: a write-ahead log or a rollback journal deleted to commit.
    enum JournalMode: String {
        case wal = "WAL"
        case delete = "DELETE"
    }
    /// How often SQLite syncs: `FULL` at every commit, `EXTRA` also the directory of a deleted journal.
    enum Synchronous: String {
        case full = "FULL"
        case extra = "EXTRA"
    }

    let journalMode: JournalMode
    let synchronous: Synchronous

    /// A durability drawn from `generator`: WAL or DELETE with even odds, and for WAL, FULL or EXTRA.
    static func draw(using generator: inout SeededGenerator) -> Durability {
        let wal = Bool.random(using: &generator)
        let full = wal && Bool.random(using: &generator)
        return Durability(journalMode: wal ? .wal : .delete, synchronous: full ? .full : .extra)
    }

    /// Sets the app's connection up: foreign keys enforced, as a careful app has them, then the
    /// journal mode (stored in the file) and the `synchronous` level (per connection).
    func prepare(_ replica: Replica) throws {
        try replica.database.execute("PRAGMA foreign_keys = ON")
        try replica.database.execute("PRAGMA journal_mode = \(journalMode.rawValue)")
        try replica.database.execute("PRAGMA synchronous = \(synchronous.rawValue)")
    }

    var description: String { "\(journalMode.rawValue) + \(synchronous.rawValue)" }
}
