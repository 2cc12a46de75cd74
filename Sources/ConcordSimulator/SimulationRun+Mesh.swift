import Concord

/// Peer-to-peer exchange: a device asks a peer for what it has not read yet,
/// and the answer crosses a network that delays, duplicates and loses it.
/// Devices on the two sides of a relay never reach each other (see
/// ``SimulationPlan/sides``).
extension SimulationRun {
    func pull(_ device: SimulatedDevice, from peer: SimulatedDevice, copies: Int, delay: Int64, pages: Int) throws {
        guard peer !== device else { return }
        guard device.online, peer.online, linked(device.index, peer.index),
            network.canSend(from: peer.index, to: device.index)
        else {
            log("device \(device.index) cannot reach device \(peer.index)")
            return
        }
        let changes = try export(peer, since: device.replica.peerVersion(peer.node))
        guard !changes.rows.isEmpty else { return }
        guard copies > 0 else {
            result.messagesLost += 1
            log("lost \(changes.rows.count) rows \(peer.index) -> \(device.index)")
            return
        }
        for (page, part) in Self.split(changes, into: pages).enumerated() {
            let knowledge = peer.knowledge.about(part.rows.map { RowRef(table: $0.table, key: $0.key) })
            let form = network.nextForm(seed: simulation.seed)
            for _ in 0..<copies {
                try network.send(
                    part, as: form, knowledge: knowledge, from: peer.index, to: device.index, at: time,
                    delay: delay / Int64(page + 1))
            }
        }
        result.messagesSent += 1
        result.messagesDuplicated += copies - 1
        log("sent \(changes.rows.count) rows \(peer.index) -> \(device.index) x\(copies) in \(delay) ms")
    }

    /// Whether devices `a` and `b` may ever exchange directly: not when they sit on the two sides of a relay.
    func linked(_ a: Int, _ b: Int) -> Bool {
        guard a < sides.count, b < sides.count else { return true }
        return sides[a] == 0 || sides[b] == 0 || sides[a] == sides[b]
    }

    /// What `device` sends when it exports its changes since `version`: everything it holds, or, with
    /// ``InjectedBugs/dropUnknownColumnsOnRelay``, only the tables and columns of its own release.
    func export(_ device: SimulatedDevice, since version: Int64) throws -> Changeset {
        let changes = try device.replica.changes(since: version)
        guard simulation.injectedBugs.contains(.dropUnknownColumnsOnRelay), let versionSchemas else { return changes }
        return changes.restricted(to: versionSchemas[device.version].tables)
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
            // The connection was the sender's, as it was when it sent the message.
            _ = try deliver(
                try message.decoded(), to: devices[message.to], from: "device \(message.from)",
                node: message.sent.source, knowledge: message.knowledge)
            touched.insert(message.to)
        }
        for index in pendingFetches.sorted() where devices[index].online {
            try fetch(devices[index])
            touched.insert(index)
        }
        pendingFetches = []
        return touched
    }
}
