@_spi(Simulation) import Concord
import ConcordTesting
import Foundation

/// Hostile peers: a device receives a changeset that lies (see ``HostileAttack``).
///
/// What the receiver must do decides where the changeset goes:
///
/// - A changeset whose rows are genuine (``HostileAttack/forgedSource``: only
///   the source lies) is applied to the receiver itself, as any message is:
///   the writes it carries are in the app ledger, so the oracle and the
///   convergence check judge what the receiver made of it.
/// - Any other is decoded first; bytes the decoder refuses never reach a
///   database. One that decodes is tried on a scratch copy of the receiver.
///   If the copy refuses it, the receiver gets it too and must refuse it
///   with its file byte-identical, then go on syncing. If the copy accepts
///   it, the copy must stay consistent, and the receiver is spared: content
///   no app wrote would make the oracle (fed by the app ledger) wrong, not
///   the engine. So forged content is checked for never crashing anyone and
///   for being refused cleanly, and, for a reused stamp, for settling the tie
///   alike everywhere: two more copies get rival contents under that stamp,
///   read each other's changes, and must end identical, the tie settled on the
///   later value in SQLite's total order.
extension SimulationRun {
    /// `device` receives `attack`, forged from what `peer` holds, drawn from `seed`.
    func receiveHostile(_ device: SimulatedDevice, from peer: SimulatedDevice, attack: HostileAttack, seed: UInt64)
        throws
    {
        guard peer !== device, device.online else { return }
        var source = ChoiceSource(seed: seed)
        let forger = HostilePeer(
            genuine: try export(peer, since: 0), nodes: devices.map(\.node), receiver: device.node,
            versions: try devices.map { try $0.replica.version },
            now: device.clock.unixMilliseconds(), maxDrift: device.configuration.maxDrift)
        let forgery = try forger.forge(attack, as: network.nextForm(seed: simulation.seed), using: &source)
        let changeset: Changeset
        do {
            changeset = try Changeset.decode(anyFormat: forgery.bytes)
        } catch {
            if let problem = forgery.refusal?.problem(with: error) {
                return fail(.safety, "device \(device.index) got a hostile changeset (\(forgery.what)): \(problem)")
            }
            return refused(device, forgery, "by the decoder: \(error)")
        }
        if let refusal = forgery.refusal {
            return fail(
                .safety,
                "device \(device.index) decoded a hostile changeset (\(forgery.what)) it must refuse \(refusal)")
        }
        if forgery.genuineRows {
            let knowledge = peer.knowledge.about(changeset.rows.map { RowRef(table: $0.table, key: $0.key) })
            try applyHostile(changeset, forgery, from: peer, to: device, knowledge: knowledge, mustRefuse: false)
        } else if case .refused(let error) = try onCopy(changeset, forgery, of: device) {
            // The copy is another device (a node id of its own): a refusal of the receiver's own stamps as too
            // far ahead of its clock is the copy's alone, since the receiver does not hold its own stamps to the
            // limit. The copy cannot tell what the receiver does with the forgery, so the receiver is spared,
            // as when the copy accepts one.
            guard (error as? ClockDriftError)?.node != device.node else {
                return refused(device, forgery, "by a copy, for the receiver's own stamps: the receiver is spared")
            }
            try applyHostile(changeset, forgery, from: peer, to: device, knowledge: Knowledge(), mustRefuse: true)
        } else if attack == .reusedStamp {
            try checkTiesSettleAlike(changeset, forgery, of: device)
        }
    }

