import Concord

/// The liveness phase: every fault ends, the devices exchange until nothing
/// moves, and, for an app with releases, the devices still behind upgrade.
///
/// A rolling upgrade is checked twice over. First, while devices still run
/// different releases, each must already hold everything written, as its own
/// release sees it: the oracle's projection onto its schema (a device that
/// dropped what it could not show, or an old relay that did not pass on what
/// it kept, is caught here). Then the devices behind upgrade, without
/// exchanging anything, and each must show at once what it kept for the
/// columns and tables its migration just added: the whole oracle. Only then do
/// they exchange again, for the final checks.
extension SimulationRun {
    /// Heals every link, sets clocks right, lets time pass the last jump, exchanges until nobody learns
    /// anything, and brings every device to the newest release.
    func liveness() throws {
        heal()
        time += 3 * Simulation.jump
        for device in devices {
            device.jump = 0
            device.setTime(time)
        }
        for message in network.due(by: .max) {
            // The connection was the sender's, as it was when it sent the message.
            _ = try deliver(
                try message.decoded(), to: devices[message.to], from: "device \(message.from)",
                node: message.sent.source, knowledge: message.knowledge)
        }
        result.roundsToConverge += try exchangeUntilQuiet()
        log("liveness phase took \(result.roundsToConverge) rounds")
        try collectWrites()
        guard let versionSchemas, result.failure == nil else { return }
        // A device whose release refuses a table exports none of it and holds back what others wrote of it:
        // while one does, no device holds every write; all are checked once the newest release undid the
        // change and the devices exchanged again.
        let refusing = devices.contains { !versionSchemas.refused(under: $0.version).isEmpty }
        if !refusing { try checkProjections(of: devices, schemas: versionSchemas) }
        let behind = devices.filter { $0.version < workload.lastVersion }
        guard result.failure == nil, !behind.isEmpty else { return }
        let recorded = ledger.ledger.operations.count
        for device in behind { try upgrade(device, to: workload.lastVersion) }
        // Upgrading stamps nothing, unless a migration rebuilt a table (``upgrade(_:to:)`` records those
        // rows as the device's writes) or undid a refused change (the writes that waited for it): any other
        // stamp would be a capture of what it materialized.
        try collectWrites()
        guard result.failure == nil else { return }
        // Each device is checked against every write; a rebuild's writes reach the others in the exchange.
        let rebuilt = ledger.ledger.operations.count > recorded
        if !rebuilt && !refusing { try checkProjections(of: behind, schemas: versionSchemas) }
        guard result.failure == nil else { return }
        result.roundsToConverge += try exchangeUntilQuiet()
        log("after the upgrades, \(result.roundsToConverge) rounds in all")
        try collectWrites()
        if result.failure == nil, rebuilt || refusing {
            try checkProjections(of: refusing ? devices : behind, schemas: versionSchemas)
        }
    }

    /// Exchanges until a round moves nothing: between devices that can reach each other (mesh), or
    /// through the server (cloud). Returns the rounds it took.
    private func exchangeUntilQuiet() throws -> Int {
        switch topology {
        case .mesh: try exchangeOverLinks()
        case .cloud: try quiesceThroughServer()
        }
    }

    /// Every device reads every device it may reach, round after round, until a round merges nothing.
    ///
    /// It is `Replica.sync` over the mesh's links rather than over every pair: with a relay, the two
    /// groups learn each other's writes only through it. Once a round merged nothing, each database
    /// holds the join of all, so each knows every write any of them knew. Devices still merging after 20
    /// rounds fail the run, as the record server's exchange does (``quiesceThroughServer()``): merges that
    /// keep making writes (an app trigger's, captured) would otherwise never stop.
    private func exchangeOverLinks() throws -> Int {
        var rounds = 0
        var moved = true
        var refused: Set<[Int]> = []
        var refusals: [String] = []
        while moved {
            guard rounds < 20 else {
                fail(.convergence, "devices were still merging each other's changes after 20 rounds")
                return rounds
            }
            moved = false
            rounds += 1
            for source in devices {
                for target in devices where target !== source && linked(source.index, target.index) {
                    guard !refused.contains([source.index, target.index]) else { continue }
                    do {
                        let changes = try export(source, since: target.replica.peerVersion(source.node))
                        let applied = try target.replica.apply(try transmit(changes), from: source.node).applied
                        // As a delivery does (``deliver(_:to:from:node:knowledge:)``): the target read all its source
                        // held, and deletes a trigger of its app made while merging are recorded as of now.
                        target.knowledge.learn(
                            source.knowledge.leaving(refusedTables(of: source).union(refusedTables(of: target))))
                        if try !target.tablesTriggersDelete().isEmpty { try collectWrites(only: [target.index]) }
                        result.rowsMerged += applied
                        moved = moved || applied > 0
                    } catch let refusal as ClockDriftError {
                        refused.insert([source.index, target.index])
                        refusals.append("device \(target.index) refused device \(source.index): \(refusal)")
                    }
                }
            }
        }
        guard refusals.isEmpty else {
            fail(.error, "the liveness phase's exchange did not finish: \(refusals.joined(separator: "; "))")
            return rounds
        }
        // Every device now holds what every other does, but for the tables a release refuses.
        guard !devices.contains(where: { !refusedTables(of: $0).isEmpty }) else { return rounds }
        var everything = Knowledge()
        for device in devices { everything.learn(device.knowledge) }
        for device in devices { device.knowledge = everything }
        return rounds
    }

    /// Each of `devices`, checked for safety, then held to the oracle's projection onto its release's
    /// schema: its tables show, and its registers hold, what the model of that schema says.
    private func checkProjections(of devices: [SimulatedDevice], schemas: VersionSchemas) throws {
        var oracles: [Int: Oracle] = [:]
        for device in devices where result.failure == nil {
            try check(device)
            guard result.failure == nil else { return }
            // The release's CHECK constraints are the device's own (every device on it has the same).
            let oracle =
                try oracles[device.version]
                ?? Oracle(schema: schemas[device.version], ledger: ledger, checks: CheckConstraints(of: device.replica))
            oracles[device.version] = oracle
            let name = "device \(device.index) (version \(device.version))"
            if let difference = try oracle.tableDifference(on: device.replica, shower: "\(name) shows") {
                fail(.oracle, difference)
            } else if let difference = try oracle.registerDifference(on: device.replica) {
                fail(.oracle, "\(name): \(difference)")
            }
        }
    }
}
