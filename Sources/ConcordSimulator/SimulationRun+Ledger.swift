@_spi(Simulation) import Concord

/// Recording the apps' writes in the ledger, from what each device's fold stamped.
extension SimulationRun {
    /// Records the acting device's accepted statements in the ledger, one operation per row each stamped;
    /// any other device that stamped writes of its own without its app writing has captured a merge.
    ///
    /// `only` limits the look to the devices a step touched (its actor and those it delivered to):
    /// reading a device's changes folds its log and exports every table, the costliest part of a step,
    /// and a device nothing ran on has stamped nothing. Its changes are read the next time it is touched.
    /// Several statements folded together are told apart by the fold's report (``WrittenStatements``).
    func collectWrites(only: Set<Int>? = nil) throws {
        let written = self.written
        self.written = nil
        for device in devices where only?.contains(device.index) ?? true {
            var mine = written?.device == device.index ? written : nil
            // A copy's first collect: the statements its original's app ran, which it folds now.
            let credited = mine == nil && copiedWrites?.device == device.index
            if credited { (mine, copiedWrites) = (copiedWrites, nil) }
            if let statements = mine?.statements, try holdsBack(statements, on: device, credited: credited) {
                mine = nil
            }
            if let mine, mine.needsFoldReport {
                foldReport = []
                device.replica.foldObserver = { [unowned self] in self.foldReport.append($0) }
            }
            defer { device.replica.foldObserver = nil }
            var touched = try OwnWrite.collect(
                from: device.replica, node: device.node, newest: &device.newestOwnStamp,
                version: &device.ledgerVersion)
            let lost = try recordTriggerDeletes(&touched, besides: mine, on: device)
            let deletedAfter = deletesAfterTheAppsWrites(&touched, besides: mine)
            if result.failure != nil { return }
            guard let mine else {
                guard touched.isEmpty else {
                    return fail(
                        .ownStamps,
                        "device \(device.index) stamped \(touched.count) rows as its own writes though its app "
                            + "wrote nothing (first: \(touched[0].row))")
                }
                continue
            }
            let parts: [[OwnWrite]]
            do {
                parts = try mine.split(
                    (landedReport + foldReport).filter { !lost.contains($0.row) && deletedAfter[$0.row] != $0.stamp },
                    stamped: touched)
                (landedReport, foldReport) = ([], [])
            } catch {
                return fail(
                    .safety,
                    "device \(device.index)'s app ran \(mine.statements.count) statements before one fold: "
                        + error.message)
            }
            for (index, (statement, touched)) in zip(mine.statements, parts).enumerated() {
                let credited = credited || (mine.credited.indices.contains(index) && mine.credited[index])
                // Rows another statement of the fold deleted, or a later one wrote (see `firstCascadeUnstamped`).
                let leftToOthers = Set(
                    parts.indices.filter { $0 != index }.flatMap { other in
                        let (otherStatement, later) = (mine.statements[other], other > index)
                        return parts[other].map(\.row).filter { later || otherStatement.kind(of: $0) == .delete }
                    })
                try record(statement, touched: touched, on: device, credited: credited, leftToOthers: leftToOthers)
                if result.failure != nil { return }
            }
            for (row, stamp) in deletedAfter.sorted(by: { $0.value < $1.value }) {
                ledger.recordDelete(
                    row, stamp: stamp, node: device.node, origin: .init(step: step, device: device.index),
                    knowledge: &device.knowledge)
            }
            if !deletedAfter.isEmpty { result.coverage.record(.triggerDeleteOnMerge, times: deletedAfter.count) }
        }
    }

