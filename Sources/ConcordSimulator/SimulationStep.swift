/// One step of a simulation plan: after some milliseconds, one device does one thing.
///
/// A plan is plain data drawn from the seed before anything runs, so a
/// reproducer can list it, `concord replay` can run it, and the shrinker can
/// delete steps from it. Device numbers past the devices that exist (after a
/// shrink removed a fork) wrap around.
///
/// ```swift
/// let step = SimulationStep(after: 120, device: 1, action: .write(sql: "DELETE FROM lists WHERE id = 'l1'"))
/// print(step)   // "+120 ms device 1 writes: DELETE FROM lists WHERE id = 'l1'"
/// ```
public struct SimulationStep: Codable, Equatable, Sendable, CustomStringConvertible {
    /// What the device does.
    public enum Action: Codable, Equatable, Sendable {
        /// The app runs this SQL on the device's own connection.
        case write(sql: String)
        /// The app runs these statements one after another on its own connection, and Concord folds them
        /// together, as it does what an app writes between two syncs.
        case batch(sql: [String])
        /// Mesh: the device asks `from` for its changes; `copies` arrive after `delay` ms (0 copies: lost),
        /// split in `pages` that arrive last page first.
        case pull(from: Int, copies: Int, delay: Int64, pages: Int)
        /// Cloud: the device uploads its changes; the server's answer may be lost; pushes reach `notified`.
        case upload(acknowledged: Bool, notified: [Int])
        /// Cloud: the device fetches what changed on the server since its token.
        case fetch
        /// The app is killed and relaunched; the file keeps what was committed.
        case crash
        /// Mesh: messages from this device to `to` stop arriving. Cloud: this device cannot upload.
        case cut(to: Int)
        /// The device reaches nobody until the next heal.
        case offline
        /// Every cut link and offline device is back.
        case heal
        /// The device's clock is set far ahead (beyond the drift limit), or back again.
        case jump
        /// The device's database is copied to a new device with a fresh node id.
        case fork
        /// The app writes `sql`, and the file is copied to a new device before Concord folds the write.
        case forkAfterWrite(sql: String)
        /// The app runs the statements `sql`, and the file is copied to a new device before Concord folds them.
        case forkAfterBatch(sql: [String])
        /// Nothing happens but time passing (messages in flight arrive).
        case idle
        /// The device's app is upgraded to release `to`: its migrator runs each migration up to it.
        case upgrade(to: Int)
        /// A hostile peer, posing as device `from`, sends this device the changeset `attack` makes, drawn from `seed`.
        case hostile(from: Int, attack: HostileAttack, seed: UInt64)
    }

    /// Milliseconds of simulated time before this step.
    public var after: Int64
    /// The device that acts, by index (wrapping around past the devices that exist).
    public var device: Int
    /// What it does.
    public var action: Action

    /// A step in which `device` does `action` after `after` milliseconds.
    public init(after: Int64, device: Int, action: Action) {
        self.after = after
        self.device = device
        self.action = action
    }

    /// The step in one line, such as `+120 ms device 1 fetches`.
    public var description: String {
        let what: String =
            switch action {
            case .write(let sql): "writes: \(sql)"
            case .batch(let sql): "writes \(sql.count) statements: \(sql.joined(separator: "; "))"
            case .pull(let from, let copies, let delay, let pages):
                copies == 0
                    ? "pulls from \(from), lost"
                    : "pulls from \(from), \(copies) cop\(copies == 1 ? "y" : "ies") in \(delay) ms, \(pages) page\(pages == 1 ? "" : "s")"
            case .upload(let acknowledged, let notified):
                "uploads\(acknowledged ? "" : ", answer lost"), pushes reach \(notified)"
            case .fetch: "fetches"
            case .crash: "crashes and relaunches"
            case .cut(let to): "loses its link to \(to)"
            case .offline: "goes offline"
            case .heal: "sees every link heal"
            case .jump: "has its clock jump"
            case .fork: "is copied to a new device"
            case .forkAfterWrite(let sql): "writes: \(sql), and is copied to a new device before it is folded"
            case .forkAfterBatch(let sql):
                "writes \(sql.count) statements: \(sql.joined(separator: "; ")), and is copied to a new device "
                    + "before they are folded"
            case .idle: "idles"
            case .upgrade(let version): "upgrades its app to version \(version)"
            case .hostile(let from, let attack, _): "gets a hostile changeset from \(from): \(attack.rawValue)"
            }
        return "+\(after) ms device \(device) \(what)"
    }
}
