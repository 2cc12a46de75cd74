import Concord
import Foundation

/// One device of a simulation: a file-backed replica whose every clock reading is virtual.
///
/// Its physical clock is the simulation's time plus a skew, and the same
/// clock stands behind SQL's `'now'` in the capture triggers, so a seed fixes
/// every stamp. A crash closes the connection without ceremony; the restart
/// reopens the file, which keeps exactly what was committed.
final class SimulatedDevice {
    let index: Int
    let path: String
    let node: NodeID
    let clock: ManualClock
    /// How far this device's clock runs ahead of (or behind) simulated time, in milliseconds.
    let skew: Int64
    /// A jump of the device's clock (a user setting it ahead), on top of the skew.
    var jump: Int64 = 0
    private(set) var replica: Replica

    init(index: Int, directory: URL, node: NodeID, skew: Int64, time: Int64) throws {
        self.index = index
        self.path = directory.appendingPathComponent("device-\(index).sqlite").path
        self.node = node
        self.skew = skew
        clock = ManualClock(unixMilliseconds: time + skew)
        replica = try Self.open(path: path, node: node, clock: clock)
        try replica.database.execute(RemindersWorkload.schema)
        for table in RemindersWorkload.tables { try replica.enableSync(on: table) }
        try replica.database.execute("PRAGMA foreign_keys = ON")
    }

    /// A new device made by copying `original`'s database, under a node id of its own.
    init(forking original: SimulatedDevice, index: Int, directory: URL, node: NodeID, skew: Int64, time: Int64) throws {
        self.index = index
        self.path = directory.appendingPathComponent("device-\(index).sqlite").path
        self.node = node
        self.skew = skew
        clock = ManualClock(unixMilliseconds: time + skew)
        replica = try original.replica.fork(to: path, configuration: .init(clock: clock, makeNodeID: { node }))
        try replica.database.execute("PRAGMA foreign_keys = ON")
    }

    private static func open(path: String, node: NodeID, clock: ManualClock) throws -> Replica {
        try Replica(path: path, configuration: .init(clock: clock, makeNodeID: { node }))
    }

    /// Moves this device's clock to simulated time `time`.
    func setTime(_ time: Int64) { clock.set(time + skew + jump) }

    /// Drops the connection and reopens the file, as after a crash and relaunch.
    func crashAndRestart() throws {
        replica = try Self.open(path: path, node: node, clock: clock)
        try replica.database.execute("PRAGMA foreign_keys = ON")
    }
}
