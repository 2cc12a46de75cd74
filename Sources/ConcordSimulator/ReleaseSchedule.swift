import ConcordTesting

/// While a plan is drawn: the release of the app each device runs, how far each may upgrade before
/// the liveness phase, and which devices of a mesh never reach each other but through a relay.
///
/// A rolling upgrade is dangerous where devices of different releases meet,
/// and most of all where an old device is the only way between new ones: it
/// must keep and pass on the columns and tables it does not have. So each
/// seed draws, per device, whether it lags (stops at an older release until
/// the liveness phase, where every device reaches the newest), and, on a mesh
/// of three or more, whether one device — one that lags — is the only link
/// between two groups. Nothing is drawn for an app with a single release, so
/// the plans of such scenarios stay what they were.
///
/// ```swift
/// var schedule = ReleaseSchedule.draw(for: scenario, workload: app, rates: rates, using: &source)
/// if schedule.canUpgrade(2) { let version = schedule.upgrade(2) }   // .upgrade(to: version)
/// ```
struct ReleaseSchedule {
    /// The release each device runs, by device (forks included).
    private(set) var versions: [Int]
    /// The newest release each device reaches while the plan runs.
    private(set) var ceilings: [Int]
    /// For a relay topology, each starting device's side: 0 for the relay, else 1 or 2 (see ``SimulationPlan/sides``).
    private(set) var sides: [Int]?

    /// Draws the schedule of `scenario`'s starting devices; draws nothing when `workload` has one release.
    static func draw(
        for scenario: Scenario, workload: Workload, rates: SimulationPlan.Rates, using source: inout ChoiceSource
    ) -> ReleaseSchedule {
        let last = workload.lastVersion
        let devices = scenario.devices
        var schedule = ReleaseSchedule(
            versions: Array(repeating: 1, count: devices), ceilings: Array(repeating: last, count: devices))
        guard last > 1 else { return schedule }
        for device in 0..<devices {
            let lags = source.bool(probability: Double(rates.lag ?? 0) / 100)
            if lags { schedule.ceilings[device] = source.int(in: 1...last - 1) }
        }
        guard scenario.topology == .mesh, devices >= 3, source.bool(probability: Double(rates.relay ?? 0) / 100)
        else { return schedule }
        let relay = source.int(in: 0...devices - 1)
        schedule.ceilings[relay] = source.int(in: 1...last - 1)
        // The first other device takes side 1 and the last side 2, so both groups have a device.
        let others = (0..<devices).filter { $0 != relay }
        var sides = Array(repeating: 0, count: devices)
        for (position, device) in others.enumerated() {
            sides[device] =
                position == 0 ? 1 : position == others.count - 1 ? 2 : 1 + source.int(in: 0...1)
        }
        schedule.sides = sides
        return schedule
    }

    /// The release `device` runs now.
    func version(of device: Int) -> Int { versions[device] }

    /// Whether `device` may upgrade before the liveness phase.
    func canUpgrade(_ device: Int) -> Bool { versions[device] < ceilings[device] }

    /// Upgrades `device` to its next release; returns that release.
    mutating func upgrade(_ device: Int) -> Int {
        versions[device] += 1
        return versions[device]
    }

    /// A new device, forked from `device`: its copy runs the same release and may go as far.
    mutating func fork(_ device: Int) {
        versions.append(versions[device])
        ceilings.append(ceilings[device])
    }
}
