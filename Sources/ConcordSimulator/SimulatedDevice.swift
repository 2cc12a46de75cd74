@_spi(Testing) @_spi(Simulation) import Concord
import Foundation

/// One device of a simulation: a replica on a simulated disk of its own, whose every clock reading is virtual.
///
/// Its physical clock is the simulation's time, running fast or slow by a
/// drift, plus a skew and any jump the user made; and the same
/// clock stands behind SQL's `'now'` in the capture triggers, so a seed fixes
/// every stamp. Its database lives on a ``SimulatedDisk``, in a journal mode
/// and at a `synchronous` level the seed draws (``Durability``): a crash is a
/// process kill or a power loss that may tear and reorder unsynced writes,
/// and the relaunch opens the disk's image alone — forgetting everything the
/// app kept in memory (its cloud change tags and token). Every durability the
/// seed may draw keeps every acknowledged commit across a power loss, so what
/// the oracle knows the database holds (``knowledge``) survives a crash that
/// lands between operations, and is copied by a fork, as the file is; so does
/// the release of the app whose migrations the file has been through
/// (``version``).
final class SimulatedDevice {
    let index: Int
    /// The database's path on the device's disk.
    let path = "/app.sqlite"
    /// The disk the device's database lives on, its own.
    let disk: SimulatedDisk
    /// The journal mode and `synchronous` level the device's app opens its database with.
    let durability: Durability
    /// The node id the device's replica writes under now: a copy of its file takes a new one.
    private(set) var node: NodeID
    let clock: ManualClock
    let configuration: Replica.Configuration
    /// How far this device's clock runs ahead of (or behind) simulated time, in milliseconds.
    let skew: Int64
    /// Milliseconds this device's clock gains (or, negative, loses) per second of simulated time.
    let drift: Int64
    /// A jump of the device's clock (a user setting it ahead), on top of the skew.
    var jump: Int64 = 0
    /// The latest backup of the device's disk, with what the simulator knew of it then.
    var backup: Backup?
    /// The release of the app this device runs (1 until its first upgrade).
    private(set) var version = 1
    /// The release an upgrade that has not finished is taking the device to: one a power failure
    /// interrupted, whose migrations may have landed, so the relaunched app must finish it
    /// (``SimulationRun`` does, before anything else touches the database).
    private(set) var upgrading: Int?
    /// Whether the device can reach anyone at all.
    var online = true
    /// Cloud: whether uploads get through (a one-way partition blocks them).
    var canUpload = true
    /// What the app remembers of the record server (cloud topology); lost in a crash.
    var cloud = CloudClient()
    /// The highest stamp of this device's own that the write ledger has seen.
    var newestOwnStamp: Stamp?
    /// The version up to which the ledger has read this device's changes.
    var ledgerVersion: Int64 = 0
    /// The ledger's writes whose effect this device's database holds, by row: a write's `seen` set.
    var knowledge = Knowledge()
    /// The clock reading last checked (it must never go back) and the rows parked at the last check.
    var lastClock: HLCTimestamp?
    var parked: Set<RowRef> = []
    /// The app's statements whose writes wait for a table its release refuses (``WaitingWrite``).
    var waiting: [WaitingWrite] = []
    /// The capture log's end before the app's last statement, read while its release refuses a table.
    var logStart: Int64 = 0
    /// The replica of the app's process acting this step (``act(inProcess:)``).
    private(set) var replica: Replica
    /// The replica of each process of the app: its own, then, on a device whose seed draws one
    /// (``ConnectionQuirks/secondProcess``), a second process's (an extension, a widget) on the same file.
    private var processes: [Replica] = []
    /// The app's own connection, which its writes go through (see ``openApp(_:_:)``); the replica syncs
    /// through its own, as an app that adds Concord to a database it already writes does.
    private(set) var app: Database
    /// The tables app statements can change (``writeScope()``), until the schema may have changed.
    private var scope: WriteScope?

