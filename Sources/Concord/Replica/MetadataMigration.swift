/// Upgrades the metadata of a replica written by an earlier Concord to ``Metadata/layoutVersion``.
///
/// Every layout Concord has written can be read: a replica opened by a newer
/// build is upgraded in place, in one transaction, keeping every register,
/// every parked row, every peer's read position and every write the capture
/// log still holds. The tests open a database of each earlier layout, kept in
/// `Tests/ConcordTests/Fixtures/Layouts`, and compare what it holds after the
/// upgrade with what the build that wrote it reported.
///
/// Layouts, newest first (`Tests/ConcordTests/Fixtures/Layouts/README.md` describes each exactly):
/// - 19: layout 18 whose triggers read the synced table through an alias; the update triggers of tables with
///   columns that keep types log a real zero written over a real zero with an INSERT per column (layout 20
///   makes them anew, with one).
/// - 18: layout 17 plus `_concord_positions`, the read positions the replica handed out (``ReadPositions``);
///   its triggers name the synced table without an alias where they read it, which a table named `new` or
///   `old` turns into the row being written (layout 19 makes them anew).
/// - 17: layout 16 with a conflict log whose ids are never given to another entry (`AUTOINCREMENT`); the
///   table is built anew, keeping every entry and its id.
/// - 16: layout 15 plus `_concord_credits`, where a copy keeps the credit it gives the original for the writes
///   its capture log held until all are folded (``CopyCredits``); empty after an upgrade, as a copy of an
///   earlier layout takes its new node id, and records its credit, after the upgrade. The delete triggers of
///   tables with value-merged columns empty the replaced-row slot for the key they delete, so an insert whose
///   statement deleted the row with its triggers firing (`INSERT OR REPLACE` under `recursive_triggers`, an
///   app's BEFORE INSERT trigger) starts a new life rather than updating the one it ended.
/// - 15: layout 14 with delete triggers that keep the value as written of a column that showed it converted
///   (`'007'` as 7 in an INTEGER column): they wrote the converted value over it, under its writer's stamp.
/// - 14: layout 13, where a merge looks for the rows the app's triggers deleted uncaptured in its own
///   transaction; an earlier build looked at the first fold after opening, so an upgraded file is swept once
///   (`_concord_state.swept` is emptied) for what a merge of an earlier build left. The delete triggers of
///   tables with a TEXT key log the row first and read its key back from the log row, once.
/// - 13: layout 12 plus `_concord_retired`, `_concord_retired_values` and `_concord_retired_counts`, where
///   disabling sync on a table keeps its rows' causal lengths, stamps, values and counter contributions for
///   enabling it again (``RetiredRows``); empty after an upgrade (a table disabled before kept nothing).
/// - 12: layout 11 plus `_concord_keys`, where BEFORE triggers of tables with a TEXT key keep the key of a row
///   being deleted (and, in a table without a rowid, written) when a number could be read from it, for the
///   capture triggers to log: with foreign keys on, SQLite handed them such a key as a number, and the write
///   was lost (see `CaptureTriggers+NumericKeys.swift`); and a BEFORE INSERT trigger of tables with
///   value-merged columns that keeps the row an `INSERT OR REPLACE` replaces (`CaptureTriggers+Replace.swift`).
/// - 11: layout 10 with a change mask of a bit per column for tables of more than 63 synced columns
///   (``ChangeMask``): the last bit stood for every column from 62 on, so an update of one of them stamped
///   them all, over other devices' edits. A log row written before keeps its integer mask, read as before.
/// - 10: layout 9 plus `_concord_state.swept`, the schema version at which the synced tables were last
///   swept for rows that left them uncaptured (NULL until the first fold: an upgraded file is swept once).
/// - 9: layout 8 with delete triggers that keep a re-inserted row's previous value-merged values.
/// - 8: the `seen` stamps of layout 7 kept for every register, the ones merged in from other devices
///   too (as changesets of format 3 carry them), not only for this replica's own writes.
/// - 7: layout 6 plus the conflict log (`_concord_conflicts`), a `seen` column in every rows table
///   (the stamps this replica's own writes saw, see ``ConflictRule``), `_concord_peers.at`, the time
///   each peer was last read, `_concord_readers`, how far each peer has read this replica, and
///   `_concord_state.own` and `exported`, the clock's reading when this replica last stamped a
///   write of its own, and that reading as of its last export.
/// - 6: layout 5 plus the relay store (`_concord_relayed`, `_concord_relayed_rows`), which keeps
///   tables and columns the replica's schema lacks.
/// - 5: per-table objects named by table id (`_concord_3_rows`), columns by
///   position (`h0`, `c0`); the file's identity in `_concord_state.file`; the
///   kind of each parked row; parked and revived rows refer to tables by id.
/// - 4: per-table objects named after the user's table (`_concord_rows_T`),
///   columns after the user's columns (`h_title`); the log's write time as a Julian day.
/// - 3: as 4, with the write time in Unix milliseconds.
/// - 2: registers keyed by version with a key hash (the "2b" shape), or keyed by
///   key with versions shared per fold (the first shape, with `_concord_revived`).
/// - 1: the first shape without `_concord_revived`, and an `applying` flag in the state.
///
/// Upgrading also gives the replica a new node id: a file copied while an
/// earlier build could not tell copies apart would otherwise keep sharing
/// its node id with the original. Peers then read it again from its start,
/// once.
struct MetadataMigration {
    let database: Database
    let replica: Replica

