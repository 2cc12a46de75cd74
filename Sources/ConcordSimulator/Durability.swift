@_spi(Testing) import Concord

/// How a device's app opens its database: the journal mode and the `synchronous` level, drawn per
/// device from the seed, and whether it enforces foreign keys.
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
/// try durability.prepare(replica, app: app)   // PRAGMA journal_mode, synchronous, foreign_keys
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
    /// Whether the app turns `PRAGMA foreign_keys` on, as a careful app does; many leave SQLite's default,
    /// off, and may then write a child whose parent is gone. Drawn apart (``foreignKeys(rate:seed:device:)``).
    var foreignKeys = true
    /// Whether the app binds the values of its statements as parameters and keeps each statement prepared,
    /// as most apps do, or writes them into the SQL, as a script or the `sqlite3` shell does. Drawn apart
    /// (``bindsValues(seed:device:)``).
    var bindsValues = false
    /// What else the app sets on the connection it shares with the replica. Drawn apart
    /// (``ConnectionQuirks/draw(seed:device:shadows:)``).
    var quirks = ConnectionQuirks()

    /// A durability drawn from `generator`: WAL or DELETE with even odds, and for WAL, FULL or EXTRA.
    static func draw(using generator: inout SeededGenerator) -> Durability {
        let wal = Bool.random(using: &generator)
        let full = wal && Bool.random(using: &generator)
        return Durability(journalMode: wal ? .wal : .delete, synchronous: full ? .full : .extra)
    }

    /// Whether device `device`'s app enforces foreign keys, at `rate` percent of apps leaving them off.
    ///
    /// Drawn from a generator of its own (from the seed and the device), apart from the plan's
    /// choices and the disks' draws, so neither shifts; a rate of 0 draws nothing.
    static func foreignKeys(rate: Int, seed: UInt64, device: Int) -> Bool {
        guard rate > 0 else { return true }
        var generator = SeededGenerator(seed: seed &* 0xBF58_476D_1CE4_E5B9 &+ 0xF0E1_0000 &+ UInt64(device))
        return Int.random(in: 0..<100, using: &generator) >= rate
    }

    /// Whether device `device`'s app binds its values: three apps in four do, from a generator of their own
    /// (from the seed and the device), so no other draw shifts.
    static func bindsValues(seed: UInt64, device: Int) -> Bool {
        var generator = SeededGenerator(seed: seed &* 0xE703_7ED1_A0B4_28DB &+ 0xB1D5 &+ UInt64(device))
        return Int.random(in: 0..<4, using: &generator) != 0
    }

    /// The percent of apps leaving foreign keys off for a seed, drawn from `range` by a generator of its own.
    static func foreignKeysOffRate(_ range: [Int], seed: UInt64) -> Int {
        guard range != [0, 0] else { return 0 }
        var generator = SeededGenerator(seed: seed &* 0x94D0_49BB_1331_11EB &+ 0xF0E1)
        return Int.random(in: range[0]...range[1], using: &generator)
    }

    /// Sets the connections up: the journal mode (stored in the file) through the replica's, the
    /// `synchronous` level on both (it is per connection, and both commit), and foreign keys on the
    /// app's as the app has them. The replica's keeps SQLite's default (off), as a replica opened by
    /// path does in an app that writes through a connection of its own (GRDB, another process).
    func prepare(_ replica: Replica, app: Database) throws {
        try replica.database.execute("PRAGMA journal_mode = \(journalMode.rawValue)")
        try replica.database.execute("PRAGMA synchronous = \(synchronous.rawValue)")
        try app.execute("PRAGMA synchronous = \(synchronous.rawValue)")
        try app.execute("PRAGMA foreign_keys = \(foreignKeys ? "ON" : "OFF")")
        try quirks.apply(to: replica, app: app)
    }

    /// Prepares the replica of the app's second process (``ConnectionQuirks/secondProcess``): its
    /// `synchronous` level and the settings the app makes on a replica's connection.
    func prepare(_ replica: Replica) throws {
        try replica.database.execute("PRAGMA synchronous = \(synchronous.rawValue)")
        try quirks.apply(to: replica)
    }

    var description: String {
        "\(journalMode.rawValue) + \(synchronous.rawValue)" + (foreignKeys ? "" : ", foreign keys off")
    }
}