    /// Applies a hostile changeset to `device`; a refusal must leave its files byte-identical, and one a
    /// copy of it refused (`mustRefuse`) must be refused.
    ///
    /// A power failure armed on `device` may fire inside the apply: that is a crash, not a refusal (the
    /// disk wrote what it had been given up to then), so it is settled as for any changeset delivered
    /// (``deliver(_:to:from:node:knowledge:)``): the step stops, the device relaunches, and the changeset
    /// counts as applied when its canonical dump changed.
    private func applyHostile(
        _ changeset: Changeset, _ forgery: HostilePeer.Forgery, from peer: SimulatedDevice, to device: SimulatedDevice,
        knowledge: Knowledge, mustRefuse: Bool
    ) throws {
        if armedCut?.device == device.index {
            pendingApply = (device.index, knowledge, try device.replica.canonicalDump())
        }
        defer { if !device.disk.isPoweredOff { pendingApply = nil } }
        let before = try fileBytes(of: device)
        do {
            // The connection was the peer's, whatever the header says (``Replica/apply(_:from:)``).
            let report = try device.replica.apply(changeset, from: peer.node)
            device.knowledge.learn(knowledge)
            result.rowsMerged += report.applied
            result.hostileAccepted += 1
            log("device \(device.index) accepted a hostile changeset (\(forgery.what)): \(report)")
            if mustRefuse {
                fail(
                    .safety,
                    "device \(device.index) accepted a hostile changeset a copy of it refused (\(forgery.what))")
            }
        } catch {
            if device.disk.isPoweredOff { throw error }
            refused(device, forgery, "\(error)")
            guard try fileBytes(of: device) == before else {
                return fail(
                    .safety,
                    "device \(device.index) refused a hostile changeset (\(forgery.what)) "
                        + "but its database file changed")
            }
        }
    }

    /// Tries `changeset` on a scratch copy of `device`; `true` when the copy accepted it (and stayed consistent).
    /// What a scratch copy of `device` made of a forged changeset.
    private enum CopyVerdict {
        case accepted
        case refused(any Error)
    }

    private func onCopy(_ changeset: Changeset, _ forgery: HostilePeer.Forgery, of device: SimulatedDevice)
        throws -> CopyVerdict
    {
        let copy = try scratchCopy(of: device, node: 0xEE)
        let report: ApplyReport
        do {
            report = try copy.apply(changeset)
        } catch {
            return .refused(error)
        }
        result.hostileAccepted += 1
        log("a copy of device \(device.index) accepted a hostile changeset (\(forgery.what)): \(report)")
        let check = try copy.check()
        if !check.isConsistent {
            fail(
                .safety,
                "a copy of device \(device.index) accepted a hostile changeset (\(forgery.what)) "
                    + "and became inconsistent: \(check)")
        } else if let problem = passOnProblem(of: copy) {
            fail(
                .safety,
                "a copy of device \(device.index) accepted a hostile changeset (\(forgery.what)) "
                    + "and cannot pass its changes on: \(problem)")
        }
        return .accepted
    }

