import ConcordTesting

/// The fault rates one seed drew and the steps it will take.
///
/// Drawing from a `ChoiceSource` makes the plan a pure function of its
/// choices: the seed gives fresh choices, a reproducer replays recorded ones,
/// and the ConcordTesting `Shrinker` finds smaller choice sequences, which
/// replay to shorter plans with simpler steps. Rates are drawn first, per
/// seed (swarm testing): some runs lose most messages, others crash often.
///
/// ```swift
/// var source = ChoiceSource(seed: 7)
/// let plan = SimulationPlan.draw(for: .default, using: &source)
/// ```
public struct SimulationPlan: Codable, Equatable, Sendable {
    /// Percentages (and for skew and delay, milliseconds) drawn from the scenario's ranges.
    public struct Rates: Codable, Equatable, Sendable {
        /// Percent of mesh pulls lost, and of cloud uploads whose answer is lost.
        public var loss = 0
        /// Percent of mesh pulls that arrive twice.
        public var duplicate = 0
        /// Percent chance, per other device, that an upload's push notification does not reach it.
        public var pushLoss = 0
        /// Weight, in percent of steps, of crashes.
        public var crash = 0
        /// Weight, in percent of steps, of links cut.
        public var partition = 0
        /// Weight, in percent of steps, of devices going offline.
        public var offline = 0
        /// Weight, in percent of steps, of clock jumps.
        public var jump = 0
        /// Weight, in percent of steps, of forks (at most two per run).
        public var fork = 0
        /// Weight, in percent of steps, of heals.
        public var heal = 0
        /// Most pages a mesh pull is split into.
        public var pages = 1
        /// Most records the server returns per fetch.
        public var fetchLimit = RecordServer.batchLimit
        /// Largest clock skew, in milliseconds; each device's is drawn from `-skew...skew`.
        public var skew = 0
        /// Largest clock drift, in milliseconds per second; each device's is drawn from `-drift...drift`.
        public var drift = 0
        /// Longest delay of a mesh pull, in milliseconds.
        public var delay = 0
        /// Percent of steps taken in the same millisecond as the one before.
        public var sameInstant = 0
        /// Percent chance that a device stops short of the newest release while the plan runs; `nil` when
        /// the app has one release (nothing about upgrades is drawn).
        public var lag: Int?
        /// Percent chance that the mesh has a relay (see ``SimulationPlan/sides``); `nil` when the app has one release.
        public var relay: Int?
        /// Weight, in percent of steps, of hostile changesets; `nil` when the scenario's range is `[0, 0]`.
        public var hostile: Int?
        /// Percent of forks made right after an app's write, before it is folded; `nil` when the scenario's
        /// range is `[0, 0]`.
        public var copyUnfolded: Int?
    }

    /// The fault rates drawn for this seed.
    public var rates: Rates
    /// Each device's clock skew, in milliseconds, and drift, in milliseconds per second.
    public var skews: [Int64]
    /// Each starting device's clock drift, in milliseconds gained (or, negative, lost) per second.
    public var drifts: [Int64]
    /// Mesh with a relay: each starting device's side. Devices on sides 1 and 2 never reach each other
    /// directly, not even in the liveness phase; the relay (side 0), which runs an older release until
    /// then, reaches everyone, so it is the only way between the two groups. A fork takes its original's
    /// side. `nil`: every device may reach every other.
    public var sides: [Int]?
    /// For a workload with `"names": "drawn"`, the identifier each of its names stands for, in the order of
    /// its names' first use (see `WorkloadNames`); `nil` otherwise, when each stands for itself.
    public var names: [String]?
    /// The steps, in the order they run.
    public var steps: [SimulationStep]
    /// How many choices had been drawn before the first step and after each step (to cut or delete steps).
    public var choicesBeforeSteps = 0
    /// How many choices had been drawn after each step, lined up with ``steps``.
    public var choicesAfterStep: [Int]

    /// Each fault's rate, drawn from the scenario's range for it in a fixed order.
    private static func drawRates(_ faults: Scenario.Faults, versioned: Bool, using source: inout ChoiceSource)
        -> Rates
    {
        func rate(_ range: [Int]) -> Int { source.int(in: range[0]...range[1]) }
        var rates = Rates()
        rates.loss = rate(faults.loss)
        rates.duplicate = rate(faults.duplicate)
        rates.pushLoss = rate(faults.pushLoss)
        rates.crash = rate(faults.crash)
        rates.partition = rate(faults.partition)
        rates.offline = rate(faults.offline)
        rates.jump = rate(faults.jump)
        rates.fork = rate(faults.fork)
        rates.heal = rate(faults.heal)
        rates.pages = rate(faults.pages)
        rates.fetchLimit = rate(faults.fetchLimit)
        rates.skew = rate(faults.skew)
        rates.drift = rate(faults.drift)
        rates.delay = rate(faults.delay)
        rates.sameInstant = rate(faults.sameInstant)
        if versioned {
            rates.lag = rate(faults.lag)
            rates.relay = rate(faults.relay)
        }
        // Drawn last, and only when asked for, so the choices of plans without it keep their meaning.
        if faults.hostile != [0, 0] { rates.hostile = rate(faults.hostile) }
        if faults.copyUnfolded != [0, 0] { rates.copyUnfolded = rate(faults.copyUnfolded) }
        return rates
    }

