import Foundation

/// What a simulation runs: an app, a topology, how many devices and steps,
/// which seeds, and the ranges fault rates are drawn from.
///
/// Scenarios are JSON files (see `Simulations/README.md`); every field but
/// `name` has a default, so `{"name": "quick"}` runs the reminders app on
/// three devices over the mesh.
///
/// ```swift
/// let scenario = try Scenario.load(path: "Simulations/counter-app.json")
/// let result = try Simulation(scenario: scenario, seed: 3).run()
/// ```
public struct Scenario: Codable, Equatable, Sendable {
    /// How devices exchange changes.
    public enum Topology: String, Codable, Sendable, CaseIterable {
        /// Devices upload to and fetch from a record server, in the manner of CloudKit.
        case cloud
        /// Devices pull changesets from each other.
        case mesh
    }

    /// The scenario's name, which reports and reproducer file names use.
    public var name: String
    /// A sentence saying what the scenario exercises, for people reading the file.
    public var summary: String?
    /// Whether devices sync through a record server or with each other (mesh by default).
    public var topology: Topology
    /// How many devices start (at least 2; forks add more while it runs). Three by default.
    public var devices: Int
    /// How many steps a seed's plan has (200 by default).
    public var steps: Int
    /// The seeds `concord simulate` runs by default, as `"A..B"`.
    public var seeds: String
    /// The app the devices run: its schema, the tables it syncs and the writes it makes.
    public var workload: Workload
    /// The ranges each fault's rate is drawn from.
    public var faults: Faults
    /// Percent weights of the step kinds; the rest of 100 is faults.
    public var mix: Mix
    /// How often the full safety checks run (see ``Checks``).
    public var checks = Checks()
    /// Events a batch of this scenario's runs must reach, at least one run each (see ``unreached(in:)``);
    /// `nil` (or empty) requires none.
    public var mustReach: [CoverageEvent]?

    /// Ranges, in percent per step (or per message), that a seed draws its fault rates from.
    public struct Faults: Codable, Equatable, Sendable {
        /// A changeset (mesh) or upload acknowledgement (cloud) lost on the way.
        public var loss = [0, 30]
        /// A changeset delivered twice.
        public var duplicate = [0, 30]
        /// A push notification that never arrives (cloud).
        public var pushLoss = [0, 60]
        /// The app killed and relaunched, keeping only what it committed.
        public var crash = [0, 5]
        /// A link cut one way (mesh) or a device unable to reach the server (cloud).
        public var partition = [0, 5]
        /// A device going offline for a long while (until the next heal).
        public var offline = [0, 3]
        /// A clock set ahead beyond the drift limit (or back again).
        public var jump = [0, 2]
        /// A device's database copied to a new device, which must take a node id of its own.
        public var fork = [0, 1]
        /// Percent of forks that copy the file right after the device's app writes, before Concord folds
        /// the write (a backup taken mid-edit), so the copy finds it waiting. `[0, 0]` by default, and then
        /// no rate is drawn, so plans stay as they were.
        public var copyUnfolded = [0, 0]
        /// Partitions and offline periods ending.
        public var heal = [2, 6]
        /// Most pages a mesh changeset is split into; pages arrive last first, so children overtake parents.
        public var pages = [1, 2]
        /// Most records the server returns per fetch (cloud); small pages let children arrive before parents.
        public var fetchLimit = [RecordServer.batchLimit, RecordServer.batchLimit]
        /// Largest clock skew between devices, in milliseconds.
        public var skew = [0, 2_000]
        /// Largest clock drift, in milliseconds gained or lost per second.
        public var drift = [0, 20]
        /// Largest delay of a message, in milliseconds.
        public var delay = [0, 3_000]
        /// Percent of steps taken in the same millisecond as the one before (so clock readings tie).
        public var sameInstant = [0, 30]
        /// Percent chance that a device stops short of the newest release while the plan runs (it
        /// upgrades the rest of the way in the liveness phase). Drawn only for a workload with versions.
        public var lag = [0, 50]
        /// Percent chance that the mesh has one device, still on an older release, as the only link
        /// between two groups of devices. Drawn only for a workload with versions, on a mesh of 3 or more.
        public var relay = [0, 50]
        /// Percent of steps where a hostile peer sends a device a corrupted or forged changeset (see
        /// ``HostileAttack``). `[0, 0]` by default, and then no rate is drawn, so plans stay as they were.
        public var hostile = [0, 0]
        /// Percent of crashes that are power losses (the rest kill the app's process only, and every
        /// write survives). A power loss keeps what was synced, with unsynced writes torn or reordered.
        public var powerLoss = [30, 100]
        /// Percent chance, per file a power loss hits, that its last unsynced write is torn.
        public var tornWrite = [0, 50]
        /// Percent chance, per file (and the directory) a power loss hits, that an arbitrary subset of
        /// its unsynced changes lands.
        public var reorder = [0, 50]
        /// Percent of crashes that land inside the device's next operations (an app write, a changeset
        /// applied, a fold or an export), at a disk operation the seed picks, instead of between steps.
        public var midOperation = [0, 60]
        /// Percent of crashes that restore the device's latest backup instead (its disk goes back in
        /// time); only when every write it made since reached another device, so none is lost for good.
        public var restore = [0, 20]
        /// Percent chance, per device, that its app leaves foreign keys unenforced (SQLite's default), so it
        /// may write a child without its parent. `[0, 0]` by default, and then nothing is drawn.
        public var foreignKeysOff = [0, 0]