    /// A new device whose app was just installed: its disk holds a copy of the installed app's file
    /// (``InstalledImage``), whose replica takes `node` on opening it; when the seed injects bugs, the app
    /// installs itself on an empty disk.
    init(
        index: Int, node: NodeID, durability: Durability, skew: Int64, drift: Int64, time: Int64,
        workload: Workload, bugs: InjectedBugs, foldBatch: Int = Replica.foldBatch
    ) throws {
        self.index = index
        self.node = node
        self.durability = durability
        self.skew = skew
        self.drift = drift
        disk = SimulatedDisk(name: "device-\(index)")
        clock = ManualClock(unixMilliseconds: Self.reading(at: time, skew: skew, drift: drift, jump: 0))
        let nodes = NodeIDSequence(first: node)
        var configuration = Replica.Configuration(
            clock: clock, merges: Workload.mergeFunctions, makeNodeID: { nodes.next() })
        configuration.interceptor = bugs.interceptor()
        configuration.foldBatch = foldBatch
        configuration.catchesWithPreupdateHook = !durability.quirks.withoutPreupdateHook
        // The disk's file identity (its name and the file's number): a seed gives the same bytes.
        configuration.disk = disk
        self.configuration = configuration
        let factory = bugs.isEmpty
        if factory {
            disk.createFile(
                atPath: path, contents: try InstalledImage.bytes(of: workload, journalMode: durability.journalMode))
        }
        replica = try Replica(path: path, configuration: configuration)
        app = try Self.openApp(path, configuration)
        // Durable settings first: under DELETE + FULL a power loss could roll the install's last step back.
        try durability.prepare(replica, app: app)
        if !factory { try workload.install(on: replica) }
        ledgerVersion = try replica.version
        try openProcesses()
    }

    /// A new device whose disk holds a copy of `original`'s database file, made as `cp` makes one:
    /// nothing of Concord runs on the original, and the copy must notice on its own that it is one.
    ///
    /// The original checkpoints first (in WAL mode the newest commits may sit in its WAL). The copy's
    /// replica is asked for a new node id, `node`, once it sees its file changed; ``node`` says which
    /// one it writes under.
    /// With `unfolded`, the original's capture log held its app's writes: the copy takes a credit for them as
    /// it opens and folds them at its first look, and its ledger reads its changes from where the original's
    /// had (its version when copied).
    init(
        forking original: SimulatedDevice, index: Int, node: NodeID, durability: Durability, time: Int64,
        unfolded: Bool = false
    ) throws {
        self.index = index
        self.node = node
        self.durability = durability
        skew = original.skew
        drift = original.drift
        disk = SimulatedDisk(name: "device-\(index)")
        clock = ManualClock(unixMilliseconds: Self.reading(at: time, skew: skew, drift: drift, jump: 0))
        var configuration = original.configuration
        configuration.clock = clock
        let nodes = NodeIDSequence(first: node)
        configuration.makeNodeID = { nodes.next() }
        configuration.disk = disk
        configuration.catchesWithPreupdateHook = !durability.quirks.withoutPreupdateHook
        self.configuration = configuration
        try original.replica.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        guard let bytes = original.disk.copy(of: original.path) else { throw SimulatorError.noDatabaseFile }
        disk.createFile(atPath: path, contents: bytes)
        replica = try Replica(path: path, configuration: configuration)
        app = try Self.openApp(path, configuration)
        self.node = replica.nodeID
        knowledge = original.knowledge
        version = original.version
        // The writes waiting in the original's log are in the copy's too, and credited to the original.
        waiting = original.waiting.map {
            var write = $0
            write.credited = true
            return write
        }
        logStart = original.logStart
        try durability.prepare(replica, app: app)
        ledgerVersion = unfolded ? original.ledgerVersion : try replica.version
        try openProcesses()
    }

    /// Opens the second process's replica beside the app's own when the device has one; the app's acts.
    private func openProcesses() throws {
        processes = [replica]
        guard durability.quirks.secondProcess else { return }
        let second = try Replica(path: path, configuration: configuration)
        try durability.prepare(second)
        processes.append(second)
    }

