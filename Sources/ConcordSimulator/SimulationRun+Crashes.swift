@_spi(Testing) @_spi(Simulation) import Concord

/// The disk fault rates one seed draws, in percent, from the scenario's ranges (``Scenario/Faults``).
///
/// They come from the run's disk generator, not from the plan's choices, so that
/// plans and reproducers recorded before devices had disks replay unchanged.
struct DiskRates: Equatable {
    /// Percent of crashes that are power losses rather than process kills.
    var powerLoss = 0
    /// Percent chance, per file a power loss hits, that its last unsynced write is torn.
    var tornWrite = 0
    /// Percent chance, per file a power loss hits, that only some of its unsynced changes land.
    var reorder = 0
    /// Percent of crashes armed inside the device's next operations instead of between steps.
    var midOperation = 0
    /// Percent of crashes that restore the device's latest backup instead.
    var restore = 0

    /// Draws each rate from its range in `faults`, in a fixed order.
    static func draw(from faults: Scenario.Faults, using generator: inout SeededGenerator) -> DiskRates {
        func rate(_ range: [Int]) -> Int { Int.random(in: range[0]...range[1], using: &generator) }
        return DiskRates(
            powerLoss: rate(faults.powerLoss), tornWrite: rate(faults.tornWrite), reorder: rate(faults.reorder),
            midOperation: rate(faults.midOperation), restore: rate(faults.restore))
    }
}

/// Crashes on the devices' simulated disks: process kills, power losses between
/// steps, and power failures armed inside a device's next operations.
///
/// A power failure armed on a device (``SimulatedDisk/cutPower(afterOperations:)``)
/// fails the disk operation the seed picked among the next ones — inside an app
/// write, a changeset applied, a fold or an export, whichever runs first — and
/// the step stops there. It is then settled: the disk loses power (tearing and
/// reordering unsynced writes), the app relaunches from what the disk kept,
/// and the oracle learns what survived of the interrupted operation from the
/// database itself, since a commit whose sync failed may still have landed:
/// an app write survived when its device stamped rows of its own for it (they
/// are recorded with the tables as the relaunched app reads them), a changeset
/// when the device's canonical dump changed. A failure that has not fired after
/// a few steps is forced between steps.
extension SimulationRun {
    /// How many steps an armed power failure waits for its device to touch the disk.
    static let armedSteps = 4

    /// The durability device `index` opens its database with, drawn from the seed and the index alone.
    func durability(ofDevice index: Int) -> Durability {
        var generator = SeededGenerator(seed: simulation.seed &* 0xA076_1D64_78BD_642F &+ UInt64(index))
        var durability = Durability.draw(using: &generator)
        let rate = Durability.foreignKeysOffRate(simulation.scenario.faults.foreignKeysOff, seed: simulation.seed)
        durability.foreignKeys = Durability.foreignKeys(rate: rate, seed: simulation.seed, device: index)
        durability.bindsValues = Durability.bindsValues(seed: simulation.seed, device: index)
        durability.quirks = ConnectionQuirks.draw(
            seed: simulation.seed, device: index, shadows: workload.lastVersion == 1)
        return durability
    }

    /// How many logged writes device `index`'s replica folds at a time: one, a few, or the engine's
    /// default, drawn from the seed apart from the plan, so that folds cross batch boundaries (as a bulk
    /// import's do) in a run of a few writes per step. A fork keeps its original's.
    func foldBatch(ofDevice index: Int) -> Int {
        var generator = SeededGenerator(seed: simulation.seed &* 0x94D0_49BB_1331_11EB &+ UInt64(index))
        return [1, 2, 3, 5, Replica.foldBatch][Int.random(in: 0..<5, using: &generator)]
    }

    /// A crash step: arms a power failure inside the device's next operations, or crashes it now.
    func crash(_ device: SimulatedDevice) throws {
        if armedCut?.device == device.index { return try settlePowerFailure(device) }
        if let backup = device.backup, percent(diskRates.restore), device.waiting.isEmpty,
            everyWriteReachedAnother(device, since: backup)
        {
            return try restore(backup, on: device)
        }
        guard armedCut == nil, percent(diskRates.midOperation) else { return try crashNow(device) }
        let operations = Int.random(in: 0...40, using: &diskGenerator)
        device.disk.cutPower(afterOperations: operations)
        armedCut = (device.index, Self.armedSteps)
        log("device \(device.index) will lose power after \(operations) disk operations")
    }

