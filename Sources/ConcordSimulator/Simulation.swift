import Concord
import Foundation

/// A deterministic run of several devices editing, syncing peer to peer
/// through a faulty network, crashing and skewing clocks, with every
/// invariant checked as it goes.
///
/// The seed decides everything: node ids, clock skews, which device does
/// what and when, delays, duplicates, losses, partitions and crashes. So the
/// same seed gives the same trace and byte-identical databases, and a failure
/// is reproduced by running its seed again.
///
/// ```swift
/// let result = try Simulation(seed: 7, configuration: .init(devices: 3, steps: 200)).run()
/// print(result.converged, result.traceHash)
/// ```
public struct Simulation {
    public struct Configuration: Sendable, Codable, Equatable {
        public var devices: Int
        public var steps: Int

        public init(devices: Int = 3, steps: Int = 200) {
            self.devices = devices
            self.steps = steps
        }
    }

    /// What a run did and found.
    public struct Result: Sendable, Codable, Equatable {
        public var seed: UInt64
        public var steps: Int
        /// App operations the devices accepted, and those their schema refused.
        public var writes = 0
        public var rejectedWrites = 0
        public var messagesSent = 0
        public var messagesDuplicated = 0
        public var messagesLost = 0
        /// Rows merged by applying changesets.
        public var rowsMerged = 0
        public var crashes = 0
        public var partitions = 0
        /// Clock jumps beyond the drift limit, and changesets refused for them (retried later).
        public var clockJumps = 0
        public var driftRefusals = 0
        /// Devices made by copying another device's database (with a fresh node id).
        public var forks = 0
        /// The most rows parked on one device at one time.
        public var mostParked = 0
        /// Rounds of all-pairs exchange the liveness phase needed.
        public var roundsToConverge = 0
        /// Every device ended with the same canonical dump.
        public var converged = false
        /// The first invariant that broke, with the step it broke at.
        public var failure: String?
        /// FNV-1a of the event trace and of the final dump: equal seeds give equal hashes.
        public var traceHash = ""
        public var dumpHash = ""
        /// The event trace, when the run was asked to keep it.
        public var trace: [String]?
    }

    public let seed: UInt64
    public let configuration: Configuration
    /// Keep the event trace in the result (for `concord replay`).
    public var keepsTrace = false

    public init(seed: UInt64, configuration: Configuration = Configuration(), keepsTrace: Bool = false) {
        self.seed = seed
        self.configuration = configuration
        self.keepsTrace = keepsTrace
    }

    /// How far a clock jump sets a device ahead: twice the default drift limit.
    static let jump: Int64 = 2 * HybridLogicalClock.defaultMaxDrift

    /// Simulated time starts at 2026-01-01T00:00Z.
    static let start: Int64 = 1_767_225_600_000

    /// Runs the simulation in a fresh temporary folder, removed afterwards.
    public func run() throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("concord-sim-\(seed)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try run(in: directory)
    }

