@_spi(Simulation) import Concord

/// Apps upgrading to a newer release, and the tables their migrations rebuild.
extension SimulationRun {
    /// What a device's tables were when an upgrade began: kept until it finishes, since a power failure may
    /// stop it after some of its migrations landed, and the relaunched app finishes it.
    struct UpgradeBaseline {
        /// Each table's first page in the file, by name: a rebuilt table gets a new one, an altered one keeps it.
        let roots: [String: Int64]
        /// The synced tables as the app saw them.
        let tables: TableSnapshot
        /// The device's clock's last reading, Concord's last look before the migrations.
        let lastLook: HLCTimestamp
        /// The capture log's end before the migrations: what Concord logs after it while taking up the
        /// release's new columns is the migration's write (``recordNewColumnWrites(on:since:)``).
        let logEnd: Int64
    }

    /// Upgrades `device`'s app to release `version` (nothing when it runs that one or a newer one already).
    ///
    /// A migration that rebuilds a synced table (create, copy, drop, rename: the table's b-tree changes)
    /// is recorded at once as the device's write of every row the table holds (``Statement/lastLook``):
    /// Concord notices the rebuild at its next fold, which the app makes right after (as a sync would).
    /// An upgrade a power failure stopped is finished from what the tables were when it began.
    func upgrade(_ device: SimulatedDevice, to version: Int) throws {
        let from = device.version
        if upgradeBaselines[device.index] == nil {
            upgradeBaselines[device.index] = try UpgradeBaseline(
                roots: Self.tableRoots(of: device.replica), tables: TableSnapshot(of: device.replica),
                lastLook: device.replica.clock.last, logEnd: device.replica.captureLogEnd())
        }
        try device.upgrade(to: version, workload: workload)
        try recordRebuilds(on: device)
        try recordWaiting(on: device)
        guard device.version > from else { return }
        result.upgrades += 1
        log("device \(device.index) upgraded its app from version \(from) to \(device.version)")
    }

    /// Records the rows of the tables `device`'s finished upgrade rebuilt as its writes (see
    /// ``upgrade(_:to:)``); also after a power failure that cut the recording short, once relaunched.
    func recordRebuilds(on device: SimulatedDevice) throws {
        guard let baseline = upgradeBaselines[device.index], device.upgrading == nil else { return }
        let rebuilt = try Self.tableRoots(of: device.replica).filter { name, page in
            baseline.roots[name].map { $0 != page } ?? false
        }
        if !rebuilt.isEmpty, written == nil {
            _ = try device.replica.foldLocalWrites()
            let tables = device.replica.tables.map(\.schema).filter { rebuilt[$0.name] != nil }
            var statement = Statement(
                sql: "migration to release \(device.version), rebuilding \(tables.map(\.name).joined(separator: ", "))",
                before: baseline.tables, after: try TableSnapshot(of: device.replica, tables: tables))
            statement.lastLook = baseline.lastLook
            written = WrittenStatements(device: device.index, statements: [statement])
            result.coverage.record(.rebuild)
            try collectWrites(only: [device.index])
        } else {
            try recordNewColumnWrites(on: device, since: baseline)
        }
        upgradeBaselines[device.index] = nil
    }

    /// Records what Concord wrote while taking up the columns `device`'s finished upgrade added, as the
    /// device's writes: a `max` or `min` column with a DEFAULT starts every row there, and a value the
    /// migration put in a new column, or a changing DEFAULT's (`CURRENT_TIMESTAMP`), is the device's own.
    ///
    /// Why: enabling the release's tables logs those writes (``Replica/enableSync(on:policy:merges:)``), and
    /// the next fold stamps them; the app wrote none of them, so the ledger must hear of them from the
    /// upgrade, or the run blames the device for stamping writes its app never made. The app folds right
    /// after upgrading, as it does after a rebuild; what the writes were is read from the tables before
    /// and after, and which columns from the registers (``Statement/takesUpColumns``).
    private func recordNewColumnWrites(on device: SimulatedDevice, since baseline: UpgradeBaseline) throws {
        guard written == nil, device.waiting.isEmpty else { return }
        let logged = !(try device.replica.capturedRows(after: baseline.logEnd).isEmpty)
        // The fold also when the migrations logged nothing: it is where Concord takes up a new column, and the
        // app's next write, read with the tables Concord knows, would miss the column it writes.
        _ = try device.replica.foldLocalWrites()
        guard logged else { return }
        var statement = Statement(
            sql: "migration to release \(device.version), taking up new columns", before: baseline.tables,
            after: try TableSnapshot(of: device.replica))
        statement.takesUpColumns = true
        written = WrittenStatements(device: device.index, statements: [statement])
        result.coverage.record(.newColumnTakenUp)
        try collectWrites(only: [device.index])
    }

    /// Each table's first page in the file, by name.
    private static func tableRoots(of replica: Replica) throws -> [String: Int64] {
        var roots: [String: Int64] = [:]
        for row in try replica.database.query(
            "SELECT name, rootpage FROM main.sqlite_schema WHERE type = 'table' ORDER BY name")
        {
            if let name = row[0].textValue, let page = row[1].integerValue { roots[name] = page }
        }
        return roots
    }
}
