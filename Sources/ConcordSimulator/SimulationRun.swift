@_spi(Testing) @_spi(Simulation) import Concord
import Foundation

/// The state of one simulation while its plan runs: devices, network or
/// server, simulated time, the ledger of the apps' writes, and the result.
///
/// `execute()` runs the safety phase (the plan's steps, with every touched
/// device checked after each, fully as often as ``Scenario/Checks`` says),
/// then the liveness phase (heal, reconnect, exchange until quiet; for an app
/// with releases, check each device against the oracle's projection onto its
/// schema, upgrade the devices still behind and exchange again) and the final checks: convergence, the oracle, and no
/// silent loss. Topologies, the liveness phase and checks live in extensions
/// (`SimulationRun+Mesh.swift`, `+Cloud`, `+Liveness`, `+Checks`).
final class SimulationRun {
    let simulation: Simulation
    let plan: SimulationPlan
    let workload: Workload
    /// The schema of each release, for an app with more than one (`nil` otherwise).
    let versionSchemas: VersionSchemas?
    /// Where the devices' final database files are written, when someone will read them.
    let directory: URL?
    var devices: [SimulatedDevice] = []
    var network = SimulatedNetwork()
    var server = RecordServer()
    /// Devices whose push notification arrived, to fetch at the next step.
    var pendingFetches: Set<Int> = []
    var time = Simulation.start
    var ledger = AppLedger()
    /// The statements the acting device's app ran in this step that its database accepted.
    var written: WrittenStatements?
    /// The app's statements a copy found waiting in its capture log when it opened (a fork right after a
    /// write), until the copy's writes are collected: the copy folded them, crediting their counter changes
    /// to the original (see ``fork(_:unfolded:)``).
    var copiedWrites: WrittenStatements?
    var result: SimulationResult
    /// Each device's side of a mesh with a relay (see ``SimulationPlan/sides``); empty without one.
    var sides: [Int]
    var step = 0
    /// Draws every detail of disk faults (durabilities, power-loss kinds, torn and reordered writes),
    /// apart from the plan's choices, so plans and reproducers drawn before disks existed still replay.
    var diskGenerator: SeededGenerator
    /// The disk fault rates the seed drew from the scenario's ranges.
    let diskRates: DiskRates
    /// A power failure armed inside a device's next operations, and the steps left before it is forced.
    var armedCut: (device: Int, stepsLeft: Int)?
    /// An app write whose statement ran as the power failed: settled once the device relaunched.
    var pendingWrite: (device: Int, sql: String, before: TableSnapshot, physical: Int64)?
    /// The statements of a batch its database accepted so far, while the batch runs: a power failure
    /// between or inside them leaves these, and maybe the one it interrupted, to the relaunched app's fold.
    var batchInProgress: WrittenStatements?
    /// What the acting device's fold of a batch reported so far; a power failure may cut the fold after
    /// some of its transactions landed, whose writes the relaunched device's fold does not report again.
    var foldReport: [FoldedWrite] = []
    /// The writes of ``foldReport`` that landed before a power failure cut their fold, for the next one.
    var landedReport: [FoldedWrite] = []
    /// A changeset whose apply ran as the power failed, what its sender knew, and the dump before.
    var pendingApply: (device: Int, knowledge: Knowledge, before: String)?
    /// The foreign keys each release declares, read once for coverage (``observeApply(_:on:)``).
    var foreignKeysByVersion: [Int: [ForeignKey]] = [:]
    /// Per device, the rows applies reported parked and nothing has reported otherwise since, for coverage.
    var parkedByApply: [Int: Set<RowRef>] = [:]
    /// Per device, what its tables were before an upgrade that has not finished (``UpgradeBaseline``).
    var upgradeBaselines: [Int: UpgradeBaseline] = [:]
    private var trace = FNV1a()
    private var lines: [String] = []