    /// The layouts this build upgrades.
    static let upgradable: ClosedRange<Int64> = 1...19

    /// Upgrades from `layout` to the current one, or refuses without changing anything.
    func upgrade(from layout: Int64) throws {
        guard Self.upgradable.contains(layout) else {
            throw ReplicaError.unsupportedLayout(found: layout, supported: Metadata.layoutVersion)
        }
        try Replica.requireUTF8(database)
        try replica.withoutForeignKeyEnforcement {
            // Re-read under the write lock: another process may have upgraded it meanwhile.
            let found = try database.scalar("SELECT layout FROM \(Metadata.state)")?.integerValue ?? 0
            guard found != Metadata.layoutVersion else { return }
            // Layout 12 keeps the keys of rows being written in a table of their own, which triggers made anew read.
            try database.execute(Metadata.pendingKeysSQL)
            // Layout 13 keeps what a table sync is disabled on leaves behind; nothing was kept before.
            try database.execute(RetiredRows.createSQL)
            // Layout 16 keeps copy credits; none was kept before.
            try database.execute(CopyCredits.createSQL)
            if found < 5 { try upgradeToLayout5() }
            // Layout 6 adds the relay store, empty: what a replica lacked was refused before.
            if found < 6 { try database.execute(RelayStore.createSQL) }
            // Layout 7 adds the conflict log (empty: nothing was recorded before), what this replica's writes
            // saw, and what each peer read and when.
            try database.execute(Metadata.conflictsSQL)
            try neverReuseConflictIDs()
            try database.execute(Metadata.readersSQL)
            try addSeenStamps()
            if try !columnNames(of: Metadata.state).contains("exported") {
                // Whatever was stamped before the upgrade may have been exported.
                try database.execute(
                    "ALTER TABLE \(Metadata.state) ADD COLUMN own INTEGER NOT NULL DEFAULT 0; "
                        + "ALTER TABLE \(Metadata.state) ADD COLUMN exported INTEGER NOT NULL DEFAULT 0; "
                        + "UPDATE \(Metadata.state) SET own = hlc, exported = hlc")
            }
            // Layout 10 records the schema version of the last sweep for rows lost uncaptured; none was made.
            if try !columnNames(of: Metadata.state).contains("swept") {
                try database.execute("ALTER TABLE \(Metadata.state) ADD COLUMN swept INTEGER")
            }
            // Layout 14 no longer looks at every table at each open: what a merge of an earlier build left
            // uncaptured is looked for once, at the next fold.
            if found < 14 { try database.execute("UPDATE \(Metadata.state) SET swept = NULL") }
            if try !columnNames(of: Metadata.peers).contains("at") {
                try database.execute("ALTER TABLE \(Metadata.peers) ADD COLUMN at INTEGER")
            }
            // Layout 8 keeps what every register's write saw; layout 7 kept it for this replica's own only.
            if found == 7 { try markMergedRegistersSeen() }
            // Layout 9 changes the delete triggers (see `CaptureTriggers`), layout 11 the update triggers of
            // tables of more than 63 columns (see `ChangeMask`), layout 12 the capture triggers of tables with a
            // TEXT key (see `CaptureTriggers+NumericKeys.swift`), layout 14 their delete triggers again, layout 15
            // the delete triggers of tables whose columns convert values, layout 16 those of tables with
            // value-merged columns, layout 19 every trigger that reads the synced table (now through an alias),
            // layout 20 the update triggers of tables with columns that keep types; layouts 1 to 4 got them new
            // above.
            if (5...19).contains(found) { try reinstallTriggers() }
            // Layout 18 keeps the read positions it hands out; those handed out before cannot be told apart.
            if found < 18 {
                try database.execute(ReadPositions.createSQL)
                try ReadPositions(database: database).start(
                    at: try database.scalar("SELECT version FROM \(Metadata.state)")?.integerValue ?? 0)
            }
            try database.execute("UPDATE \(Metadata.state) SET layout = ?", [.integer(Metadata.layoutVersion)])
        }
    }