    /// Why `replica` cannot send what it holds, or `nil`: its whole export must read back as sent in
    /// both forms. What a replica accepted it passes on to every peer, so content it took in but cannot
    /// write out in a form they read would stop their syncing, not its own.
    private func passOnProblem(of replica: Replica) -> String? {
        do {
            let changes = try replica.changes(since: 0)
            for form in ChangesetMutator.Format.allCases {
                _ = try Wire.decode(try Wire.encode(changes, as: form), as: form, expecting: changes)
            }
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Two copies of `device` each get another content under the one stamp `changeset` reuses, then
    /// read each other's changes: the tie must settle the same way on both, whichever arrived first, and
    /// on the later value in SQLite's total order.
    ///
    /// Why: the oracle cannot judge forged content (no app wrote it), so a tie-break that prefers
    /// whichever value arrived last would pass everywhere else; two rival contents in opposite orders
    /// make it diverge. A tie-break that turned the other way would still agree everywhere, so the
    /// winner is derived here too, from the contents alone.
    private func checkTiesSettleAlike(
        _ changeset: Changeset, _ forgery: HostilePeer.Forgery, of device: SimulatedDevice
    )
        throws
    {
        guard var row = changeset.rows.first,
            let index = row.registers.columns.indices.last(where: { row.registers.columns[$0] != nil })
        else { return }
        row.registers.columns[index]!.value = HostilePeer.rival(of: row.registers.columns[index]!.value)
        var rival = changeset
        rival.rows = [row]
        let (first, second) = (try scratchCopy(of: device, node: 0xEE), try scratchCopy(of: device, node: 0xED))
        let forged = changeset.rows[0].registers.columns[index]!
        let held = try tiedRegister(forged.stamp, column: index, of: row, in: changeset, on: first)
        do {
            _ = try first.apply(changeset)
            _ = try second.apply(rival)
            // Both export before either reads, so each meets the other's content as the newcomer.
            let (fromFirst, fromSecond) = (try first.changes(since: 0), try second.changes(since: 0))
            _ = try first.apply(fromSecond)
            _ = try second.apply(fromFirst)
        } catch {
            return log("rival forgeries of one stamp on copies of device \(device.index): not compared (\(error))")
        }
        let (a, b) = (try first.canonicalDump(), try second.canonicalDump())
        if a != b {
            return fail(
                .convergence,
                "two copies of device \(device.index) given rival contents under one reused stamp "
                    + "(\(forgery.what)) hold different states after reading each other:\n"
                    + firstDifference(a, b, labels: ("forged copy", "rival copy")))
        }
        // Agreeing is not enough: the tie goes to the later value in SQLite's total order, among the two
        // forged ones and what the device held under the same stamp.
        guard let settled = try tiedRegister(forged.stamp, column: index, of: row, in: changeset, on: first) else {
            return
        }
        let contents = [forged.value, row.registers.columns[index]!.value] + (held.map { [$0.value] } ?? [])
        let later = contents.max { SQLiteValue.totallyOrdered($0, before: $1) }!
        if settled.value != later {
            fail(
                .oracle,
                "two copies of device \(device.index) given rival contents under one reused stamp "
                    + "(\(forgery.what)) settled the tie on \(settled.value), not on the later value \(later)")
        }
    }

    /// The register `replica` holds for column `index` of `row` (numbered as in `changeset`) when its stamp
    /// is `stamp`, and the tie rule applies to it: a last-writer-wins column, or any column of a row-policy
    /// row (two contents of one row-policy write that differ in one column compare by that column). `nil`
    /// for a value merge (which joins tied values rather than pick one), and once a newer write replaced both.
    private func tiedRegister(
        _ stamp: Stamp, column index: Int, of row: RowChange, in changeset: Changeset, on replica: Replica
    ) throws -> ColumnRegister? {
        guard let table = changeset.tables.first(where: { $0.name == row.table }),
            table.policy == .row || table.merges[index] == .lww,
            let local = replica.tables.first(where: { $0.name == row.table })?.columns.firstIndex(
                of: table.columns[index]),
            let register = try replica.registers(of: row.table, key: row.key)?.columns[local],
            register.stamp == stamp
        else { return nil }
        return register
    }

    /// A replica on a disk of its own, made from `device`'s files as they are now (its write-ahead log
    /// too), so nothing of the device's own disk changes; it takes the node id whose bytes are all `node`,
    /// which no device has (nor the record server).
    private func scratchCopy(of device: SimulatedDevice, node: UInt8) throws -> Replica {
        let scratch = SimulatedDisk(name: "hostile-scratch")
        for suffix in ["", "-wal"] {
            if let bytes = device.disk.copy(of: device.path + suffix) {
                scratch.createFile(atPath: device.path + suffix, contents: bytes)
            }
        }
        var configuration = device.configuration
        configuration.disk = scratch
        configuration.makeNodeID = { NodeID(bytes: Array(repeating: node, count: NodeID.byteCount))! }
        return try Replica(path: device.path, configuration: configuration)
    }

    /// Counts and logs a refusal.
    private func refused(_ device: SimulatedDevice, _ forgery: HostilePeer.Forgery, _ reason: String) {
        result.hostileRefused += 1
        log("device \(device.index) refused a hostile \(forgery.form.rawValue) changeset (\(forgery.what)) \(reason)")
    }

    /// The bytes of `device`'s database file and its write-ahead log, if any, as its disk holds them now.
    private func fileBytes(of device: SimulatedDevice) throws -> [[UInt8]] {
        ["", "-wal"].compactMap { device.disk.copy(of: device.path + $0) }
    }
}