    init(simulation: Simulation, plan: SimulationPlan, directory: URL?) throws {
        self.simulation = simulation
        self.plan = plan
        self.directory = directory
        workload = try simulation.scenario.workload.resolved().naming(plan.names)
        versionSchemas = workload.lastVersion > 1 ? try VersionSchemas(of: workload) : nil
        sides = simulation.scenario.topology == .mesh ? plan.sides ?? [] : []
        result = SimulationResult(seed: simulation.seed, scenario: simulation.scenario.name, steps: plan.steps.count)
        diskGenerator = SeededGenerator(seed: simulation.seed &* 0xD1B5_4A32_D192_ED03 &+ 0x5EED)
        diskRates = DiskRates.draw(from: simulation.scenario.faults, using: &diskGenerator)
        for index in 0..<simulation.scenario.devices {
            devices.append(
                try SimulatedDevice(
                    index: index, node: simulation.node(forDevice: index), durability: durability(ofDevice: index),
                    skew: plan.skews[index], drift: plan.drifts[index], time: time, workload: workload,
                    bugs: simulation.injectedBugs, foldBatch: foldBatch(ofDevice: index)))
            if !devices[index].durability.foreignKeys { log("device \(index)'s app leaves foreign keys off") }
            logQuirks(of: devices[index])
        }
    }

    var topology: Scenario.Topology { simulation.scenario.topology }

    /// Says in the trace what the device's app sets on the connection it shares with its replica.
    private func logQuirks(of device: SimulatedDevice) {
        let quirks = device.durability.quirks
        guard quirks != ConnectionQuirks() else { return }
        log("device \(device.index)'s app sets: \(quirks)")
    }

    func log(_ event: String) {
        trace.add("\(time) \(event)\n")
        if simulation.keepsTrace { lines.append("\(time) \(event)") }
    }

    /// Records the first failure; later ones are consequences.
    func fail(_ kind: SimulationResult.FailureKind, _ message: String) {
        guard result.failure == nil else { return }
        result.failure = .init(kind: kind, step: step < plan.steps.count ? step : nil, message: message)
        log("FAILED: \(result.failure!)")
    }

    func execute() throws -> SimulationResult {
        do {
            for (index, planned) in plan.steps.enumerated() {
                step = index
                time += planned.after
                for device in devices {
                    device.setTime(time)
                    if try device.act(inProcess: process(of: device, at: index)) == 1 {
                        result.coverage.record(.secondProcess)
                    }
                }
                try run(planned)
                try forceArmedCut()
                if result.failure != nil { return finish() }
            }
            step = plan.steps.count
            for device in devices { try device.act(inProcess: 0) }
            try forceArmedCut(now: true)
            try liveness()
            if result.failure == nil { try finalChecks() }
        } catch {
            fail(.error, "\(error)")
        }
        return finish()
    }

    /// Which of `device`'s processes syncs at step `index` (one in three steps its second, when it has
    /// one): drawn from the seed, the step and the device alone, so no other draw shifts.
    private func process(of device: SimulatedDevice, at index: Int) -> Int {
        var generator = SeededGenerator(
            seed: simulation.seed &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(index) &* 0x100 &+ UInt64(device.index))
        return generator.next() % 3 == 0 ? 1 : 0
    }

    /// Runs one planned step: deliveries due, the action, the writes it made, the checks; a power failure
    /// armed on a device may stop it midway, and is then settled (``settlePowerFailure(_:)``).
    private func run(_ planned: SimulationStep) throws {
        var touched: Set<Int> = []
        var accepted: WrittenStatements?
        var recorded = ledger.ledger.operations.count
        var performed = false
        let devicesBefore = devices.count
        do {
            touched = try deliverDue()
            let device = devices[planned.device % devices.count]
            touched.insert(device.index)
            performed = true
            try perform(planned.action, on: device)
            (accepted, recorded) = (written, ledger.ledger.operations.count)
            if let copied = copiedWrites { touched.insert(copied.device) }
            try collectWrites(only: touched)
        } catch {
            guard let failed = poweredOffDevice() else { throw error }
            // A fold the failure interrupted: the statement is recorded once the device relaunched.
            if let accepted, ledger.ledger.operations.count == recorded { written = accepted }
            try settlePowerFailure(failed)
            touched.insert(failed.index)
            // An upgrade or a fork the plan counts on, which a failure during the deliveries before it kept
            // from running, or a fork the failure cut (it opens the copy, which reads the original's disk):
            // the plan draws the device's later statements from the new release, and the new device's from
            // its original's (without the fork, they ran on another device, of another release; table-rebuild
            // seed 25000564 ran a release-3 statement on a release-1 device).
            let device = devices[planned.device % devices.count]
            switch planned.action {
            case .upgrade(let version) where !performed: try upgrade(device, to: version)
            case .fork, .forkAfterWrite, .forkAfterBatch:
                if devices.count == devicesBefore { try fork(device) }
            default: break
            }
        }
        let full = simulation.scenario.checks.isFull(step: step)
        for index in touched.sorted() where result.failure == nil {
            // A check folds what the app wrote, so the armed failure may land in it too.
            do { try check(devices[index], full: full) } catch {
                guard let failed = poweredOffDevice() else { throw error }
                try settlePowerFailure(failed)
                try check(failed)
            }
        }
    }