        /// The default ranges, as a scenario file that gives no `faults` gets them.
        public init() {}
    }

    /// Percent weights of app writes, sync exchanges and app upgrades per step.
    public struct Mix: Codable, Equatable, Sendable {
        /// Steps where a device's app writes (45 by default).
        public var write = 45
        /// Steps where devices exchange changes (35 by default).
        public var sync = 35
        /// Steps where a device's app upgrades to its next release (4 by default; only with versions).
        public var upgrade = 4
        /// How many statements a write step's app runs before Concord folds them together, drawn per step
        /// from `[low, high]` (`[1, 1]` by default: a fold after every statement). A real app writes many
        /// between two syncs; a fold of several is where one write's stamp hides another's.
        public var batch = [1, 1]
        /// The default weights: 45 writes, 35 syncs, 4 upgrades when the app has versions, the rest faults.
        public init() {}
    }

    /// A scenario with the default fault ranges and mix; the other defaults are those of a file that gives only `name`.
    public init(
        name: String, topology: Topology = .mesh, devices: Int = 3, steps: Int = 200, seeds: String = "1..20",
        workload: Workload = Workload(app: "reminders")
    ) {
        self.name = name
        self.topology = topology
        self.devices = devices
        self.steps = steps
        self.seeds = seeds
        self.workload = workload
        faults = Faults()
        mix = Mix()
    }

    /// The built-in scenario `concord simulate` runs without arguments.
    public static let `default` = Scenario(name: "reminders")

    /// The seed range in `seeds`.
    public var seedRange: ClosedRange<UInt64> {
        get throws { try Self.parseSeeds(seeds) }
    }

    /// Parses `"A..B"` (or a single `"N"`).
    public static func parseSeeds(_ text: String) throws -> ClosedRange<UInt64> {
        let parts = text.components(separatedBy: "..")
        if parts.count == 1, let seed = UInt64(parts[0]) { return seed...seed }
        guard parts.count == 2, let low = UInt64(parts[0]), let high = UInt64(parts[1]), low <= high else {
            throw ScenarioError("seeds '\(text)' is not a range; write it as A..B with A <= B, such as 1..20")
        }
        return low...high
    }

    /// Reads and validates a scenario file.
    public static func load(path: String) throws -> Scenario {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw ScenarioError("cannot read scenario '\(path)': \(error.localizedDescription)")
        }
        do {
            let scenario = try JSONDecoder().decode(Scenario.self, from: data)
            try scenario.validate()
            return scenario
        } catch let error as ScenarioError {
            throw ScenarioError("scenario '\(path)': \(error.message)")
        } catch let error as DecodingError {
            throw ScenarioError("scenario '\(path)' is not valid: \(ScenarioError.describe(error))")
        }
    }

    /// Checks everything a run relies on, so a bad file fails before any device starts.
    public func validate() throws {
        guard devices >= 2 else { throw ScenarioError("\"devices\" is \(devices); a simulation needs at least 2") }
        guard steps >= 1 else { throw ScenarioError("\"steps\" is \(steps); it must be at least 1") }
        _ = try seedRange
        let app = try workload.resolved().naming(nil)
        if app.lastVersion > 1, try VersionSchemas(of: app).refusesAny, mix.batch != [1, 1] {
            throw ScenarioError(
                "mix.batch is \(mix.batch), and a release refuses a table; the simulator follows the writes that "
                    + "wait for a refused table one statement at a time, so leave mix.batch out")
        }
        let ranges: [(String, [Int])] = [
            ("loss", faults.loss), ("duplicate", faults.duplicate), ("pushLoss", faults.pushLoss),
            ("crash", faults.crash), ("partition", faults.partition), ("offline", faults.offline),
            ("jump", faults.jump), ("fork", faults.fork), ("heal", faults.heal), ("pages", faults.pages),
            ("fetchLimit", faults.fetchLimit), ("skew", faults.skew), ("drift", faults.drift),
            ("delay", faults.delay), ("sameInstant", faults.sameInstant), ("lag", faults.lag),
            ("relay", faults.relay), ("hostile", faults.hostile), ("powerLoss", faults.powerLoss),
            ("tornWrite", faults.tornWrite), ("reorder", faults.reorder), ("midOperation", faults.midOperation),
            ("restore", faults.restore), ("foreignKeysOff", faults.foreignKeysOff),
            ("copyUnfolded", faults.copyUnfolded),
        ]
        for (name, range) in ranges where range.count != 2 || range[0] < 0 || range[0] > range[1] {
            throw ScenarioError("faults.\(name) is \(range); give it as [low, high] with 0 <= low <= high")
        }
        guard faults.fetchLimit[0] >= 1, faults.fetchLimit[1] <= RecordServer.batchLimit else {
            throw ScenarioError(
                "faults.fetchLimit is \(faults.fetchLimit); a fetch returns 1 to \(RecordServer.batchLimit) records")
        }
        guard checks.fullEvery >= 1 else {
            throw ScenarioError("checks.fullEvery is \(checks.fullEvery); give 1 (every step) or more")
        }
        guard mix.write >= 0, mix.sync >= 0, mix.write + mix.sync <= 100 else {
            throw ScenarioError(
                "mix gives write \(mix.write) and sync \(mix.sync); both must be >= 0 and add up to at most 100")
        }
        guard mix.batch.count == 2, 1 <= mix.batch[0], mix.batch[0] <= mix.batch[1], mix.batch[1] <= 20 else {
            throw ScenarioError("mix.batch is \(mix.batch); give it as [low, high] with 1 <= low <= high <= 20")
        }
        guard app.lastVersion == 1 || (mix.upgrade >= 0 && mix.write + mix.sync + mix.upgrade <= 100) else {
            throw ScenarioError(
                "mix gives write \(mix.write), sync \(mix.sync) and upgrade \(mix.upgrade); "
                    + "each must be >= 0 and together at most 100")
        }
    }
}