    /// Builds the conflict log of layouts 7 to 16 anew with `AUTOINCREMENT` (layout 17), keeping every entry
    /// and its id; no id handed out from then on was handed out before the newest kept.
    ///
    /// The table is renamed with `legacy_alter_table` on, so that a view or trigger of the app's that no
    /// longer parses (SQLite checks every one on a rename otherwise) cannot stop the upgrade.
    private func neverReuseConflictIDs() throws {
        let sql = try database.scalar("SELECT sql FROM sqlite_schema WHERE name = ?", [.text(Metadata.conflicts)])
        guard let sql = sql?.textValue, !sql.uppercased().contains("AUTOINCREMENT") else { return }
        let rebuilt = Metadata.conflicts + "_17"
        try database.execute(Metadata.conflictsSQL(named: rebuilt))
        let columns = "id, tbl, pk, col, kind, value, hlc, node, whlc, wnode, wvalue, at"
        try database.execute(
            "INSERT INTO \(rebuilt) (\(columns)) SELECT \(columns) FROM \(Metadata.conflicts) ORDER BY id")
        try database.execute("DROP TABLE \(Metadata.conflicts)")
        let legacy = try database.scalar("PRAGMA legacy_alter_table")?.integerValue ?? 0
        try database.execute("PRAGMA legacy_alter_table = ON")
        defer { try? database.execute("PRAGMA legacy_alter_table = \(legacy)") }
        try database.execute("ALTER TABLE \(rebuilt) RENAME TO \(Metadata.conflicts)")
    }

    /// Gives every rows table the `seen` column of layout 7.
    ///
    /// What the writes made so far saw was not recorded. Taking it as nothing
    /// would list, as a conflict, a value this replica had held and then
    /// overwritten, should it arrive again (through a peer that lags). So every
    /// register is taken to have seen everything up to the clock's last reading
    /// (just above it): a value stamped later is still found unseen, and one
    /// stamped earlier is never listed. The stamp's node is this replica's.
    private func addSeenStamps() throws {
        let state = try database.query("SELECT hlc, node FROM \(Metadata.state)").first ?? []
        let hlc = UInt64(bitPattern: state.first?.integerValue ?? 0) &+ 1
        let node = state.count > 1 ? state[1].integerValue ?? 0 : 0
        for table in try database.query("SELECT id, columns FROM \(Metadata.tables) ORDER BY id") {
            let rows = quoteIdentifier(Metadata.rowsTable(table[0].integerValue ?? 0))
            guard try !columnNames(of: Metadata.rowsTable(table[0].integerValue ?? 0)).contains("seen") else {
                continue
            }
            try database.execute("ALTER TABLE \(rows) ADD COLUMN seen BLOB")
            let columns = ColumnList.decode(table[1].textValue ?? "[]").count
            guard columns > 0 else { continue }
            try database.execute(
                "UPDATE \(rows) SET seen = ?",
                [.blob(SeenStamps.encode(sameFor: columns, nodeIndex: node, hlc: hlc))])
        }
    }