    /// Does one planned action on `device`.
    private func perform(_ action: SimulationStep.Action, on device: SimulatedDevice) throws {
        switch action {
        case .write(let sql):
            try write([sql], on: device)
        case .batch(let sql):
            try write(sql, on: device)
        case .pull(let from, let copies, let delay, let pages):
            try pull(device, from: devices[from % devices.count], copies: copies, delay: delay, pages: pages)
        case .upload(let acknowledged, let notified):
            try upload(device, acknowledged: acknowledged, notified: notified)
        case .fetch:
            try fetch(device)
        case .crash:
            try crash(device)
        case .cut(let to):
            if topology == .mesh {
                network.cutLink(from: device.index, to: to % devices.count)
                log("link \(device.index) -> \(to % devices.count) cut")
            } else {
                device.canUpload = false
                log("device \(device.index) cannot upload")
            }
            result.partitions += 1
        case .offline:
            device.online = false
            result.partitions += 1
            log("device \(device.index) went offline")
        case .heal:
            heal()
        case .jump:
            device.jump = device.jump == 0 ? Simulation.jump : 0
            device.setTime(time)
            result.clockJumps += device.jump == 0 ? 0 : 1
            log("device \(device.index) clock \(device.jump == 0 ? "set back" : "jumped ahead")")
        case .fork:
            try fork(device)
        case .forkAfterWrite(let sql):
            try forkAfter([sql], on: device)
        case .forkAfterBatch(let sql):
            try forkAfter(sql, on: device)
        case .idle:
            break
        case .upgrade(let version):
            try upgrade(device, to: version)
        case .hostile(let from, let attack, let seed):
            try receiveHostile(device, from: devices[from % devices.count], attack: attack, seed: seed)
        }
    }

    /// Runs the app's statements `sqls` on `device`, one after another, counting each as written or
    /// refused; the accepted ones are kept, with the tables as the app saw them before and after each,
    /// for ``collectWrites(only:)`` to record (several, with the capture log's end around each, as
    /// one fold stamps them all). A statement that fails as the power fails is settled after the relaunch
    /// (``pendingWrite``), with the batch's statements before it (``batchInProgress``).
    private func write(_ sqls: [String], on device: SimulatedDevice) throws {
        var accepted = WrittenStatements(device: device.index, statements: [])
        if sqls.count > 1 {
            accepted.logEnds = [try device.replica.captureLogEnd()]
            batchInProgress = accepted
        }
        for sql in sqls {
            guard let statement = try write(sql, on: device) else {
                if result.failure != nil { return }
                continue
            }
            accepted.statements.append(statement)
            if sqls.count > 1 {
                accepted.logEnds.append(try device.replica.captureLogEnd())
                batchInProgress = accepted
            }
        }
        batchInProgress = nil
        try finish(&accepted, on: device)
        if !accepted.statements.isEmpty { written = accepted }
    }

    /// Derives again what a batch's statements cascaded to, when its app leaves foreign keys off and
    /// one fold makes the cascades of all of them (``WrittenStatements/deriveCascadesOfOneFold(_:foreignKeys:)``).
    func finish(_ batch: inout WrittenStatements, on device: SimulatedDevice) throws {
        guard batch.statements.count > 1, !device.durability.foreignKeys else { return }
        batch.deriveCascadesOfOneFold(
            try device.replica.capturedRows(after: batch.logEnds[0]), foreignKeys: try device.foreignKeys())
    }

