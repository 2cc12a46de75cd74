import Concord

/// Peer-to-peer exchange: a device asks a peer for what it has not read yet,
/// and the answer crosses a network that delays, duplicates and loses it.
extension SimulationRun {
    func pull(_ device: SimulatedDevice, from peer: SimulatedDevice, copies: Int, delay: Int64, pages: Int) throws {
        guard peer !== device else { return }
        guard device.online, peer.online, network.canSend(from: peer.index, to: device.index) else {
            log("device \(device.index) cannot reach device \(peer.index)")
            return
        }
        let changes = try peer.replica.changes(since: device.replica.peerVersion(peer.node))
        guard !changes.rows.isEmpty else { return }
        guard copies > 0 else {
            result.messagesLost += 1
            log("lost \(changes.rows.count) rows \(peer.index) -> \(device.index)")
            return
        }
        for (page, part) in Self.split(changes, into: pages).enumerated() {
            let knowledge = peer.knowledge.about(part.rows.map { RowRef(table: $0.table, key: $0.key) })
            for _ in 0..<copies {
                network.send(
                    part, knowledge: knowledge, from: peer.index, to: device.index, at: time,
                    delay: delay / Int64(page + 1))
            }
        }
        result.messagesSent += 1
        result.messagesDuplicated += copies - 1
        log("sent \(changes.rows.count) rows \(peer.index) -> \(device.index) x\(copies) in \(delay) ms")
    }

    /// `changes` in `pages` parts, in order; only the whole changeset advances how far the receiver has read.
    static func split(_ changes: Changeset, into pages: Int) -> [Changeset] {
        guard pages > 1, changes.rows.count > 1 else { return [changes] }
        let size = (changes.rows.count + pages - 1) / pages
        return stride(from: 0, to: changes.rows.count, by: size).map { start in
            var page = changes
            page.rows = Array(changes.rows[start..<min(start + size, changes.rows.count)])
            page.upTo = page.since
            return page
        }
    }

    /// Delivers what is due by now: changesets in flight (mesh), or fetches that push notifications asked for (cloud).
    func deliverDue() throws -> Set<Int> {
        var touched: Set<Int> = []
        for message in network.due(by: time) {
            _ = try deliver(
                message.changeset, to: devices[message.to], from: "device \(message.from)",
                knowledge: message.knowledge)
            touched.insert(message.to)
        }
        for index in pendingFetches.sorted() where devices[index].online {
            try fetch(devices[index])
            touched.insert(index)
        }
        pendingFetches = []
        return touched
    }

    /// Heals every link, sets clocks right, lets time pass the last jump, and exchanges until nobody learns anything.
    func liveness() throws {
        heal()
        time += 3 * Simulation.jump
        for device in devices {
            device.jump = 0
            device.setTime(time)
        }
        for message in network.due(by: .max) {
            _ = try deliver(
                message.changeset, to: devices[message.to], from: "device \(message.from)",
                knowledge: message.knowledge)
        }
        switch topology {
        case .mesh:
            let report = try Replica.sync(devices.map(\.replica))
            result.rowsMerged += report.applied
            result.roundsToConverge = report.rounds
            // Every pair exchanged until nobody learned anything (it throws otherwise): each database
            // now holds the join of all, so each knows every write any of them knew.
            var everything = Knowledge()
            for device in devices { everything.learn(device.knowledge) }
            for device in devices { device.knowledge = everything }
        case .cloud:
            try quiesceThroughServer()
        }
        log("liveness phase took \(result.roundsToConverge) rounds")
        try collectWrites()
    }
}