    /// Gives the registers of other devices that a layout-7 replica holds the seen stamps of layout 8.
    ///
    /// Layout 7 kept seen stamps for this replica's own writes only; beside a
    /// register merged in from another device, its column held nothing, or
    /// what the own write it replaced had seen. Neither says what the other
    /// device's write saw, so each such register is taken, as every register
    /// was at the upgrade to layout 7, to have seen everything up to the
    /// clock's last reading: nothing it beat is listed as a conflict. The own
    /// registers keep their stamps.
    private func markMergedRegistersSeen() throws {
        let state = try database.query("SELECT hlc, node FROM \(Metadata.state)").first ?? []
        let hlc = UInt64(bitPattern: state.first?.integerValue ?? 0) &+ 1
        let own = state.count > 1 ? state[1].integerValue ?? 0 : 0
        for table in try database.query("SELECT id, columns, policy, merges FROM \(Metadata.tables) ORDER BY id") {
            let rows = quoteIdentifier(Metadata.rowsTable(table[0].integerValue ?? 0))
            let columns = ColumnList.decode(table[1].textValue ?? "[]")
            let merges = ColumnList.decodeMerges(table[3].textValue ?? "{}")
            let lww = columns.indices.filter { (merges[columns[$0]] ?? .lww) == .lww }
            let perColumn = table[2].textValue == TablePolicy.column.rawValue
            let nodes = perColumn ? lww.map { Metadata.nodeColumn($0) } : []
            var updates: [(version: Int64, seen: [UInt8]?)] = []
            for row in try database.query(
                "SELECT ver, node, seen\(nodes.map { ", " + $0 }.joined()) FROM \(rows) ORDER BY ver")
            {
                let base = row[1].integerValue ?? 0
                let foreign = lww.enumerated().filter { position, _ in
                    let node = perColumn ? row[3 + position].integerValue ?? base : base
                    return node != 0 && node != own
                }.map { $0.element }
                guard !foreign.isEmpty else { continue }
                var entries = SeenStamps.entries(row[2].blobValue ?? []).filter { !foreign.contains($0.column) }
                entries += foreign.map { SeenStamps.Entry(column: $0, nodeIndex: own, hlc: hlc) }
                updates.append((row[0].integerValue ?? 0, SeenStamps.encode(entries)))
            }
            for update in updates {
                try database.execute(
                    "UPDATE \(rows) SET seen = ? WHERE ver = ?",
                    [update.seen.map { .blob($0) } ?? .null, .integer(update.version)])
            }
        }
    }

    /// Upgrades layouts 1 to 4 to layout 5, inside the caller's transaction.
    private func upgradeToLayout5() throws {
        // Up to layout 3 (and on one unreleased shape of 4) the log held Unix milliseconds, now Julian days;
        // the two never overlap (a Julian day of this era is about 2.5 million).
        try database.execute("UPDATE \(Metadata.log) SET at = at / 86400000.0 + 2440587.5 WHERE at > 100000000")
        try dropTriggers()
        let hadRevived = try exists(Metadata.revived)
        try normalizeEarlyLayouts()
        for table in try namedTables() { try renameObjects(of: table) }
        try rebuildParkedAndRevived()
        try database.execute("ALTER TABLE \(Metadata.state) ADD COLUMN file TEXT")
        try renewNodeID()
        try replica.refreshNodeID()
        try replica.loadSyncedTables()
        for table in replica.tables {
            if !hadRevived { try findRevivedRows(of: table) }
            try clampCausalLengths(of: table)
            try parkUnsyncableKeys(of: table)
            try replica.installTriggersAndIndexes(for: table)
        }
    }

    /// A synced table as layout 4 names it: its id, name and columns.
    private struct NamedTable {
        let id: Int64
        let name: String
        let columns: [String]
    }

    private func namedTables() throws -> [NamedTable] {
        try database.query("SELECT id, name, columns FROM \(Metadata.tables) ORDER BY id").map {
            NamedTable(
                id: $0[0].integerValue ?? 0, name: $0[1].textValue ?? "",
                columns: ColumnList.decode($0[2].textValue ?? "[]"))
        }
    }

    /// Puts every synced table's triggers back as this build writes them.
    private func reinstallTriggers() throws {
        try dropTriggers()
        try replica.loadSyncedTables()
        for table in replica.tables { try replica.installTriggersAndIndexes(for: table) }
    }