    /// Runs one app statement on `device`: the statement, when its database accepted it.
    private func write(_ sql: String, on device: SimulatedDevice) throws -> Statement? {
        let before = try device.snapshot(before: sql)
        let physical = device.clock.unixMilliseconds()
        if !(versionSchemas?.refused(under: device.version).isEmpty ?? true) {
            device.logStart = try device.replica.captureLogEnd()
        }
        pendingWrite = (device.index, sql, before, physical)
        do {
            try device.runAppStatement(sql)
        } catch {
            if device.disk.isPoweredOff { throw error }
            // Any error but a refusal means the simulator wrote SQL that does not run, and a run that counted
            // it as a refusal would explore less than it says.
            if let error = error as? SQLiteError, !Self.isRefusal(error) {
                fail(.error, "device \(device.index)'s app statement does not run: \(sql): \(error)")
                return nil
            }
            pendingWrite = nil
            result.rejectedWrites += 1
            log("device \(device.index) was refused: \(sql)")
            return nil
        }
        result.writes += 1
        log("device \(device.index) wrote: \(sql)")
        let statement = try device.statement(sql, before: before, physical: physical)
        pendingWrite = nil
        return statement
    }

    /// Whether `error` refuses an app's write rather than saying its SQL does not run: a constraint (or
    /// Concord, through one), or SQLite refusing, for a union column's guard, text that starts as an array
    /// but is no JSON (the guard cannot call `json_valid` where SQLite is older than 3.41).
    static func isRefusal(_ error: SQLiteError) -> Bool {
        error.code == 19
            || (Database.libraryVersionNumber < 3_041_000 && error.code == 1 && error.message == "malformed JSON")
    }

    /// Runs the app's statements `sqls` on `device`, then copies its file before Concord folds them.
    private func forkAfter(_ sqls: [String], on device: SimulatedDevice) throws {
        try write(sqls, on: device)
        guard result.failure == nil else { return }
        try fork(device, unfolded: written?.device == device.index ? written : nil)
    }

    /// Forks `device` into a new device whose disk holds a copy of its database file, made without
    /// Concord; the copy must take a node id of its own before it stamps anything.
    ///
    /// With `unfolded`, the app's statements just run on `device` and not folded yet: the copy is taken once
    /// they reached the disk (so the original cannot lose them to a power failure the copy survived), finds
    /// them waiting, and folds them at its first look; its collect records them as its own writes but for the
    /// counter changes, which it credits to the original (``AppLedger/record(_:touched:tables:standIns:node:origin:knowledge:credited:)``).
    private func fork(_ device: SimulatedDevice, unfolded: WrittenStatements? = nil) throws {
        if unfolded != nil { device.disk.writeBack() }
        let copy = try SimulatedDevice(
            forking: device, index: devices.count, node: simulation.node(forDevice: devices.count),
            durability: durability(ofDevice: devices.count), time: time, unfolded: unfolded != nil)
        guard copy.node != device.node else {
            fail(.safety, "device \(copy.index), a copy of device \(device.index)'s file, kept its node id")
            return
        }
        devices.append(copy)
        if !copy.durability.foreignKeys { log("device \(copy.index)'s app leaves foreign keys off") }
        logQuirks(of: copy)
        if !sides.isEmpty { sides.append(sides[device.index]) }
        result.forks += 1
        log("device \(device.index) forked into device \(copy.index)")
        if let unfolded {
            copiedWrites = WrittenStatements(
                device: copy.index, statements: unfolded.statements, logEnds: unfolded.logEnds)
            result.coverage.record(.copyUnfolded)
            log("device \(copy.index) found device \(device.index)'s write waiting, not folded")
        }
    }

    func heal() {
        network.heal()
        for device in devices {
            device.online = true
            device.canUpload = true
        }
        log("every link healed")
    }

    /// The tables `device`'s release refuses (``VersionSchemas/refused(under:)``).
    func refusedTables(of device: SimulatedDevice) -> Set<String> {
        versionSchemas?.refused(under: device.version) ?? []
    }