    /// Takes out of `touched` the deletes the fold made, through an app trigger, of rows the app's statements
    /// of `mine` wrote and left in their tables, and returns each row's delete stamp, to record after the
    /// statements.
    ///
    /// Why: a fold that shows a row may fire the app's triggers into deleting another (showing a subtask
    /// reopens its reminder; the reminder's done state, put back, clears its subtasks), and it stamps that
    /// delete as this device's at once (``Replica/foldLocalWrites()``). When the app's statements of the same
    /// batch wrote the deleted row, its registers hold both: the statement's write in its columns and the
    /// delete in its liveness. The statement is recorded with its own stamps, and the delete after it.
    private func deletesAfterTheAppsWrites(
        _ touched: inout [OwnWrite], besides mine: WrittenStatements?
    ) -> [RowRef: Stamp] {
        guard let statements = mine?.statements else { return [:] }
        var deletes: [RowRef: Stamp] = [:]
        for (index, write) in touched.enumerated() where write.deleted {
            let row = write.row
            guard let delete = write.livenessStamp,
                let last = statements.last(where: { $0.before[row] != $0.after[row] }), last.after[row] != nil,
                !statements.contains(where: { $0.cascaded.contains(row) })
            else { continue }
            let stamps = write.stamps.filter { $0 != delete }
            guard let newest = stamps.last else { continue }
            let inserted = statements.contains { $0.before[row] == nil && $0.after[row] != nil }
            touched[index] = OwnWrite(
                row: row, stamp: newest, stamps: stamps, columnStamps: write.columnStamps,
                livenessStamp: inserted ? stamps.first : nil)
            deletes[row] = delete
        }
        return deletes
    }

    /// Holds back the app's statement when it wrote a table its device's release refuses: its writes wait in
    /// the capture log (``WaitingWrite``); returns whether it did.
    private func holdsBack(_ statements: [Statement], on device: SimulatedDevice, credited: Bool) throws -> Bool {
        let refused = versionSchemas?.refused(under: device.version) ?? []
        guard !refused.isEmpty, statements.count == 1, let statement = statements.first,
            let table = statement.table, refused.contains(where: { SQLiteName.same($0, table) })
        else { return false }
        let end = try device.replica.captureLogEnd()
        // A statement that changed nothing logged nothing, and waits for nothing.
        if end > device.logStart {
            device.waiting.append(
                WaitingWrite(statement: statement, start: device.logStart, end: end, credited: credited))
        }
        return true
    }

    /// Records the statements that waited for a table `device`'s release syncs again, as its fold stamps
    /// them; a power failure that cuts the fold leaves them waiting, for the relaunch to record.
    func recordWaiting(on device: SimulatedDevice, afterCut: Bool = false) throws {
        let refused = versionSchemas?.refused(under: device.version) ?? []
        guard let first = device.waiting.first, device.upgrading == nil, result.failure == nil,
            !device.waiting.contains(where: { write in
                refused.contains { SQLiteName.same($0, write.statement.table ?? "") }
            })
        else { return }
        guard written == nil else {
            return fail(.error, "device \(device.index)'s writes that waited and another write were recorded at once")
        }
        let waiting = device.waiting
        written = WrittenStatements(
            device: device.index, statements: waiting.map(\.statement), logEnds: [first.start] + waiting.map(\.end),
            credited: waiting.map(\.credited))
        if afterCut {
            // Writes a cut fold stamped are gone from the log: the cut fold's report has them.
            let logged = Set(try device.replica.capturedRows(after: first.start).map(\.seq))
            landedReport = foldReport.filter { !logged.contains($0.seq) }
        }
        foldReport = []
        try collectWrites(only: [device.index])
        device.waiting = []
        result.coverage.record(.refusedWriteFolded)
        if waiting.contains(where: \.credited) { result.coverage.record(.copiedRefusedWrite) }
        log("device \(device.index) folded \(waiting.count) write(s) that waited while their table was refused")
    }