extension Scenario {
    /// Reads a scenario in which every field but `name` may be left out, taking its default.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(name: try container.decode(String.self, forKey: .name))
        summary = try container.decodeIfPresent(String.self, forKey: .summary)
        topology = try container.decodeIfPresent(Topology.self, forKey: .topology) ?? topology
        devices = try container.decodeIfPresent(Int.self, forKey: .devices) ?? devices
        steps = try container.decodeIfPresent(Int.self, forKey: .steps) ?? steps
        seeds = try container.decodeIfPresent(String.self, forKey: .seeds) ?? seeds
        workload = try container.decodeIfPresent(Workload.self, forKey: .workload) ?? workload
        faults = try container.decodeIfPresent(Faults.self, forKey: .faults) ?? faults
        mix = try container.decodeIfPresent(Mix.self, forKey: .mix) ?? mix
        checks = try container.decodeIfPresent(Checks.self, forKey: .checks) ?? checks
        mustReach = try container.decodeIfPresent([String].self, forKey: .mustReach)?.map(CoverageEvent.init(named:))
    }
}

extension Scenario.Faults {
    /// Reads fault ranges, any of which may be left out, taking its default.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        func read(_ key: CodingKeys, _ value: inout [Int]) throws {
            value = try container.decodeIfPresent([Int].self, forKey: key) ?? value
        }
        try read(.loss, &loss)
        try read(.duplicate, &duplicate)
        try read(.pushLoss, &pushLoss)
        try read(.crash, &crash)
        try read(.partition, &partition)
        try read(.offline, &offline)
        try read(.jump, &jump)
        try read(.fork, &fork)
        try read(.heal, &heal)
        try read(.pages, &pages)
        try read(.fetchLimit, &fetchLimit)
        try read(.skew, &skew)
        try read(.drift, &drift)
        try read(.delay, &delay)
        try read(.sameInstant, &sameInstant)
        try read(.lag, &lag)
        try read(.relay, &relay)
        try read(.hostile, &hostile)
        try read(.powerLoss, &powerLoss)
        try read(.tornWrite, &tornWrite)
        try read(.reorder, &reorder)
        try read(.midOperation, &midOperation)
        try read(.restore, &restore)
        try read(.foreignKeysOff, &foreignKeysOff)
        try read(.copyUnfolded, &copyUnfolded)
    }
}

extension Scenario.Mix {
    /// Reads step weights and the batch range, any of which may be left out, taking its default.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        write = try container.decodeIfPresent(Int.self, forKey: .write) ?? write
        sync = try container.decodeIfPresent(Int.self, forKey: .sync) ?? sync
        upgrade = try container.decodeIfPresent(Int.self, forKey: .upgrade) ?? upgrade
        batch = try container.decodeIfPresent([Int].self, forKey: .batch) ?? batch
    }
}

/// A scenario that cannot run, saying what is wrong and how to fix it.
///
/// ```swift
/// do { _ = try Scenario.load(path: "typo.json") } catch let error as ScenarioError { print(error.message) }
/// ```
public struct ScenarioError: Error, CustomStringConvertible, Equatable {
    /// What is wrong and how to fix it, naming the file or field.
    public let message: String
    /// An error saying `message`.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }

    /// A decoding error as a sentence that names the field.
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let names = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return names.isEmpty ? "the top level" : String(names.dropFirst(names.hasPrefix(".") ? 1 : 0))
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context)) is missing \"\(key.stringValue)\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