    /// Makes the replica of process `index` (modulo the device's processes) the one that syncs, folds,
    /// exports and is checked until the next call; the app's statements always go through its own connection.
    /// A replica taking over reads the tables again if the other process changed the schema, as its first
    /// look would: the simulator reads them before it looks (``WriteScope``, ``TableSnapshot``).
    /// Returns the process acting.
    @discardableResult
    func act(inProcess index: Int) throws -> Int {
        let acting = index % processes.count
        guard processes[acting] !== replica else { return acting }
        replica = processes[acting]
        try replica.readTablesIfSchemaChanged()
        return acting
    }

    /// The app's statement `sql`, just run when the device's clock read `physical`, with the tables as the
    /// app saw them `before` it and now.
    ///
    /// The children of the rows it deleted that its table still shows, Concord deletes as its cascade: those
    /// rows are derived from the schema's keys (``Statement/cascades(before:after:foreignKeys:)``). When the
    /// app leaves foreign keys off, SQLite cascaded nothing; when it enforces them, SQLite's own action can
    /// still miss: a child table named `old` or `new` with a column of the parent key's name makes the
    /// action's `OLD."key"` read the child's column, so a `REPLACE` of the parent (whose reinsert settles
    /// the constraint) leaves the child in place.
    func statement(_ sql: String, before: TableSnapshot, physical: Int64) throws -> Statement {
        let scope = try writeScope()
        // The tables read before it, though the scope may have changed since: a relaunch after a power failure
        // inside the statement took the app's `TEMP` triggers away, and a row of a table read only before
        // would look deleted.
        let after = try TableSnapshot(of: replica, tables: before.tables)
        var statement = Statement(sql: sql, before: before, after: after)
        statement.physical = physical
        statement.deletesReplacedRows = durability.quirks.appRecursiveTriggers && Statement.replaces(sql)
        statement.cascaded = Statement.cascades(
            before: before, after: after, foreignKeys: scope.foreignKeys, replaced: statement.replacedRows)
        return statement
    }

    /// Runs the app's statement `sql` on its own connection: with its string and blob literals bound as
    /// parameters of a statement kept prepared when the app binds values (``Durability/bindsValues``),
    /// as the literal text otherwise, or when the statement cannot take parameters there.
    ///
    /// An app's transaction (`BEGIN … COMMIT`, a savepoint) that one of its statements fails inside, or
    /// whose `COMMIT` a deferred foreign key refuses, stays open: the app rolls it back, as a careful app
    /// does, so none of it lands and Concord's next fold is not kept waiting on its lock.
    func runAppStatement(_ sql: String) throws {
        // A trigger, view or table the app makes or drops (a `TEMP` trigger among them) changes what its writes reach.
        defer { if Statement.changesSchema(sql) { scope = nil } }
        do {
            try runAppSQL(sql)
        } catch {
            if app.inTransaction && !disk.isPoweredOff { try app.execute("ROLLBACK") }
            throw error
        }
    }

    private func runAppSQL(_ sql: String) throws {
        guard durability.bindsValues, let (template, values) = SQLTokens.parameterized(sql) else {
            return try app.execute(sql)
        }
        let statement: Concord.Statement
        do {
            statement = try app.cached(template)
        } catch {
            return try app.execute(sql)
        }
        try statement.run(values)
    }

    /// The foreign keys between the synced tables, as the write scope reads them.
    func foreignKeys() throws -> [ForeignKey] { try writeScope().foreignKeys }

    /// The synced tables a trigger of the app deletes from, as the write scope reads them.
    func tablesTriggersDelete() throws -> Set<String> { try writeScope().deletedByTriggers }

    /// The tables as the app sees them now, those `sql` can change: its statement's `before`.
    func snapshot(before sql: String) throws -> TableSnapshot {
        try TableSnapshot(of: replica, tables: writeScope().tables(writtenBy: sql))
    }

    /// The tables app statements can change, read once per schema: an upgrade changes it (a restore
    /// upgrades the restored file again, and an upgrade a crash interrupted is finished before anything
    /// else runs), and so do the app's own `CREATE` and `DROP` statements and a relaunch, which takes the
    /// app's `TEMP` triggers away; each reads them again.
    private func writeScope() throws -> WriteScope {
        if let scope { return scope }
        let scope = try WriteScope(of: replica, app: app)
        self.scope = scope
        return scope
    }