    /// A crash between operations: a process kill or a power loss, then the relaunch.
    private func crashNow(_ device: SimulatedDevice) throws {
        if percent(diskRates.powerLoss) {
            cutPower(of: device)
        } else {
            device.disk.killProcesses()
            result.coverage.record(.processKill)
            log("device \(device.index) was killed")
        }
        try relaunch(device)
        // A backup holding writes that wait for a refused table is not taken: restoring it would fold them again.
        if percent(50), device.waiting.isEmpty {
            device.backup = device.takeBackup(operations: ledger.ledger.operations.count)
            log("device \(device.index) was backed up")
        }
    }

    /// Whether every write `device` holds now and did not hold at `backup` — its app's own since then,
    /// and any it merged since — is held by another device, so that restoring the backup loses none for
    /// good (the device gets them back from its peers).
    ///
    /// (Looking only at the app's own writes let a device restore over the one copy of a peer's write
    /// that the peer itself had just lost to a restore; the oracle then expected it.)
    private func everyWriteReachedAnother(_ device: SimulatedDevice, since backup: SimulatedDevice.Backup) -> Bool {
        var gained = Set<Int>()
        for ids in device.knowledge.rows.values { gained.formUnion(ids) }
        for ids in backup.knowledge.rows.values { gained.subtract(ids) }
        guard !gained.isEmpty else { return true }
        var held = Set<Int>()
        for other in devices where other !== device { for ids in other.knowledge.rows.values { held.formUnion(ids) } }
        return gained.isSubset(of: held)
    }

    /// Restores `device`'s latest backup: its database goes back in time, and its replica must see
    /// that its file is a copy and take a new node id before it stamps anything.
    private func restore(_ backup: SimulatedDevice.Backup, on device: SimulatedDevice) throws {
        let node = device.node
        let release = try device.restore(backup)
        // An upgrade a crash interrupted is judged from the restored file now, not from the one it replaced.
        upgradeBaselines[device.index] = nil
        result.restores += 1
        log("device \(device.index) restored its backup and relaunched")
        if device.node == node {
            fail(.safety, "device \(device.index) kept its node id after a backup was restored over its file")
        }
        // The app, still the newer release, migrates the restored file again; a table it rebuilds is
        // recorded as the device's writes, as at the first upgrade.
        try upgrade(device, to: release)
        if topology == .cloud { try fetch(device) }
    }

    /// The device whose armed power failure fired, if one did.
    func poweredOffDevice() -> SimulatedDevice? {
        guard let armedCut, devices[armedCut.device].disk.isPoweredOff else { return nil }
        return devices[armedCut.device]
    }

    /// Ends a step: an armed failure that fired, or waited its last step (or `now`, before liveness), crashes.
    func forceArmedCut(now: Bool = false) throws {
        guard let armed = armedCut, result.failure == nil else { return }
        let device = devices[armed.device]
        if device.disk.isPoweredOff || now || armed.stepsLeft <= 1 {
            try settlePowerFailure(device)
            try check(device)
        } else {
            armedCut = (armed.device, armed.stepsLeft - 1)
        }
    }

    /// Settles an armed power failure on `device`: the power loss, the relaunch, and what of the
    /// interrupted operation survived.
    func settlePowerFailure(_ device: SimulatedDevice) throws {
        let midOperation = device.disk.isPoweredOff
        armedCut = nil
        cutPower(of: device)
        if midOperation {
            result.midOperationCrashes += 1
            result.coverage.record(
                pendingApply?.device == device.index
                    ? .crashMidApply : pendingWrite?.device == device.index ? .crashMidWrite : .crashMidFoldOrExport)
        }
        try relaunch(device, fetching: false)
        try settleInterruptedApply(on: device)
        try settleInterruptedWrite(on: device)
        // Only then does the relaunched app fetch (cloud): the apply folds the log and may park the
        // interrupted write's rows (a parent it names is missing), and the statement must be read from
        // the tables as the write left them, not as the fetch left them; nor may the fetch pass for the
        // interrupted apply's landing.
        if topology == .cloud { try fetch(device) }
    }

    /// A power loss on `device`'s disk, tearing and reordering unsynced writes at the seed's rates.
    /// Torn and reordered files are told from the disk's images (``PowerLossDamage``), for coverage.
    private func cutPower(of device: SimulatedDevice) {
        let unsynced = device.disk.hasUnsyncedChanges
        let before = unsynced ? (durable: device.disk.durableImage(), current: device.disk.currentImage()) : nil
        if unsynced { result.powerLossesWithUnsyncedWrites += 1 }
        device.disk.crash(
            using: &diskGenerator, tornWriteRate: Double(diskRates.tornWrite) / 100,
            reorderRate: Double(diskRates.reorder) / 100)
        if let before {
            let damage = PowerLossDamage(
                durable: before.durable, current: before.current, after: device.disk.durableImage())
            result.coverage.record(.tornWrite, times: damage.tornFiles)
            result.coverage.record(.reorderedWrite, times: damage.reorderedFiles)
        }
        result.powerLosses += 1
        log("device \(device.index) lost power")
    }

