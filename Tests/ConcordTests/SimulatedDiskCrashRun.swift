import ConcordTestSupport
import Foundation

@_spi(Simulation) @testable import Concord

/// A journal mode and synchronous setting, and what SQLite promises of them across a power loss.
struct Durability: CustomStringConvertible, Sendable {
    let journalMode: String
    let synchronous: String

    /// How many acknowledged commits a power loss may take back; `nil` when anything may happen,
    /// corruption included (synchronous OFF never syncs, so the disk may keep any subset of writes).
    ///
    /// - FULL in WAL mode, and EXTRA: none.
    /// - FULL and NORMAL in DELETE mode: the last one. The deletion of the journal that commits it
    ///   is not durable until the directory is synced, which only EXTRA asks for at commit; a power
    ///   loss brings the journal back and SQLite rolls the transaction back.
    /// - NORMAL in WAL mode: any number, but what survives is a prefix (a WAL is synced only at
    ///   checkpoints) — as long as writes are not torn, see
    ///   `SimulatedDiskTests.tornAndReorderedWritesDoNotCorruptAFullySyncedDatabase(_:)`.
    var mayLose: Int? {
        switch (journalMode, synchronous) {
        case (_, "OFF"): nil
        case ("WAL", "NORMAL"): .max
        case ("DELETE", "FULL"), ("DELETE", "NORMAL"): 1
        default: 0
        }
    }

    var description: String { "\(journalMode) \(synchronous)" }
}

/// One database on a fresh disk: transactions until the power fails at an operation the seed picks
/// (or all of them, then a power loss), a crash, and a relaunch from what the disk kept.
///
/// Transaction `i` inserts row `i` with a payload, sometimes rewrites an earlier row's payload or
/// adds large rows (so the page cache spills mid-transaction), and sets `counter.n = i`; the
/// state after the first `k` transactions is known, so the relaunched database's state tells
/// which prefix of the transactions survived, if any.
struct CrashRun {
    static let path = "/device/crash.sqlite"
    static let transactions = 8

    let seed: UInt64
    let durability: Durability
    var tornWriteRate = 0.0
    var reorderRate = 0.0

    /// What happened.
    struct Outcome {
        /// Commits that returned before the power failed.
        var acknowledged = 0
        /// Whether the power failed inside a COMMIT, whose transaction may then survive or not.
        var failedInCommit = false
        /// How many transactions the relaunched database shows, or `nil` when its state is no prefix.
        var survivors: Int?
        /// `PRAGMA integrity_check`'s answer after the relaunch, or the error that stopped it.
        var integrity = ""
        /// The database file's durable bytes right after the crash.
        var databaseAfterCrash: [UInt8]?
        /// Every file after the relaunched connection closed.
        var imageAfterRelaunch = SimulatedDisk.Image()
    }

    func run() throws -> Outcome {
        var generator = SeededGenerator(seed: seed)
        let disk = SimulatedDisk(name: "device")
        var outcome = Outcome()
        let workload = (1...Self.transactions).map { Transaction(number: $0, using: &generator) }
        // The old connection outlives the crash and closes after the relaunch, as the simulator's does.
        let old = try Database(path: Self.path, vfs: ReplicaVFS(disk: disk))
        try old.execute(
            """
            PRAGMA journal_mode = \(durability.journalMode);
            PRAGMA synchronous = \(durability.synchronous);
            PRAGMA cache_size = 10;
            PRAGMA wal_autocheckpoint = 16;
            CREATE TABLE rows (id INTEGER PRIMARY KEY, payload BLOB NOT NULL);
            CREATE TABLE counter (n INTEGER NOT NULL);
            INSERT INTO counter VALUES (0);
            """)
        disk.writeBack()
        let operationsPerTransaction = durability.journalMode == "WAL" ? 12 : 20
        disk.cutPower(
            afterOperations: Int.random(
                in: 1...(Self.transactions * operationsPerTransaction), using: &generator))
        do {
            for transaction in workload {
                try old.execute("BEGIN IMMEDIATE")
                try transaction.write(to: old)
                outcome.failedInCommit = true
                try old.execute("COMMIT")
                outcome.failedInCommit = false
                outcome.acknowledged += 1
            }
        } catch is SQLiteError where disk.isPoweredOff {
            // The power failed; the rest of the workload never runs.
        }
        disk.crash(using: &generator, tornWriteRate: tornWriteRate, reorderRate: reorderRate)
        outcome.databaseAfterCrash = disk.durableImage().files[Self.path]
        do {
            let relaunched = try Database(path: Self.path, vfs: ReplicaVFS(disk: disk))
            outcome.integrity = try relaunched.query("PRAGMA integrity_check")
                .compactMap { $0.first?.textValue }.joined(separator: "; ")
            outcome.survivors = try Self.survivors(in: relaunched, workload: workload)
        } catch {
            outcome.integrity = "\(error)"
        }
        withExtendedLifetime(old) {}
        outcome.imageAfterRelaunch = disk.currentImage()
        return outcome
    }

    /// How many transactions `database` shows: `k` when it holds exactly the state after the first `k`.
    private static func survivors(in database: Database, workload: [Transaction]) throws -> Int? {
        guard let count = try database.scalar("SELECT n FROM counter")?.integerValue,
            (0...workload.count).contains(Int(count))
        else { return nil }
        var expected: [Int64: [UInt8]] = [:]
        for transaction in workload.prefix(Int(count)) { transaction.apply(to: &expected) }
        var actual: [Int64: [UInt8]] = [:]
        for row in try database.query("SELECT id, payload FROM rows ORDER BY id") {
            guard let id = row[0].integerValue, case .blob(let payload) = row[1] else { return nil }
            actual[id] = payload
        }
        return actual == expected ? Int(count) : nil
    }
}

/// One transaction of a ``CrashRun``: the rows it writes.
private struct Transaction {
    let number: Int
    /// Row ids and their new payloads, in the order written.
    let writes: [(id: Int64, payload: [UInt8])]

    init(number: Int, using generator: inout SeededGenerator) {
        self.number = number
        var writes = [(id: Int64(number), payload: Self.payload(50...6_000, &generator))]
        if number > 1, Int.random(in: 0..<3, using: &generator) == 0 {
            writes.append(
                (Int64.random(in: 1..<Int64(number), using: &generator), Self.payload(50...3_000, &generator)))
        }
        if Int.random(in: 0..<4, using: &generator) == 0 {
            // Large rows: more dirty pages than the cache holds, so SQLite spills them mid-transaction.
            for extra in 1...3 {
                writes.append((Int64(1_000 * number + extra), Self.payload(12_000...16_000, &generator)))
            }
        }
        self.writes = writes
    }

    func write(to database: Database) throws {
        for write in writes {
            try database.execute(
                "INSERT OR REPLACE INTO rows VALUES (?, ?)", [.integer(write.id), .blob(write.payload)])
        }
        try database.execute("UPDATE counter SET n = ?", [.integer(Int64(number))])
    }

    func apply(to rows: inout [Int64: [UInt8]]) {
        for write in writes { rows[write.id] = write.payload }
    }

    /// Random bytes of a random size in `sizes`, eight from each draw (a debug build is slow per byte).
    private static func payload(_ sizes: ClosedRange<Int>, _ generator: inout SeededGenerator) -> [UInt8] {
        let count = Int.random(in: sizes, using: &generator)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 8)
        while bytes.count < count { withUnsafeBytes(of: generator.next()) { bytes += $0 } }
        return Array(bytes.prefix(count))
    }
}