    /// The app's own connection to the database file on the device's disk, through which it writes:
    /// SQL's `'now'` (and so what the capture triggers record) reads the device's clock.
    static func openApp(_ path: String, _ configuration: Replica.Configuration) throws -> Database {
        let clock = configuration.clock
        let vfs = ReplicaVFS(disk: configuration.disk!, unixMilliseconds: { @Sendable in clock.unixMilliseconds() })
        return try Database(path: path, mode: .readWrite, vfs: vfs)
    }

    /// Moves this device's clock to simulated time `time`.
    func setTime(_ time: Int64) { clock.set(Self.reading(at: time, skew: skew, drift: drift, jump: jump)) }

    /// What a clock with this skew, drift and jump reads at simulated time `time`.
    static func reading(at time: Int64, skew: Int64, drift: Int64, jump: Int64) -> Int64 {
        time + (time - Simulation.start) * drift / 1_000 + skew + jump
    }

    /// Upgrades the app to release `to` (when it runs an older one): its migrator runs every migration up to it.
    ///
    /// The device's ``version`` moves only once the whole upgrade is done; until then ``upgrading`` says
    /// where it was going, since a power failure may stop it after some of its migrations landed.
    func upgrade(to target: Int, workload: Workload) throws {
        upgrading = target
        scope = nil
        try workload.upgrade(replica, from: version, to: target)
        upgrading = nil
        version = max(version, min(target, workload.lastVersion))
    }

    /// Relaunches the app after its disk crashed (or its process was killed): opens the database from
    /// what the disk kept, forgetting what the app held in memory.
    func relaunch() throws {
        scope = nil  // the app's `TEMP` triggers went with its connection
        replica = try Replica(path: path, configuration: configuration)
        app = try Self.openApp(path, configuration)
        try durability.prepare(replica, app: app)
        try openProcesses()
        cloud = CloudClient()
        if replica.nodeID != node {
            node = replica.nodeID
            newestOwnStamp = nil
        }
    }
}

extension SimulatedDevice {
    /// A backup of a device's disk — its durable image — and what the simulator knew of the device when
    /// it was taken, to go back to when it is restored.
    struct Backup {
        let image: SimulatedDisk.Image
        let knowledge: Knowledge
        let version: Int
        let ledgerVersion: Int64
        /// How many writes the ledger held when the backup was taken.
        let operations: Int
    }

    /// A backup of the disk now (between operations, so every acknowledged commit is in its durable image).
    func takeBackup(operations: Int) -> Backup {
        Backup(
            image: disk.durableImage(), knowledge: knowledge, version: version, ledgerVersion: ledgerVersion,
            operations: operations)
    }

    /// Restores `backup` onto the disk and relaunches: the database, and what the oracle knows it holds,
    /// go back in time. Returns the release the app was, which stays installed: the caller upgrades the
    /// restored file to it again (``SimulationRun/upgrade(_:to:)``, so that the tables its migrations
    /// rebuild once more are recorded as they were the first time).
    func restore(_ backup: Backup) throws -> Int {
        disk.restore(backup.image)
        knowledge = backup.knowledge
        ledgerVersion = backup.ledgerVersion
        lastClock = nil
        let release = version
        version = backup.version
        try relaunch()
        return release
    }
}

/// The node ids a device's replica is given: its planned one first, then fresh ones drawn from it,
/// whenever the replica sees its file was copied or restored.
final class NodeIDSequence: @unchecked Sendable {
    private let lock = NSLock()
    private var first: NodeID?
    private var generator: SeededGenerator

    init(first: NodeID) {
        self.first = first
        generator = SeededGenerator(seed: first.bytes.reduce(0x0123_4567) { $0 &* 31 &+ UInt64($1) })
    }

    /// The next id: the planned one, then fresh ones.
    func next() -> NodeID {
        lock.withLock {
            if let planned = first {
                first = nil
                return planned
            }
            return NodeID.random(using: &generator)
        }
    }
}

/// A simulator setup problem (not a failure of the system under test).
enum SimulatorError: Error, CustomStringConvertible {
    /// A device's disk held no database file to copy.
    case noDatabaseFile

    var description: String {
        switch self {
        case .noDatabaseFile: "the device's disk holds no database file"
        }
    }
}
