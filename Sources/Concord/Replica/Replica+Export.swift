extension Replica {
    /// Everything this replica stored after `version`: its own writes and what it merged.
    ///
    /// A peer remembers the ``Changeset/upTo`` of the last changeset it read
    /// from this replica and asks for the changes since then next time.
    /// Rows come in the order they were stored; each carries all its registers,
    /// so the receiver can merge it whatever it has seen before. A table
    /// refused for a destructive schema change (see ``schemaRefusals``) is
    /// left out, and ``Changeset/upTo`` stops short of its first change.
    public func changes(since version: Int64 = 0) throws -> Changeset {
        var header: ChangesetHeader?
        var rows: [RowChange] = []
        try exportChanges(since: version, header: { header = $0 }, row: { rows.append($0) })
        return Changeset(header: header!, rows: rows)
    }

    /// Streams the changes after `version`: first the header, then each row, table by table.
    ///
    /// One transaction covers it all — folding the capture log, then reading —
    /// so the rows and the header's ``ChangesetHeader/upTo`` describe the same
    /// moment even while the app writes.
    ///
    /// A peer that asks for changes after a version this replica has not
    /// reached has read them from another file with this node id: a copy, or
    /// this file before it was restored from a backup. This replica then takes
    /// a new node id (so the two stop sharing one), before it stamps what its
    /// app wrote since (a counter change the restore lost, which the peer holds
    /// under the old id, then still counts), and exports everything it holds,
    /// from version 0, under it; the header says so.
    ///
    /// It is refused inside a transaction still open on the replica's connection (the app's): what
    /// it would stamp and send could yet be rolled back, after a peer holds it, and this replica's
    /// next writes would then be stored at the versions that peer has already read, and never reach it.
    public func exportChanges(
        since version: Int64, header: (ChangesetHeader) throws -> Void, row: (RowChange) throws -> Void
    ) throws {
        guard version >= 0 else { throw ReplicaError.invalidVersion(version) }
        guard !database.inTransaction else { throw ReplicaError.exportInsideTransaction }
        // A node id taken here is rolled back with the export when it fails (a fold it cannot make): the
        // replica then writes under the one its file names.
        do { try exportChangesInTransaction(since: version, header: header, row: row) } catch {
            try? refreshNodeID()
            throw error
        }
    }

    private func exportChangesInTransaction(
        since version: Int64, header: (ChangesetHeader) throws -> Void, row: (RowChange) throws -> Void
    ) throws {
        try withForeignKeyEnforcementOffIfWriting {
            // Decided before anything waiting is stamped (a copy first takes a node id of its own): writes the
            // app made on a file restored from a backup are then stamped under the new node id, and a
            // counter change the file lost with the restore, which its peers hold under the old one, counts.
            try checkIdentity()
            var version = version
            // A position past this file's version, or one it never handed out: the peer read a history of
            // this node's that the file no longer holds (a copy, a backup restored over it; see ReadPositions).
            let positions = ReadPositions(database: database)
            if try version > self.version || !positions.isKnown(version) {
                try adoptNewNodeID()
                version = 0
            }
            try foldLocalWrites(identityChecked: true)
            // Every stamp of this replica's own may leave it now (see ConflictRule's losses): a statement
            // that writes nothing unless this replica stamped a write of its own since its last export.
            try database.cached(
                "UPDATE \(Metadata.state) SET exported = own WHERE own > exported"
            ).run([])
            let current = try self.version
            let synced = tables.filter { !isRefused($0.name) }
            let relay = RelayStore(database: database)
            let (extras, relayed) = try relayedDeclarations(relay)
            let exported = synced.map { table in
                extras[SQLiteName.Key(table.name)].map { table.schema.appending($0) } ?? table.schema
            }
            let upTo = try exportedUpTo(since: version)
            try positions.record(upTo)
            try header(
                ChangesetHeader(
                    source: nodeID, since: version, upTo: upTo,
                    tables: (exported + relayed).sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }))
            // Every stored change has a version no higher than the replica's: none is newer than that.
            guard version < current else { return }
            for table in synced {
                let more = extras[SQLiteName.Key(table.name)]
                // Most rows' writes saw nothing of another device: they share one list saying so.
                let none = [Stamp?](repeating: nil, count: table.columns.count)
                try store(table).forEachRow(since: version) { key, stored in
                    var registers = stored.registers
                    var seen =
                        stored.seen == nil
                        ? none : ConflictRule.exported(seen: stored.seen, registers: registers, merges: table.merges)
                    if let more {
                        let extra =
                            try relay.load(more.name, key: key, columns: more.columns)?.columns
                            ?? Array(repeating: nil, count: more.columns.count)
                        registers.columns += extra
                        // The relay store keeps no seen stamps: each relayed write is taken to have seen
                        // everything below it.
                        seen += zip(extra, more.merges).map { register, merge in merge == .lww ? register?.stamp : nil }
                    }
                    try row(RowChange(table: table.name, key: key, registers: registers, seen: seen))
                }
            }
            for table in relayed {
                try relay.forEachRow(of: table.name, since: version, columns: table.columns) { key, registers in
                    try row(RowChange(table: table.name, key: key, registers: registers))
                }
            }
        }
    }

    /// What the relay store adds to an export: the extra columns of synced tables (by name, as
    /// declarations of those columns alone), and the tables not synced here, in name order.
    private func relayedDeclarations(
        _ relay: RelayStore
    ) throws -> (extras: [SQLiteName.Key: TableSchema], relayed: [TableSchema]) {
        var extras: [SQLiteName.Key: TableSchema] = [:]
        var relayed: [TableSchema] = []
        for declaration in try relay.declarations() {
            guard let local = syncedTable(named: declaration.name) else {
                relayed.append(declaration)
                continue
            }
            guard !isRefused(local.name), let lacking = declaration.columns(lackedBy: local.columns) else { continue }
            extras[SQLiteName.Key(local.name)] = lacking
        }
        return (extras, relayed)
    }

    /// How far an export since `version` covers: the local version, but short of the first change of a
    /// table refused for a schema change, whose rows the export leaves out; so a peer that records it as
    /// read asks for those rows again once the change is undone (and gets the others again, harmlessly).
    private func exportedUpTo(since version: Int64) throws -> Int64 {
        var upTo = try self.version
        for table in tables where isRefused(table.name) {
            if let first = try database.scalar(
                "SELECT min(ver) FROM \(table.rowsTable) WHERE ver > ?", [.integer(version)])?.integerValue
            {
                upTo = min(upTo, first - 1)
            }
        }
        return upTo
    }

    /// Writes the changes after `version` to `sink` in the binary format, without holding them in memory.
    public func exportChanges(since version: Int64, to sink: any ByteSink) throws {
        let encoder = ChangesetEncoder(sink: sink)
        try exportChanges(since: version, header: { try encoder.begin(header: $0) }, row: { try encoder.write($0) })
        try encoder.finish()
    }
}