    /// Applies a changeset to `device`, which then knows what its sender knew of its rows (`knowledge`);
    /// one from a clock too far ahead is refused, teaches nothing, and is asked for again later. Returns the
    /// apply's report, or `nil` for such a refusal. `node`, when the transport knows which device sent it: a
    /// header naming another moves no read position (``Replica/apply(_:from:)``).
    @discardableResult
    func deliver(
        _ changeset: Changeset, to device: SimulatedDevice, from sender: String, node: NodeID? = nil,
        knowledge: Knowledge
    ) throws -> ApplyReport? {
        let conflicts = try countConflicts(changeset, on: device)
        let armed = armedCut?.device == device.index
        let dumpBefore = armed ? try device.replica.canonicalDump() : ""
        do {
            if !armed, device.durability.quirks.rollsBackApplies, rollsBack(on: device) {
                try applyRolledBack(changeset, to: device, from: node)
            }
            if armed { pendingApply = (device.index, knowledge, dumpBefore) }
            defer { if !device.disk.isPoweredOff { pendingApply = nil } }
            let report = try device.replica.apply(changeset, from: node)
            device.knowledge.learn(knowledge.leaving(refusedTables(of: device)))
            result.rowsMerged += report.applied
            for (merge, count) in conflicts { result.conflicts[merge, default: 0] += count }
            log("device \(device.index) applied from \(sender): \(report)")
            try observeApply(report, on: device)
            // A trigger of the app that deletes may have deleted rows while Concord merged: the next fold
            // stamps those deletes against the registers as this apply left them, and the ledger must record
            // them as of the same moment, before another apply teaches the device more of those rows.
            if written == nil, try !device.tablesTriggersDelete().isEmpty { try collectWrites(only: [device.index]) }
            return report
        } catch let refusal as ClockDriftError {
            result.driftRefusals += 1
            log("device \(device.index) refused from \(sender): \(refusal.drift) ms ahead")
            return nil
        }
    }

    /// Whether `device`'s app first applies this step's changeset in a transaction it rolls back (one in
    /// three steps, from the seed, the step and the device alone, so no other draw shifts).
    private func rollsBack(on device: SimulatedDevice) -> Bool {
        var generator = SeededGenerator(
            seed: simulation.seed &* 0xBF58_476D_1CE4_E5B9 &+ UInt64(step) &* 0x100 &+ UInt64(device.index))
        return generator.next() % 3 == 0
    }

    /// Applies `changeset` to `device` inside a transaction of the app's own, checks the result, and rolls
    /// it all back (``ConnectionQuirks/rollsBackApplies``); a drift refusal is the apply's after it.
    private func applyRolledBack(_ changeset: Changeset, to device: SimulatedDevice, from node: NodeID?) throws {
        struct AppRolledBack: Error {}
        do {
            try device.replica.database.transaction {
                _ = try device.replica.apply(changeset, from: node)
                _ = try device.replica.check()
                throw AppRolledBack()
            }
        } catch is AppRolledBack {
            result.coverage.record(.applyRolledBack)
        } catch is ClockDriftError {}
    }

    /// Columns where `changeset` and `device`'s registers hold different values under different stamps.
    ///
    /// Reads the device's registers table by table (in the order the changeset first names them),
    /// folding once per table rather than once per row.
    private func countConflicts(_ changeset: Changeset, on device: SimulatedDevice) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        let tables = Dictionary(uniqueKeysWithValues: device.replica.tables.map { ($0.name, $0) })
        let known = changeset.rows.filter { tables[$0.table] != nil }
        var names: [String] = []
        for row in known where !names.contains(row.table) { names.append(row.table) }
        for name in names {
            let table = tables[name]!
            let rows = known.filter { $0.table == name }
            for (row, local) in zip(rows, try device.replica.registers(of: name, keys: rows.map(\.key))) {
                guard let local else { continue }
                for (index, (ours, theirs)) in zip(local.columns, row.registers.columns).enumerated() {
                    guard let ours, let theirs, ours.stamp != theirs.stamp, ours.value != theirs.value else { continue }
                    counts[table.policy == .row ? "row" : table.merges[index].name, default: 0] += 1
                    if table.policy == .row { break }
                }
            }
        }
        return counts
    }

    private func finish() -> SimulationResult {
        recordCountedEvents()
        result.traceHash = trace.hex
        if simulation.keepsTrace { result.trace = lines }
        var dump = FNV1a()
        for device in devices { dump.add((try? device.replica.canonicalDump()) ?? "") }
        result.dumpHash = dump.hex
        result.databaseFilesHash = exportDatabaseFiles()
        return result
    }

    /// Checkpoints each device's database and hashes its file as its disk holds it (FNV-1a, in hex);
    /// with a ``directory``, also writes each to `device-N.sqlite` there, to read after the run.
    private func exportDatabaseFiles() -> String {
        var files = FNV1a()
        for device in devices {
            try? device.replica.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            let bytes = device.disk.copy(of: device.path) ?? []
            files.add(bytes)
            if let directory {
                try? Data(bytes).write(to: directory.appendingPathComponent("device-\(device.index).sqlite"))
            }
        }
        return files.hex
    }
}