    /// Takes out of `touched` the rows a trigger of the app deleted while Concord merged, and records each as
    /// the device's delete; returns them.
    ///
    /// Why: SQLite cannot leave a trigger's delete out of a merge (an update or insert it can), so Concord
    /// records it at the next fold as made here (``Replica/logRowsLostUncaptured()``). Such a row is one
    /// the registers say the device deleted, which no statement of `mine` saw (it was gone before the
    /// first); its table must be one an app trigger deletes from, or the engine deleted a row nothing asked
    /// it to, which fails the run. The ledger gets a delete by the device of what it knew of the row, and
    /// the model derives the rest, as for any delete.
    private func recordTriggerDeletes(
        _ touched: inout [OwnWrite], besides mine: WrittenStatements?, on device: SimulatedDevice
    ) throws -> Set<RowRef> {
        let seen = { (row: RowRef) in
            mine?.statements.contains { $0.before[row] != nil || $0.after[row] != nil || $0.cascaded.contains(row) }
                ?? false
        }
        let lost = touched.filter { $0.deleted && !seen($0.row) }
        guard !lost.isEmpty else { return [] }
        let deletable = try device.tablesTriggersDelete()
        if let stray = lost.first(where: { !deletable.contains($0.row.table) }) {
            fail(
                .ownStamps,
                "device \(device.index) stamped a delete of \(stray.row) as its own, which neither its app's "
                    + "statements nor a trigger of the app deleting from \(stray.row.table) made")
            return []
        }
        for write in lost {
            ledger.recordDelete(
                write.row, stamp: write.livenessStamp ?? write.stamp, node: device.node,
                origin: .init(step: step, device: device.index), knowledge: &device.knowledge)
        }
        result.coverage.record(.triggerDeleteOnMerge, times: lost.count)
        let rows = Set(lost.map(\.row))
        touched.removeAll { rows.contains($0.row) }
        return rows
    }

    /// Records one accepted statement of `device`'s app, whose writes stamped `touched`; `credited` when
    /// `device` is a copy that folded its original's statement (its counter changes are the original's);
    /// `leftToOthers`, the rows the other statements of the same fold deleted or a later one wrote.
    private func record(
        _ statement: Statement, touched: [OwnWrite], on device: SimulatedDevice, credited: Bool = false,
        leftToOthers: Set<RowRef> = []
    ) throws {
        if let missed = statement.firstCascadeUnstamped(in: touched, leftToOthers: leftToOthers) {
            return fail(
                .oracle,
                "device \(device.index)'s app deleted rows with foreign keys off (\(statement.sql)): "
                    + "\(missed) showed through an ON DELETE CASCADE key to one of them, so Concord must delete "
                    + "it as this device's write, but stamped nothing on it")
        }
        guard !touched.isEmpty else { return }
        // A write dated further ahead of the fold's clock than peers accept is stamped at the fold's clock:
        // its clock ran fast (see `FoldSession.stampTime(of:)`); the fold ran at the device's time now.
        let now = device.clock.unixMilliseconds()
        if let written = statement.physical,
            case (let ahead, let overflow) = written.subtractingReportingOverflow(now),
            case let physical = written > now && (overflow || ahead > device.replica.configuration.maxDrift)
                ? now : written,
            let early = touched.first(where: { Int64($0.stamp.hlc.milliseconds) < min(max(physical, 0), 1 << 47 - 1) })
        {
            return fail(
                .safety,
                "device \(device.index) stamped \(early.row) at \(early.stamp.hlc.milliseconds) ms, before its clock's "
                    + "reading of \(physical) ms when its app wrote it: a stamp is never older than its write")
        }
        if let look = statement.lastLook,
            let late = touched.first(where: { $0.stamp.hlc.milliseconds > look.milliseconds })
        {
            return fail(
                .safety,
                "device \(device.index) stamped \(late.row) at \(late.stamp.hlc.milliseconds) ms when its migration "
                    + "rebuilt the table, after its clock's last reading of \(look.milliseconds) ms: a rebuild's copies are "
                    + "dated when Concord last looked, or they beat edits other devices made since")
        }
        let tables = Dictionary(uniqueKeysWithValues: device.replica.tables.map { ($0.name, $0.schema) })
        // Read only when a row-policy row was written: what its SET NULL / SET DEFAULT columns hold.
        let standIns =
            touched.contains { tables[$0.row.table]?.policy == .row }
            ? Dictionary(
                grouping: try device.foreignKeys().filter { !$0.action.hidesChild },
                by: \.child
            ).mapValues { Set($0.map(\.column)) } : [:]
        let operations = ledger.record(
            statement, touched: touched, tables: tables, standIns: standIns, node: device.node,
            origin: .init(step: step, device: device.index), knowledge: &device.knowledge, credited: credited)
        // Rows deleted in tables other than the one the statement names were deleted by a cascade.
        result.cascades += operations.filter { $0.row.table != statement.table && $0.kind == .delete }.count
        try observeWrites(operations, on: device)
    }
}