    /// Drops every trigger Concord made; the current ones are made again at the end.
    private func dropTriggers() throws {
        let names = try database.query(
            "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND substr(name, 1, 9) = '_concord_' ORDER BY name")
        for row in names {
            guard let name = row[0].textValue else { continue }
            try database.execute("DROP TRIGGER IF EXISTS \(quoteIdentifier(name))")
        }
    }

    private func exists(_ name: String) throws -> Bool {
        try database.scalar("SELECT count(*) FROM sqlite_schema WHERE name = ?", [.text(name)]) != .integer(0)
    }

    private func columnNames(of table: String) throws -> Set<String> {
        Set(
            try database.pragma("table_info", of: table).compactMap { $0.text("name") })
    }

    /// Brings layouts 1 and 2 to layout 3's shape: registers keyed by a unique version with a key hash,
    /// no `applying` flag, and a `_concord_revived` table (filled by ``findRevivedRows(of:)``).
    private func normalizeEarlyLayouts() throws {
        var version = try database.scalar("SELECT version FROM \(Metadata.state)")?.integerValue ?? 0
        for table in try namedTables() {
            let rows = "_concord_rows_" + table.name
            guard try !columnNames(of: rows).contains("kh") else { continue }
            // Keyed by key, with one version shared by every row of a fold: give each row a version of its own,
            // above every one issued, in the order they were written.
            let old = "_concord_rows_early"
            try database.execute("ALTER TABLE \(quoteIdentifier(rows)) RENAME TO \(old)")
            let stamps = try columnNames(of: old).filter { $0.hasPrefix("h_") || $0.hasPrefix("n_") }
                .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map(quoteIdentifier)
            let columns = ["pk", "cl", "hlc", "node", "clh", "cln"] + stamps
            try database.execute(
                "CREATE TABLE \(quoteIdentifier(rows)) (ver INTEGER PRIMARY KEY, kh INTEGER NOT NULL, "
                    + "pk NOT NULL, cl INTEGER NOT NULL, hlc INTEGER NOT NULL, node INTEGER NOT NULL, clh INTEGER, cln INTEGER"
                    + stamps.map { ", \($0) INTEGER" }.joined() + ")")
            let insert = try database.prepare(
                "INSERT INTO \(quoteIdentifier(rows)) (ver, kh, \(columns.joined(separator: ", "))) "
                    + "VALUES (?, ?\(String(repeating: ", ?", count: columns.count)))")
            let select = try database.prepare("SELECT \(columns.joined(separator: ", ")) FROM \(old) ORDER BY ver, pk")
            while try select.step() {
                version += 1
                let row = select.row()
                try insert.run([.integer(version), .integer(KeyHash.of(row[0]))] + row)
            }
            try database.execute("DROP TABLE \(old)")
        }
        try database.execute("UPDATE \(Metadata.state) SET version = ?", [.integer(version)])
        if try columnNames(of: Metadata.state).contains("applying") {
            try database.execute("ALTER TABLE \(Metadata.state) DROP COLUMN applying")
        }
        if try !exists(Metadata.revived) {
            try database.execute(
                "CREATE TABLE \(Metadata.revived) (tbl TEXT NOT NULL, pk NOT NULL, PRIMARY KEY (tbl, pk)) WITHOUT ROWID"
            )
        }
    }

    /// Layouts without `_concord_revived` showed a revived parent as a row of a revivable table whose
    /// causal length is even (deleted) while the user table shows it; a re-insert still in the log
    /// shows such a row too, and is not one.
    private func findRevivedRows(of table: SyncedTable) throws {
        guard replica.isRevivable(table.name) else { return }
        try database.execute(
            """
            INSERT OR IGNORE INTO \(Metadata.revived) (tbl, pk)
            SELECT \(table.id), m.pk FROM \(table.rowsTable) AS m JOIN \(table.qualifiedName) AS t ON t.\(table.quotedKey) = m.pk
            WHERE m.cl % 2 = 0 AND m.pk NOT IN (SELECT pk FROM \(Metadata.log) WHERE tbl = \(table.id) AND op = 1)
            """)
    }

