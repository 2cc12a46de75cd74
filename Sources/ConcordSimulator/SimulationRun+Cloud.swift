import Concord

/// Exchange through the record server: upload in batches with change tags,
/// fetch, merge and retry on "server record changed", fetch since a token,
/// and push notifications that may never arrive.
extension SimulationRun {
    /// Uploads what changed on `device` since its last upload; the devices a push reaches fetch at the next step.
    func upload(_ device: SimulatedDevice, acknowledged: Bool, notified: [Int]) throws {
        guard device.online, device.canUpload else { return }
        let changes = try export(device, since: device.cloud.uploadedVersion)
        let pending = changes.rows.filter { row in
            device.cloud.serverCopy[RecordServer.RecordID(table: row.table, key: row.key)] != row.registers
        }
        var tables = changes.tables
        var saved = 0
        var start = 0
        while start < pending.count {
            var batch = Array(pending[start..<min(start + RecordServer.batchLimit, pending.count)])
            start += RecordServer.batchLimit
            // At most a few rounds: between a refusal and the retry, nothing else reaches the server.
            for _ in 0..<3 where !batch.isEmpty {
                // Each row's registers are the device's current ones (read at the start, or after merging a
                // refusal), so what it knows of the row now is what the record holds.
                let request = try transmit(
                    Changeset(
                        source: device.node, since: changes.since, upTo: changes.upTo, tables: tables, rows: batch))
                let uploads = request.rows.map { row in
                    RecordServer.Upload(
                        change: row, knownTag: device.cloud.tags[RecordServer.RecordID(table: row.table, key: row.key)],
                        knowledge: device.knowledge.of(RowRef(table: row.table, key: row.key)))
                }
                let outcome = server.save(uploads, schemas: request.tables)
                result.uploads += 1
                saved += outcome.saved.count
                if acknowledged {
                    let byID = Dictionary(
                        uniqueKeysWithValues: batch.map { (RecordServer.RecordID(table: $0.table, key: $0.key), $0) })
                    for (id, tag) in outcome.saved {
                        device.cloud.tags[id] = tag
                        device.cloud.serverCopy[id] = byID[id]?.registers
                    }
                }
                guard acknowledged, !outcome.conflicts.isEmpty else { break }
                // "Server record changed": merge the server's records, then retry with the merged rows.
                result.serverRecordChanged += outcome.conflicts.count
                log("device \(device.index) was told server record changed for \(outcome.conflicts.count) records")
                guard try apply(outcome.conflicts, to: device, since: server.token, upTo: server.token) != nil else {
                    break
                }
                (tables, batch) = try rowsAgain(outcome.conflicts, from: device)
            }
        }
        if acknowledged && saved == pending.count { device.cloud.uploadedVersion = changes.upTo }
        log(
            "device \(device.index) uploaded \(saved) of \(pending.count) records\(acknowledged ? "" : ", answer lost")"
        )
        guard saved > 0 else { return }
        let reached = notified.filter { $0 != device.index && $0 < devices.count && devices[$0].online }
        pendingFetches.formUnion(reached)
        result.pushesLost += devices.count - 1 - reached.count
    }

    /// The rows of `records` as `device` exports them now that it merged them, and the declarations
    /// they go under, for the retry after "server record changed".
    ///
    /// They are read from an export, not from the device's registers alone, so that a device on an
    /// older release uploads again what it keeps for the columns and tables its schema lacks; a record
    /// saved without them would lose a newer device's writes for every device that fetches it.
    private func rowsAgain(_ records: [RecordServer.Record], from device: SimulatedDevice) throws
        -> (tables: [TableSchema], rows: [RowChange])
    {
        // Every refused row changed after the last upload, so this export holds it.
        let merged = try export(device, since: device.cloud.uploadedVersion)
        let rows = Dictionary(
            merged.rows.map { (RecordServer.RecordID(table: $0.table, key: $0.key), $0) },
            uniquingKeysWith: { _, last in last })
        let batch = records.compactMap { rows[RecordServer.RecordID(table: $0.change.table, key: $0.change.key)] }
        return (merged.tables, batch)
    }

    /// Fetches every record saved since the device's token, a batch at a time; from the first page whose rows
    /// the replica held back instead, while it held any back (see ``CloudClient/heldBackSince``).
    func fetch(_ device: SimulatedDevice) throws {
        guard device.online else { return }
        result.fetches += 1
        device.cloud.token = device.cloud.heldBackSince ?? device.cloud.token
        device.cloud.heldBackSince = nil
        while true {
            let page = server.changes(since: device.cloud.token, limit: plan.rates.fetchLimit)
            guard !page.records.isEmpty else { return }
            guard let report = try apply(page.records, to: device, since: device.cloud.token, upTo: page.token)
            else { return }
            if report.heldBack > 0, device.cloud.heldBackSince == nil {
                device.cloud.heldBackSince = device.cloud.token
                result.coverage.record(.heldBackRefetched)
            }
            device.cloud.token = page.token
            guard page.more else { return }
        }
    }

    /// Merges server records into `device` and remembers the tags of those it merged (not of rows it held
    /// back, which it has not seen); the apply's report, or `nil` when its clock refused them.
    private func apply(_ records: [RecordServer.Record], to device: SimulatedDevice, since: Int, upTo: Int) throws
        -> ApplyReport?
    {
        var knowledge = Knowledge()
        for record in records {
            knowledge.learn(record.knowledge, of: RowRef(table: record.change.table, key: record.change.key))
        }
        guard
            let report = try deliver(
                try transmit(server.changeset(records, since: since, upTo: upTo)), to: device, from: "the server",
                knowledge: knowledge)
        else { return nil }
        let refused = refusedTables(of: device)
        for record in records where !refused.contains(record.change.table) {
            let id = RecordServer.RecordID(table: record.change.table, key: record.change.key)
            device.cloud.tags[id] = record.tag
            device.cloud.serverCopy[id] = record.change.registers
        }
        return report
    }

    /// `changeset` as the other end reads it: encoded in the next message's form and decoded again (see ``Wire``).
    func transmit(_ changeset: Changeset) throws -> Changeset {
        let form = network.nextForm(seed: simulation.seed)
        return try Wire.decode(try Wire.encode(changeset, as: form), as: form, expecting: changeset)
    }

    /// Everyone uploads and fetches, round after round, until a round moves nothing; returns the rounds taken.
    func quiesceThroughServer() throws -> Int {
        for round in 1...20 {
            let before = server.token
            var merged = result.rowsMerged
            for device in devices { try upload(device, acknowledged: true, notified: []) }
            for device in devices { try fetch(device) }
            merged = result.rowsMerged - merged
            if server.token == before && merged == 0 { return round }
        }
        fail(.convergence, "devices and server were still exchanging after 20 rounds")
        return 20
    }
}