    /// The app's relaunch on what the disk kept; in the cloud, it then fetches unless `fetching` is false
    /// (the caller fetches once it has read what survived of an interrupted operation).
    private func relaunch(_ device: SimulatedDevice, fetching: Bool = true) throws {
        let (node, stamped) = (device.node, device.newestOwnStamp != nil)
        try device.relaunch()
        result.crashes += 1
        log("device \(device.index) relaunched")
        // A copy's new node id is adopted when it opens, before the app sets `synchronous`: under DELETE
        // + FULL a power loss may roll that adoption back, and the relaunch adopts another. Harmless
        // while the lost id stamped nothing; afterwards, a new id means the replica lost its history.
        if device.node != node {
            if stamped {
                fail(.safety, "device \(device.index) took a new node id on relaunch, though its file was not copied")
            }
            log("device \(device.index) writes under another new node id: its first was lost unused")
        }
        // An upgrade the power failure interrupted may have left some of its migrations in the file: the app
        // (already the new release) runs its migrator again at launch, before it syncs or writes, so the
        // device is on the release its file has been through, not on the one before.
        // One that finished before the failure may not have recorded the tables it rebuilt yet.
        if let target = device.upgrading { try upgrade(device, to: target) } else { try recordRebuilds(on: device) }
        // Writes that waited, whose recording the failure cut, once their table syncs again.
        try recordWaiting(on: device, afterCut: true)
        if fetching, topology == .cloud { try fetch(device) }
    }

    /// A changeset whose apply the power failure interrupted is known to the device when it landed.
    private func settleInterruptedApply(on device: SimulatedDevice) throws {
        guard let pending = pendingApply, pending.device == device.index else { return }
        pendingApply = nil
        let landed = try device.replica.canonicalDump() != pending.before
        if landed { device.knowledge.learn(pending.knowledge.leaving(refusedTables(of: device))) }
        log("device \(device.index): the changeset it was applying \(landed ? "landed" : "was lost")")
    }

    /// Records the app writes of `device` that survived: the statement the power failure interrupted
    /// (its tables read again after the relaunch) after the statements of its batch that ran before it
    /// (each committed, so each kept), or those whose fold it interrupted.
    ///
    /// A fold of a batch may have been cut after some of its transactions landed: their writes are
    /// stamped and gone from the capture log, and the relaunched device's fold reports only the rest,
    /// so the report of the cut fold is kept for the writes whose log positions are gone. The same holds for
    /// one statement whose replace deleted rows (``Statement/deletesReplacedRows``), folded in more than one
    /// transaction: without the landed delete's stamp, the ledger took the replace for an update.
    private func settleInterruptedWrite(on device: SimulatedDevice) throws {
        var batch = batchInProgress?.device == device.index ? batchInProgress : nil
        batchInProgress = nil
        if let pending = pendingWrite, pending.device == device.index {
            pendingWrite = nil
            let statement = try device.statement(pending.sql, before: pending.before, physical: pending.physical)
            if batch == nil {
                written = WrittenStatements(device: device.index, statements: [statement])
            } else {
                batch?.statements.append(statement)
                batch?.logEnds.append(try device.replica.captureLogEnd())
            }
        }
        if var batch, !batch.statements.isEmpty {
            result.coverage.record(.crashMidBatch)
            try finish(&batch, on: device)
            written = batch
        }
        if let written, written.device == device.index, written.needsFoldReport {
            let logged = Set(try device.replica.capturedRows(after: written.logEnds.first ?? 0).map(\.seq))
            landedReport = foldReport.filter { !logged.contains($0.seq) }
        }
        foldReport = []
        let operations = ledger.ledger.operations.count
        try collectWrites()
        let survived = ledger.ledger.operations.count > operations
        log("device \(device.index): its app's last write \(survived ? "survived" : "left nothing new to record")")
    }

    /// True with probability `rate` percent, drawn from the disk generator.
    private func percent(_ rate: Int) -> Bool { Int.random(in: 0..<100, using: &diskGenerator) < rate }
}