    /// Moves one table's metadata from names made of user names to names made of its id and positions.
    private func renameObjects(of table: NamedTable) throws {
        let oldRows = "_concord_rows_" + table.name
        let newRows = Metadata.rowsTable(table.id)
        try database.execute("DROP INDEX IF EXISTS \(quoteIdentifier(oldRows + "_key"))")
        try database.execute("ALTER TABLE \(quoteIdentifier(oldRows)) RENAME TO \(quoteIdentifier(newRows))")
        let stampColumns = try columnNames(of: newRows)
        for (k, column) in table.columns.enumerated() where stampColumns.contains("h_" + column) {
            try database.execute(
                "ALTER TABLE \(quoteIdentifier(newRows)) RENAME COLUMN \(quoteIdentifier("h_" + column)) "
                    + "TO \(Metadata.stampColumn(k))")
            try database.execute(
                "ALTER TABLE \(quoteIdentifier(newRows)) RENAME COLUMN \(quoteIdentifier("n_" + column)) "
                    + "TO \(Metadata.nodeColumn(k))")
        }
        try database.execute(
            "CREATE INDEX \(quoteIdentifier(Metadata.keyIndex(table.id))) ON \(quoteIdentifier(newRows))(kh)")

        let quoted = table.columns.map(quoteIdentifier)
        let positions = table.columns.indices
        try copy(
            "_concord_hidden_" + table.name, into: Metadata.hiddenTable(table.id),
            create:
                "(pk PRIMARY KEY NOT NULL\(positions.map { ", " + Metadata.valueColumn($0) }.joined())) WITHOUT ROWID",
            columns: ["pk"] + positions.map(Metadata.valueColumn), from: ["pk"] + quoted)
        let oldCounters = "_concord_counters_" + table.name
        if try exists(oldCounters) {
            let position =
                "CASE col " + positions.map { "WHEN \(sqlLiteral(table.columns[$0])) THEN \($0) " }.joined() + "END"
            try copy(
                oldCounters, into: Metadata.countersTable(table.id),
                create: """
                    (pk NOT NULL, col INTEGER NOT NULL, node INTEGER NOT NULL, cl INTEGER NOT NULL,
                     amount INTEGER NOT NULL, hlc INTEGER NOT NULL, PRIMARY KEY (pk, col, node)) WITHOUT ROWID
                    """, columns: ["pk", "col", "node", "cl", "amount", "hlc"],
                from: ["pk", position, "node", "cl", "amount", "hlc"], where: "\(position) IS NOT NULL")
        }
        let oldLogValues = "_concord_logvalues_" + table.name
        if try exists(oldLogValues) {
            let logged = try columnNames(of: oldLogValues)
            let joined = positions.filter { logged.contains("n_" + table.columns[$0]) }
            let names = joined.flatMap { [Metadata.oldValueColumn($0), Metadata.newValueColumn($0)] }
            try copy(
                oldLogValues, into: Metadata.logValuesTable(table.id),
                create: "(seq INTEGER PRIMARY KEY\(names.map { ", " + $0 }.joined()))",
                columns: ["seq"] + names,
                from: ["seq"]
                    + joined.flatMap {
                        [quoteIdentifier("o_" + table.columns[$0]), quoteIdentifier("n_" + table.columns[$0])]
                    })
        }
        for column in table.columns {
            try database.execute(
                "DROP INDEX IF EXISTS \(quoteIdentifier("_concord_index_" + table.name + "_" + column))")
        }
    }

    /// Makes `new` as `create` says and fills it from `old`, which is then dropped (with its indexes).
    private func copy(
        _ old: String, into new: String, create: String, columns: [String], from values: [String],
        where condition: String = "1"
    ) throws {
        try database.execute("CREATE TABLE \(quoteIdentifier(new)) \(create)")
        try database.execute(
            "INSERT INTO \(quoteIdentifier(new)) (\(columns.joined(separator: ", "))) "
                + "SELECT \(values.joined(separator: ", ")) FROM \(quoteIdentifier(old)) WHERE \(condition)")
        try database.execute("DROP TABLE \(quoteIdentifier(old))")
    }