    /// Runs the simulation with its databases in `directory`.
    public func run(in directory: URL) throws -> Result {
        var rng = SeededGenerator(seed: seed)
        var result = Result(seed: seed, steps: configuration.steps)
        var trace = FNV1a()
        var lines: [String] = []
        var time = Self.start
        var devices = try (0..<configuration.devices).map { index in
            try SimulatedDevice(index: index, directory: directory, node: NodeID.random(using: &rng),
                                skew: Int64.random(in: -2_000...2_000, using: &rng), time: time)
        }
        var network = SimulatedNetwork()
        // Fault rates are drawn per seed, so some runs lose many messages and others crash often.
        let lossRate = Int.random(in: 0...30, using: &rng), duplicateRate = Int.random(in: 0...30, using: &rng)
        let crashRate = Int.random(in: 0...5, using: &rng), partitionRate = Int.random(in: 0...5, using: &rng)
        let jumpRate = Int.random(in: 0...2, using: &rng)

        func log(_ event: String) {
            trace.add("\(time) \(event)\n")
            if keepsTrace { lines.append("\(time) \(event)") }
        }

        /// Applies a delivered changeset; one from a clock too far ahead is refused and asked for again later.
        func deliver(_ message: SimulatedNetwork.Message) throws -> Bool {
            do {
                let report = try devices[message.to].replica.apply(message.changeset)
                result.rowsMerged += report.applied
                log("device \(message.to) applied from \(message.from): \(report)")
                return true
            } catch let refusal as ClockDriftError {
                result.driftRefusals += 1
                log("device \(message.to) refused from \(message.from): \(refusal.drift) ms ahead")
                return false
            }
        }

        for step in 0..<configuration.steps {
            time += Int64.random(in: 1...500, using: &rng)
            for device in devices { device.setTime(time) }
            let device = devices[Int.random(in: 0..<devices.count, using: &rng)]
            let roll = Int.random(in: 0..<100, using: &rng)
            if roll < 45 {
                let sql = RemindersWorkload.operation(&rng)
                do {
                    try device.replica.database.execute(sql)
                    result.writes += 1
                    log("device \(device.index) wrote: \(sql)")
                } catch {
                    result.rejectedWrites += 1
                    log("device \(device.index) was refused: \(sql)")
                }
            } else if roll < 80 {
                // Pull: ask a peer for what it has since the version last read from it.
                let peer = devices[(device.index + Int.random(in: 1..<devices.count, using: &rng)) % devices.count]
                let changes = try peer.replica.changes(since: device.replica.peerVersion(peer.node))
                guard network.canSend(from: peer.index, to: device.index), !changes.rows.isEmpty else { continue }
                if Int.random(in: 0..<100, using: &rng) < lossRate {
                    result.messagesLost += 1
                    log("lost \(changes.rows.count) rows \(peer.index) -> \(device.index)")
                    continue
                }
                let copies = Int.random(in: 0..<100, using: &rng) < duplicateRate ? 2 : 1
                for _ in 0..<copies {
                    network.send(changes, from: peer.index, to: device.index, at: time,
                                 delay: Int64.random(in: 0...3_000, using: &rng))
                }
                result.messagesSent += 1
                result.messagesDuplicated += copies - 1
                log("sent \(changes.rows.count) rows \(peer.index) -> \(device.index) x\(copies)")
            } else if roll < 80 + crashRate {
                try device.crashAndRestart()
                result.crashes += 1
                log("device \(device.index) crashed and restarted")
            } else if roll < 80 + crashRate + partitionRate {
                let other = (device.index + 1) % devices.count
                network.cutLink(from: device.index, to: other)
                result.partitions += 1
                log("link \(device.index) -> \(other) cut")
            } else if roll < 80 + crashRate + partitionRate + jumpRate {
                device.jump = device.jump == 0 ? Self.jump : 0
                device.setTime(time)
                result.clockJumps += device.jump == 0 ? 0 : 1
                log("device \(device.index) clock \(device.jump == 0 ? "set back" : "jumped ahead")")
            } else if roll == 93 && devices.count < configuration.devices + 2 {
                let copy = try SimulatedDevice(forking: device, index: devices.count, directory: directory,
                                               node: NodeID.random(using: &rng), skew: device.skew, time: time)
                devices.append(copy)
                result.forks += 1
                log("device \(device.index) forked into device \(copy.index)")
            } else if network.hasPartition && roll > 95 {
                network.heal()
                log("partitions healed")
            }
            for message in network.due(by: time) {
                if try deliver(message) { try check(devices[message.to], step: step, &result) }
                if result.failure != nil { return finish(result, trace, devices, lines) }
            }
            try check(device, step: step, &result)
            if result.failure != nil { return finish(result, trace, devices, lines) }
        }

        // Liveness: heal, set clocks right and let time pass the last jump, deliver what is
        // in flight, and exchange until nobody learns anything.
        network.heal()
        time += 3 * Self.jump
        for device in devices {
            device.jump = 0
            device.setTime(time)
        }
        for message in network.due(by: .max) { _ = try deliver(message) }
        let report = try Replica.sync(devices.map(\.replica))
        result.rowsMerged += report.applied
        result.roundsToConverge = report.rounds
        log("synced in \(report.rounds) rounds")
        for device in devices {
            try check(device, step: configuration.steps, &result)
        }
        let dumps = try devices.map { try $0.replica.canonicalDump() }
        result.converged = Set(dumps).count == 1
        if !result.converged && result.failure == nil {
            result.failure = "devices did not converge after the liveness phase"
        }
        return finish(result, trace, devices, lines)
    }

    /// The safety invariants on one device: foreign keys whole, tables equal to the projection of the registers.
    private func check(_ device: SimulatedDevice, step: Int, _ result: inout Result) throws {
        guard result.failure == nil else { return }
        let report = try device.replica.check()
        if !report.isConsistent {
            result.failure = "step \(step), device \(device.index): \(report.problems.joined(separator: "; "))"
        }
        result.mostParked = max(result.mostParked, try device.replica.status().parked.count)
    }

    private func finish(_ result: Result, _ trace: FNV1a, _ devices: [SimulatedDevice], _ lines: [String]) -> Result {
        var result = result
        result.traceHash = trace.hex
        if keepsTrace { result.trace = lines }
        var dump = FNV1a()
        for device in devices { dump.add((try? device.replica.canonicalDump()) ?? "") }
        result.dumpHash = dump.hex
        return result
    }
}

/// The 64-bit FNV-1a hash, for fingerprints of traces and dumps.
struct FNV1a {
    private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

    mutating func add(_ text: String) {
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value &*= 0x100_0000_01B3
        }
    }

    var hex: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