    /// Draws a plan for `scenario` from `source`.
    public static func draw(for scenario: Scenario, using source: inout ChoiceSource) -> SimulationPlan {
        let resolved = (try? scenario.workload.resolved()) ?? .reminders
        let rates = drawRates(scenario.faults, versioned: resolved.lastVersion > 1, using: &source)
        // Drawn only for a workload that asks, so the choices of every other plan keep their meaning.
        let names =
            resolved.names == "drawn" ? WorkloadNames.draw(for: resolved, using: &source) : nil
        let workload = resolved.naming(names)
        let skews = (0..<scenario.devices).map { _ in Int64(source.int(in: -rates.skew...rates.skew)) }
        let drifts = (0..<scenario.devices).map { _ in Int64(source.int(in: -rates.drift...rates.drift)) }
        var releases = ReleaseSchedule.draw(for: scenario, workload: workload, rates: rates, using: &source)
        var plan = SimulationPlan(
            rates: rates, skews: skews, drifts: drifts, sides: releases.sides, names: names, steps: [],
            choicesAfterStep: [])
        plan.choicesBeforeSteps = source.choices.count
        var devices = scenario.devices
        func percent(_ rate: Int) -> Bool { source.bool(probability: Double(rate) / 100) }
        // A "one more step?" choice before each step lets the shrinker end the plan early.
        while plan.steps.count < scenario.steps, source.bool(probability: 1) {
            let after = percent(rates.sameInstant) ? 0 : source.int64(in: 1...500)
            let device = source.int(in: 0...devices - 1)
            let weights = [
                scenario.mix.write, scenario.mix.sync, rates.crash, rates.partition, rates.offline,
                rates.jump, devices < scenario.devices + 2 ? rates.fork : 0, rates.heal,
                releases.canUpgrade(device) ? scenario.mix.upgrade : 0,
            ]
            let hostile = rates.hostile ?? 0
            let idle = max(1, 100 - weights.reduce(0, +) - hostile)
            let action: SimulationStep.Action
            // Hostile comes after idle, so a recorded choice of idle still means idle.
            switch source.index(weights: (weights + [idle] + (hostile > 0 ? [hostile] : [])).map { UInt64($0) }) {
            case 0:
                // Drawn only for a scenario with batches, so the choices of every other plan keep their meaning.
                let count =
                    scenario.mix.batch == [1, 1] ? 1 : source.int(in: scenario.mix.batch[0]...scenario.mix.batch[1])
                let sql = (0..<count).map { _ in workload.operation(&source, version: releases.version(of: device)) }
                action = count == 1 ? .write(sql: sql[0]) : .batch(sql: sql)
            case 1 where scenario.topology == .mesh:
                let from = (device + source.int(in: 1...devices - 1)) % devices
                let copies = percent(rates.loss) ? 0 : percent(rates.duplicate) ? 2 : 1
                action = .pull(
                    from: from, copies: copies, delay: source.int64(in: 0...Int64(rates.delay)),
                    pages: source.int(in: 1...max(1, rates.pages)))
            case 1:
                if source.bool() {
                    action = .fetch
                } else {
                    let acknowledged = !percent(rates.loss)
                    action = .upload(
                        acknowledged: acknowledged,
                        notified: (0..<devices).filter { $0 != device && !percent(rates.pushLoss) })
                }
            case 2: action = .crash
            case 3: action = .cut(to: (device + source.int(in: 1...devices - 1)) % devices)
            case 4: action = .offline
            case 5: action = .jump
            case 6:
                // Drawn only for a scenario that asks, so the choices of every other plan keep their meaning.
                if let rate = rates.copyUnfolded, percent(rate) {
                    // Several statements waiting, drawn only for a scenario with batches (as for writes).
                    let count =
                        scenario.mix.batch == [1, 1]
                        ? 1 : source.int(in: scenario.mix.batch[0]...scenario.mix.batch[1])
                    let sql = (0..<count).map { _ in
                        workload.operation(&source, version: releases.version(of: device))
                    }
                    action = count == 1 ? .forkAfterWrite(sql: sql[0]) : .forkAfterBatch(sql: sql)
                } else {
                    action = .fork
                }
                devices += 1
                releases.fork(device)
            case 7: action = .heal
            case 8: action = .upgrade(to: releases.upgrade(device))
            case 10:
                action = .hostile(
                    from: (device + source.int(in: 1...devices - 1)) % devices,
                    attack: HostileAttack.allCases[source.int(in: 0...HostileAttack.allCases.count - 1)],
                    seed: source.choose(upTo: .max))
            default: action = .idle
            }
            plan.steps.append(SimulationStep(after: after, device: device, action: action))
            plan.choicesAfterStep.append(source.choices.count)
        }
        return plan
    }
}