    /// Parked and revived rows refer to their table by id, and parked rows keep the kind of their reason.
    private func rebuildParkedAndRevived() throws {
        try database.execute(
            """
            ALTER TABLE \(Metadata.parked) RENAME TO _concord_parked_layout4;
            ALTER TABLE \(Metadata.revived) RENAME TO _concord_revived_layout4;
            \(Metadata.parkedSQL)
            \(Metadata.revivedSQL)
            INSERT INTO \(Metadata.parked) (tbl, pk, kind, reason)
                SELECT t.id, p.pk, CASE WHEN p.reason LIKE 'missing parent%' THEN 1
                                        WHEN p.reason LIKE 'parent % is not visible' THEN 2
                                        WHEN p.reason LIKE 'on a cycle%' THEN 3 ELSE 4 END, p.reason
                FROM _concord_parked_layout4 AS p JOIN \(Metadata.tables) AS t ON t.name = p.tbl;
            INSERT INTO \(Metadata.revived) (tbl, pk)
                SELECT t.id, r.pk FROM _concord_revived_layout4 AS r JOIN \(Metadata.tables) AS t ON t.name = r.tbl;
            DROP TABLE _concord_parked_layout4;
            DROP TABLE _concord_revived_layout4;
            """)
    }

    /// Gives the replica a new node id (see the type's documentation).
    private func renewNodeID() throws {
        let current = try database.scalar(
            "SELECT n.id FROM \(Metadata.state) AS s JOIN \(Metadata.nodes) AS n ON n.idx = s.node")?.blobValue
        let node = replica.configuration.makeNodeID()
        guard node.bytes != current else { throw ReplicaError.sharedNodeID(node) }
        try database.execute("INSERT OR IGNORE INTO \(Metadata.nodes) (id) VALUES (?)", [.blob(node.bytes)])
        try database.execute(
            "UPDATE \(Metadata.state) SET node = (SELECT idx FROM \(Metadata.nodes) WHERE id = ?)",
            [.blob(node.bytes)])
    }

    /// Brings causal lengths an earlier build accepted from a peer down to ``Liveness/maxCausalLength``,
    /// so that no later delete or insert can overflow; every replica clamps them alike.
    private func clampCausalLengths(of table: SyncedTable) throws {
        let limit = Int64(Liveness.maxCausalLength)
        let clamp = "CASE WHEN cl % 2 = 0 THEN \(limit) ELSE \(limit - 1) END"
        try database.execute("UPDATE \(table.rowsTable) SET cl = \(clamp) WHERE cl < 0 OR cl > \(limit)")
        if !table.counterColumns.isEmpty {
            try database.execute("UPDATE \(table.countersTable) SET cl = \(clamp) WHERE cl < 0 OR cl > \(limit)")
        }
    }

    /// Registers an earlier build kept under keys that cannot sync (a number, left in a BLOB or untyped key
    /// column) never left this replica (the encoder refused them, and with them every changeset): drop them,
    /// and park the rows the table still shows, with the reason, so sync goes on for everything else.
    private func parkUnsyncableKeys(of table: SyncedTable) throws {
        let keys = try database.query(
            "SELECT pk, typeof(pk) FROM \(table.rowsTable) WHERE typeof(pk) NOT IN ('text', 'blob') ORDER BY ver")
        for row in keys {
            let key = row[0]
            try database.execute("DELETE FROM \(table.rowsTable) WHERE pk = ? AND typeof(pk) = ?", [key, row[1]])
            try database.execute("DELETE FROM \(table.hiddenTable) WHERE pk = ?", [key])
            if !table.counterColumns.isEmpty {
                try database.execute("DELETE FROM \(table.countersTable) WHERE pk = ?", [key])
            }
            let shown =
                try database.scalar(
                    "SELECT count(*) FROM \(table.qualifiedName) WHERE \(table.quotedKey) = ?", [key]) != .integer(0)
            try replica.unpark(RowRef(table: table.name, key: key))
            if shown {
                try replica.park(
                    RowRef(table: table.name, key: key), reason: .unsyncableKey(type: row[1].textValue ?? "?"))
            }
        }
    }
}

/// `text` as an SQL string literal, for the few statements that must spell a value out (never user data).
func sqlLiteral(_ text: String) -> String { "'" + doubling(UInt8(ascii: "'"), in: text) + "'" }
