@_spi(Testing) import Concord
import Foundation

/// One device of a simulation: a file-backed replica whose every clock reading is virtual.
///
/// Its physical clock is the simulation's time, running fast or slow by a
/// drift, plus a skew and any jump the user made; and the same
/// clock stands behind SQL's `'now'` in the capture triggers, so a seed fixes
/// every stamp. A crash closes the connection without ceremony; the restart
/// reopens the file, which keeps exactly what was committed — and forgets
/// everything the app kept in memory (its cloud change tags and token). What
/// the oracle knows the database holds (``knowledge``) survives a crash and is
/// copied by a fork, as the file is; so does the release of the app whose
/// migrations the file has been through (``version``).
final class SimulatedDevice {
    let index: Int
    let path: String
    let node: NodeID
    let clock: ManualClock
    let configuration: Replica.Configuration
    /// How far this device's clock runs ahead of (or behind) simulated time, in milliseconds.
    let skew: Int64
    /// Milliseconds this device's clock gains (or, negative, loses) per second of simulated time.
    let drift: Int64
    /// A jump of the device's clock (a user setting it ahead), on top of the skew.
    var jump: Int64 = 0
    /// The release of the app this device runs (1 until its first upgrade).
    private(set) var version = 1
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
    var parked: Set<String> = []
    private(set) var replica: Replica

    init(
        index: Int, directory: URL, node: NodeID, skew: Int64, drift: Int64, time: Int64, workload: Workload,
        bugs: InjectedBugs
    ) throws {
        self.index = index
        self.path = directory.appendingPathComponent("device-\(index).sqlite").path
        self.node = node
        self.skew = skew
        self.drift = drift
        clock = ManualClock(unixMilliseconds: Self.reading(at: time, skew: skew, drift: drift, jump: 0))
        var configuration = Replica.Configuration(clock: clock, makeNodeID: { node })
        configuration.interceptor = bugs.interceptor()
        // The file's name identifies it, so a seed gives the same bytes whatever inodes the disk hands out.
        configuration.fileIdentity = { URL(fileURLWithPath: $0).lastPathComponent }
        self.configuration = configuration
        replica = try Replica(path: path, configuration: configuration)
        try workload.install(on: replica)
        try Self.prepare(replica)
        ledgerVersion = try replica.version
    }

    /// A new device made by copying `original`'s database, under a node id of its own.
    init(forking original: SimulatedDevice, index: Int, directory: URL, node: NodeID, time: Int64) throws {
        self.index = index
        self.path = directory.appendingPathComponent("device-\(index).sqlite").path
        self.node = node
        skew = original.skew
        drift = original.drift
        clock = ManualClock(unixMilliseconds: Self.reading(at: time, skew: skew, drift: drift, jump: 0))
        var configuration = original.configuration
        configuration.clock = clock
        configuration.makeNodeID = { node }
        self.configuration = configuration
        replica = try original.replica.fork(to: path, configuration: configuration)
        knowledge = original.knowledge
        version = original.version
        try Self.prepare(replica)
        ledgerVersion = try replica.version
    }

    /// Foreign keys enforced, as a careful app has them; no fsync, since a simulated crash
    /// kills the process, not the machine, and the OS keeps every page written before it.
    private static func prepare(_ replica: Replica) throws {
        try replica.database.execute("PRAGMA foreign_keys = ON")
        try replica.database.execute("PRAGMA synchronous = OFF")
    }

    /// Moves this device's clock to simulated time `time`.
    func setTime(_ time: Int64) { clock.set(Self.reading(at: time, skew: skew, drift: drift, jump: jump)) }

    /// What a clock with this skew, drift and jump reads at simulated time `time`.
    static func reading(at time: Int64, skew: Int64, drift: Int64, jump: Int64) -> Int64 {
        time + (time - Simulation.start) * drift / 1_000 + skew + jump
    }

    /// Upgrades the app to release `to` (when it runs an older one): its migrator runs every migration up to it.
    func upgrade(to target: Int, workload: Workload) throws {
        try workload.upgrade(replica, from: version, to: target)
        version = max(version, min(target, workload.lastVersion))
    }

    /// Drops the connection and reopens the file, as after a crash and relaunch.
    func crashAndRestart() throws {
        replica = try Replica(path: path, configuration: configuration)
        try Self.prepare(replica)
        cloud = CloudClient()
    }
}
