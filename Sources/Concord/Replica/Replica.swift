@_spi(Testing) import ConcordCore
import Foundation

/// A SQLite database that replicates: it captures local writes, exports them
/// as changesets, and merges the changesets of other replicas.
///
/// The app keeps using its tables with plain SQL through any connection;
/// `Replica` is the door through which Concord itself enters: enabling sync
/// on tables, exporting ``changes(since:)``, applying changesets, and
/// checking that the user tables are exactly what the registers prescribe.
///
/// ```swift
/// let replica = try Replica(path: "app.sqlite")
/// try replica.enableSync(on: "reminders")
/// try replica.database.execute("UPDATE reminders SET done = 1 WHERE id = 'r1'")
/// let changes = try replica.changes(since: 0)
/// try otherReplica.apply(changes)
/// ```
public final class Replica {
    /// The connection Concord uses; the app may use it too.
    public let database: Database
    /// The clock, drift limit, merges and node-id source this replica was opened with.
    public let configuration: Configuration
    /// This replica's node id: the one its file holds now (a copy of the file takes a new one; see `checkIdentity()`).
    public internal(set) var nodeID: NodeID
    /// Synced tables by name, refreshed when sync is enabled.
    private(set) var syncedTables: [String: SyncedTable] = [:]
    /// Table names by their id in `_concord_tables`, as the capture log refers to them.
    private(set) var tableNames: [Int64: String] = [:]
    /// What each synced table's capture triggers compare and guard, by table name.
    private(set) var captureFacts: [String: TableInspector.CaptureFacts] = [:]
    /// The register store of each synced table, by name.
    private var stores: [String: RegisterStore] = [:]
    /// What inspecting the synced tables found (capture facts, foreign keys, decoded column lists), reused
    /// while the tables' text and declarations are unchanged (see ``InspectionCache``).
    private var inspections = InspectionCache()
    /// Foreign keys between synced tables, by child and by parent table.
    private var parentKeys: [String: [ForeignKey]] = [:]
    private var childKeys: [String: [ForeignKey]] = [:]
    /// Node ids by their index in `_concord_nodes`, shared with the register stores.
    let nodes: NodeDirectory
    /// The schema version and fingerprint Concord last checked the synced tables against (see ``checkSchemas()``).
    var checkedSchema: (version: Int64?, fingerprint: SQLiteName.Key)?
    /// Synced tables whose schema changed destructively, by name, with the refusal (see ``checkSchemas()``).
    var refusedTables: [String: ReplicaError] = [:]
    /// Set while ``checkSchemas()`` adopts changes, so the folds it runs do not check again.
    var isAdoptingSchemas = false
    /// `_concord_state.swept` as last read (see ``logRowsLostUncaptured()``).
    var sweptSchemaVersion: Int64?
    /// The rows an app trigger deleted while Concord merged, whose values were kept in their hidden tables
    /// (see ``keepCaughtRows(_:)``), until the merge's transaction logs their deletes.
    var caughtDeletes: [(table: SyncedTable, key: SQLiteValue)] = []
    /// Per synced table id, where its key and columns are in the rows SQLite's preupdate hook reads
    /// (``caughtPositions(of:)``); `nil` for a table whose rows it does not read whole.
    var caughtColumnPositions: [Int64: (key: Int, columns: [Int])?] = [:]
    /// The schema versions (`main`'s, `temp`'s) the catch triggers were last made for; `nil` when they
    /// must be looked at again.
    var catchTriggersMadeFor: [Int64?]?
    /// Set while an operation runs with the app's foreign-key enforcement still on, betting it will not
    /// write the user tables (see ``withForeignKeyEnforcementOffIfWriting(_:)``).
    var bettingOnNoUserWrites = false
    /// Told of each write a fold stamps, in stamping order (see ``FoldedWrite``); `nil` but in the simulator.
    @_spi(Simulation) public var foldObserver: ((FoldedWrite) -> Void)?

    /// Finalizes the stores' statements before the connection goes, so it closes at once.
    deinit { stores.removeAll() }

    /// How a replica reads time and makes its node id.
    public struct Configuration: Sendable {
        /// The physical clock behind every stamp (and behind SQL's `'now'` in capture triggers).
        public var clock: any PhysicalClock
        /// How far ahead a peer's stamps may be before its changeset is refused, in milliseconds.
        public var maxDrift: Int64
        /// Makes the node id of a newly created replica, and of a copy of one.
        public var makeNodeID: @Sendable () -> NodeID
        /// User-defined merges, by name, for columns declared `.custom(name)`.
        public var merges: [String: MergeFunction]
        /// What identifies the file a replica lives in, given its path: its device and inode by
        /// default. A copy of the file must get another identity (see `checkIdentity()`);
        /// a simulation gives a deterministic one, so that its files are the same bytes every run.
        public var fileIdentity: @Sendable (_ path: String) -> String? = Database.deviceAndInode(of:)
        /// How long values that lost to a concurrent write are kept in the conflict log (see
        /// ``Replica/conflicts(table:key:)``): 30 days and 1,000 per table by default.
        public var conflictRetention = ConflictRetention.default
        /// How many logged writes a fold reads, folds and trims at a time (``Replica/foldBatch`` by default).
        /// A simulator draws small ones, so that folds cross batch boundaries as an app's bulk import does.
        @_spi(Simulation) public var foldBatch = Replica.foldBatch
        /// Whether the values of rows an app trigger deletes while Concord merges are read with SQLite's
        /// preupdate hook where the library has it (the default), or with TEMP triggers, as where it has
        /// not (see ``DeletedRowCatcher``). The simulator draws it per device, so both ways run wherever
        /// it does.
        @_spi(Simulation) public var catchesWithPreupdateHook = true
        /// Wraps merge and visibility decisions to plant known bugs in the simulator's tests; none in an app.
        @_spi(Testing) public var interceptor: (any DecisionInterceptor)?
        /// The simulated disk the replica's files live on, for simulators and tests; `nil` (an app's
        /// case) for the file system.
        ///
        /// Setting a disk also sets ``fileIdentity`` to the disk's (a file's number on it, which a
        /// crash keeps and a copy changes); set `fileIdentity` afterwards to use another.
        ///
        /// ```swift
        /// var configuration = Replica.Configuration(clock: clock)
        /// configuration.disk = SimulatedDisk(name: "phone")
        /// let replica = try Replica(path: "/phone/app.sqlite", configuration: configuration)
        /// ```
        @_spi(Simulation) public var disk: SimulatedDisk? {
            didSet {
                if let disk { fileIdentity = { disk.fileIdentity(of: $0) } }
            }
        }

        /// A configuration; the defaults suit an app: the system clock, the default drift limit,
        /// no custom merges and random node ids.
        ///
        /// Merges are keyed by ``MergeFunction/name``; of two with the same name the last wins.
        public init(
            clock: any PhysicalClock = SystemClock(),
            maxDrift: Int64 = HybridLogicalClock.defaultMaxDrift,
            merges: [MergeFunction] = [],
            makeNodeID: @escaping @Sendable () -> NodeID = {
                var generator = SystemRandomNumberGenerator()
                return NodeID.random(using: &generator)
            }
        ) {
            self.clock = clock
            self.maxDrift = maxDrift
            self.makeNodeID = makeNodeID
            self.merges = Dictionary(merges.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
        }
    }

    /// Opens the database at `path` as a replica, creating Concord's metadata when it has none.
    ///
    /// The connection is opened through a ``ReplicaVFS``, so statement journals
    /// stay in memory and, when `configuration` has a clock other than the
    /// system's, SQL's `'now'` reads that clock; on `configuration.disk` when it names one.
    ///
    /// - Parameters:
    ///   - path: the database file; `:memory:` for an in-memory replica.
    ///   - configuration: the clock, drift limit, merges and node ids the replica uses.
    ///   - create: when `false`, a missing file or a database without metadata is an
    ///     error (``ReplicaError/notAReplica(path:)`` for the latter) and nothing is written.
    public convenience init(path: String, configuration: Configuration = Configuration(), create: Bool = true) throws {
        let clock = configuration.clock
        let readings: (@Sendable () -> Int64)? = clock is SystemClock ? nil : { @Sendable in clock.unixMilliseconds() }
        let vfs =
            configuration.disk.map { ReplicaVFS(disk: $0, unixMilliseconds: readings) }
            ?? ReplicaVFS(unixMilliseconds: readings)
        let database = try Database(path: path, mode: create ? .readWriteCreate : .readWrite, vfs: vfs)
        try self.init(database: database, configuration: configuration, create: create)
    }

    /// An in-memory replica, for tests and experiments.
    public static func inMemory(configuration: Configuration = Configuration()) throws -> Replica {
        try Replica(path: ":memory:", configuration: configuration)
    }

    /// Makes a replica of an open connection (whose VFS should read `configuration.clock`).
    ///
    /// A capture trigger makes every write to a synced table keep a statement
    /// journal, which SQLite moves to a temporary file once it outgrows 64 KiB,
    /// making every later write of the transaction cost system calls. A
    /// connection opened with a ``ReplicaVFS`` keeps that file in memory; any
    /// other connection is set to keep temporary data in memory (`PRAGMA
    /// temp_store = MEMORY`), which costs more per write but never touches
    /// the disk. Apps writing synced tables through their own connections may
    /// want either.
    ///
    /// Opening checkpoints a write-ahead log left by a crash, so the commits
    /// that survived it cannot be lost to a torn write of the next one (see
    /// `checkpointWriteAheadLog(_:)`), upgrades metadata of an earlier layout
    /// (`MetadataMigration`), and a file that is a copy of another replica's (a
    /// file copy, a restored backup, `VACUUM INTO`) takes a node id of its own
    /// before anything is stamped.
    public init(database: Database, configuration: Configuration = Configuration(), create: Bool = true) throws {
        try Self.requireSupportedSQLite()
        self.database = database
        self.configuration = configuration
        nodes = NodeDirectory(database: database)
        nodeID = NodeID(bytes: Array(repeating: 0, count: NodeID.byteCount))!
        // While merging: the capture triggers' log writes, and the app's own triggers' inserts and updates
        // of synced rows (see ``withoutCapture(_:)``).
        database.connection.silencer.silences = { [weak self] trigger, table in
            Metadata.isCaptureTrigger(trigger) || self?.syncedTable(named: table) != nil
        }
        database.connection.silencer.watchesDeletes = { [weak self] trigger, table in
            !Metadata.isCaptureTrigger(trigger) && self?.syncedTable(named: table) != nil
        }
        if database.vfs == nil { try database.execute("PRAGMA temp_store = MEMORY") }
        // Before anything is written: a file with two names keeps a journal beside each (see the error).
        if configuration.disk == nil, let path = database.filePath, let links = Database.linkCount(of: path), links > 1
        {
            throw ReplicaError.hardLinked(path: path, links: links)
        }
        try Self.checkpointWriteAheadLog(database)
        let exists =
            try database.scalar(
                "SELECT count(*) FROM sqlite_schema WHERE name = ?", [.text(Metadata.state)]) != .integer(0)
        if !exists {
            guard create else { throw ReplicaError.notAReplica(path: database.path) }
            try Self.requireUTF8(database)
            try database.transaction {
                try database.execute(Metadata.createSQL)
                try database.execute(
                    "INSERT INTO \(Metadata.nodes) (idx, id) VALUES (1, ?)",
                    [.blob(configuration.makeNodeID().bytes)])
                try database.execute(
                    "INSERT INTO \(Metadata.state) (id, layout, hlc, version, node, file) VALUES (0, ?, 0, 0, 1, ?)",
                    [.integer(Metadata.layoutVersion), fileIdentity.map { .text($0) } ?? .null])
                try ReadPositions(database: database).start(at: 0)
            }
        }
        let layout = try database.scalar("SELECT layout FROM \(Metadata.state)")?.integerValue ?? 0
        if layout != Metadata.layoutVersion {
            try MetadataMigration(database: database, replica: self).upgrade(from: layout)
        }
        try refreshNodeID()
        try loadSyncedTables()
        // A copy takes its own node id now, and keeps a credit to the original for what its log holds.
        try checkIdentity()
        if !database.inTransaction { try database.makeAffinityTable() }
    }

    /// The oldest SQLite Concord works with, as `sqlite3_libversion_number()` gives it, and as text.
    static let oldestSQLite = (number: 3_035_000, text: "3.35.0")

    /// Refuses an SQLite older than ``oldestSQLite``, before the replica reads or writes the file.
    ///
    /// Why: Concord's metadata uses `RETURNING` and `ALTER TABLE … DROP COLUMN` (3.35) and names
    /// `sqlite_schema` (3.33); on an older library those statements fail as syntax errors deep inside an
    /// operation, some in the middle of upgrading a file's metadata. (Its tests run on 3.40.1.)
    ///
    /// ```swift
    /// try Replica.requireSupportedSQLite(number: 3_031_001, text: "3.31.1")   // throws unsupportedSQLite
    /// ```
    static func requireSupportedSQLite(
        number: Int = Database.libraryVersionNumber, text: String = Database.libraryVersion
    ) throws {
        guard number >= oldestSQLite.number else {
            throw ReplicaError.unsupportedSQLite(found: text, oldest: oldestSQLite.text)
        }
    }

    /// Moves every commit a write-ahead log holds into the database file and empties the log, before
    /// anything is written (a no-op outside WAL mode, inside the caller's transaction, and for what
    /// another connection's reading or writing holds back).
    ///
    /// After a power loss the log may end mid-sector: under `synchronous = FULL` SQLite pads a commit
    /// with copies of its last frame up to a sector boundary, but writes the last copy's tail after
    /// the sync, and a power loss can take that tail. Recovery then ends the log at the commit
    /// frame, and SQLite appends the next transaction right after it, in the sector holding the
    /// commit frame's end. On a disk that does not promise power-safe overwrites a second power loss
    /// tearing that write may garble the whole sector, and recovery then drops the acknowledged
    /// commit. Once the log is checkpointed (the database file synced) and truncated, the next
    /// transaction starts a new log, and no write can reach a sector holding a commit.
    ///
    /// It does not wait for another connection's lock (a truncating checkpoint would, for the whole busy
    /// timeout): what the lock holds back is left for the next open, and the operation that opened the
    /// replica waits for the lock itself, once.
    static func checkpointWriteAheadLog(_ database: Database) throws {
        guard !database.inTransaction else { return }
        do {
            try database.withoutWaitingForLocks {
                try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                // A write-ahead log that a power loss kept beside a header it never switched to WAL put this
                // connection in WAL mode, and the checkpoint just emptied that log: connections opened next see
                // a rollback header and no log, use a rollback journal, and every commit of theirs waits for
                // ever on the SHARED lock a WAL connection keeps (the app's writes failed with "database is
                // locked", power-loss seed 23000109). Setting the mode again writes the header WAL needs.
                if let header = database.fileHeader(), header[18] == 1,
                    try database.scalar("PRAGMA journal_mode") == "wal"
                {
                    try database.execute("PRAGMA journal_mode = DELETE")
                    try database.execute("PRAGMA journal_mode = WAL")
                }
            }
        } catch let error as SQLiteError where [.busy, .locked].contains(error.resultCode.primary) {
            // Another connection holds the file (outside WAL mode, even reading it needs the lock).
        }
    }

    /// The identity of the file this replica is read from now (`nil` in memory).
    var fileIdentity: String? { database.filePath.flatMap(configuration.fileIdentity) }

    /// Refuses a database whose text encoding is not UTF-8.
    ///
    /// SQLite converts text between encodings, and text that is not valid
    /// UTF-16 (or not valid UTF-8, on the way in) does not survive that; a
    /// replica carries text byte for byte, so it needs the encoding changesets use.
    static func requireUTF8(_ database: Database) throws {
        let encoding = try database.scalar("PRAGMA encoding")?.textValue ?? "UTF-8"
        guard encoding == "UTF-8" else { throw ReplicaError.unsupportedEncoding(encoding) }
    }

    /// The local version: every register change this replica stores gets a higher one.
    public var version: Int64 {
        get throws { try database.scalar("SELECT version FROM \(Metadata.state)")?.integerValue ?? 0 }
    }

    /// The last clock reading this replica issued or received.
    public var clock: HybridLogicalClock {
        get throws {
            let raw = try database.scalar("SELECT hlc FROM \(Metadata.state)")?.integerValue ?? 0
            return HybridLogicalClock(last: HLCTimestamp(sqliteValue: raw), maxDrift: configuration.maxDrift)
        }
    }

    /// The synced tables, in name order: sorted when the metadata is read (``loadSyncedTables()``),
    /// not on every call, since each fold and export asks for them.
    ///
    /// They are what this replica read when it last looked at the file (each fold, export, apply, status
    /// and check looks first): a table another process enabled, or migrated, shows after the next look.
    public private(set) var tables: [SyncedTable] = []

    /// Reads the node id the file holds now (another process may have given it a new one).
    func refreshNodeID() throws {
        let index = try database.scalar("SELECT node FROM \(Metadata.state)")?.integerValue ?? 0
        guard let node = try node(at: index) else {
            throw ReplicaError.damagedMetadata("the replica's own node id is missing")
        }
        nodeID = node
    }

    func loadSyncedTables() throws {
        syncedTables = [:]
        tables = []
        tableNames = [:]
        stores = [:]
        for row in try database.query(
            "SELECT id, name, key, columns, policy, merges FROM \(Metadata.tables) ORDER BY id")
        {
            guard let id = row[0].integerValue, let name = row[1].textValue, let key = row[2].textValue,
                let columnList = row[3].textValue, let policyName = row[4].textValue,
                let mergeList = row[5].textValue, let policy = TablePolicy(rawValue: policyName)
            else { continue }
            let columns = inspections.columns(columnList)
            let merges = inspections.merges(mergeList)
            let table = SyncedTable(
                id: id,
                schema: TableSchema(
                    name: name, key: key, columns: columns, policy: policy,
                    merges: columns.map { merges[$0] ?? .lww }))
            syncedTables[name] = table
            tableNames[id] = name
        }
        tables = syncedTables.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.compactMap {
            syncedTables[$0]
        }
        try catchDeletedRows()
        parentKeys = [:]
        childKeys = [:]
        captureFacts = [:]
        forgetSchemaCheck()
        let inspector = TableInspector(database)
        guard !tables.isEmpty else { return }
        let schema = try InspectionCache.fingerprint(in: database)
        for table in tables {
            captureFacts[table.name] = try inspections.captureFacts(of: table, schema: schema, inspector: inspector)
        }
        let keys = try inspections.foreignKeys(of: tables, schema: schema) {
            // A key a migration added onto a table that does not sync refuses its table (see `checkSchemas`);
            // the table's other keys go on hiding and showing its rows.
            try tables.flatMap {
                try inspector.foreignKeys(of: $0, synced: syncedTables, skippingUnsyncable: true)
            }
        }
        for key in keys {
            parentKeys[key.child, default: []].append(key)
            childKeys[key.parent, default: []].append(key)
        }
    }

    /// `table`'s capture facts as ``loadSyncedTables()`` finds them: inspected, or kept from the last
    /// inspection while the schema is unchanged (see ``InspectionCache``).
    func inspectedFacts(of table: SyncedTable) throws -> TableInspector.CaptureFacts {
        try inspections.captureFacts(
            of: table, schema: InspectionCache.fingerprint(in: database), inspector: TableInspector(database))
    }

    /// The synced table SQLite takes `name` for (ASCII letters in any case, other bytes exactly).
    func syncedTable(named name: String) -> SyncedTable? {
        if let table = syncedTables[name], table.name.utf8.elementsEqual(name.utf8) { return table }
        return tables.first { SQLiteName.same($0.name, name) }
    }

    /// The foreign keys `table` holds, in declaration order.
    func parents(of table: String) -> [ForeignKey] { parentKeys[table] ?? [] }

    /// The foreign keys that reference `table`.
    func children(of table: String) -> [ForeignKey] { childKeys[table] ?? [] }

    /// Whether `table` takes part in any foreign key, as child or parent.
    func hasRelations(_ table: String) -> Bool { parentKeys[table] != nil || childKeys[table] != nil }

    /// Keys of the rows that reference `parent` through `key`, shown or hidden, in key order.
    func childKeys(of parent: RowRef, through key: ForeignKey) throws -> [SQLiteValue] {
        guard let child = syncedTables[key.child] else { return [] }
        let rows = try store(child).keys(where: key.column, isOneOf: try childValues(naming: parent.key, through: key))
        return try Set(rows.filter { try parentKey(of: $0.value, through: key) == parent.key }.map(\.key)).sorted()
    }

    /// Keys of the rows whose `SET DEFAULT` stand-in through `key` may name the row its default names: the
    /// parked rows of the child table, and those showing the default. They show or park as that row does.
    func keysOnDefault(through key: ForeignKey) throws -> [SQLiteValue] {
        guard let child = syncedTables[key.child], child.columns.indices.contains(key.column) else { return [] }
        let parked = try database.query(
            "SELECT pk FROM \(Metadata.parked) WHERE tbl = ?", [.integer(child.id)]
        ).map { $0[0] }
        let showing = try database.query(
            "SELECT \(child.quotedKey) FROM \(child.qualifiedName) WHERE \(child.quotedColumns[key.column]) IS ?",
            [key.defaultValue]
        ).map { $0[0] }
        return Set(parked + showing).sorted()
    }

    /// The parent key a child's `value` names through `key`, as this replica's SQLite compares them.
    ///
    /// ``ForeignKey/parentKey(of:)`` gives the rule; a real is printed by SQLite itself, as its
    /// foreign-key check prints it. The check compares what the child's column shows, so a value
    /// written under another type (`'007'`, kept as written; see ``RegisterStore/conversions(of:)``)
    /// names the key its column converts it to.
    func parentKey(of written: SQLiteValue, through key: ForeignKey) throws -> SQLiteValue {
        var value = written
        if let affinities = captureFacts[key.child]?.affinities, affinities.indices.contains(key.column),
            affinities[key.column].mayConvert(value)
        {
            value = try database.stored(value, as: affinities[key.column])
        }
        guard key.parentKeyIsText, case .real = value else { return key.parentKey(of: value) }
        return try database.stored(value, as: .text)
    }

    /// Every value a child could hold that names `parentKey` through `key`: the key itself and, for a
    /// TEXT key that a number prints as, that integer or real.
    private func childValues(naming parentKey: SQLiteValue, through key: ForeignKey) throws -> [SQLiteValue] {
        guard key.parentKeyIsText, let text = parentKey.textValue else { return [parentKey] }
        var values = [parentKey]
        if let integer = Int64(text), String(integer) == text { values.append(.integer(integer)) }
        if let real = Double(text), try self.parentKey(of: .real(real), through: key) == parentKey {
            values.append(.real(real))
        }
        return values
    }

    /// The id of a synced table, as metadata rows refer to it.
    private func id(of table: String) -> Int64 { syncedTables[table]?.id ?? 0 }

    /// Records why an alive row is not shown.
    func park(_ row: RowRef, reason: ParkReason) throws {
        try RowMarks(database: database).park(table: id(of: row.table), key: row.key, reason: reason)
    }

    /// Whether rows of `table` can be brought back by a child (it is the parent of a RESTRICT or NO ACTION key).
    func isRevivable(_ table: String) -> Bool { children(of: table).contains { $0.action.revivesParent } }

    /// Records whether a row of a revivable table is shown though deleted (brought back by a child).
    func markRevived(_ row: RowRef, _ revived: Bool) throws {
        try RowMarks(database: database).markRevived(table: id(of: row.table), key: row.key, revived)
    }

    /// The rows of `table` shown only because a child brought them back, in key order.
    func revivedKeys(in table: String) throws -> [SQLiteValue] {
        try database.query("SELECT pk FROM \(Metadata.revived) WHERE tbl = ? ORDER BY pk", [.integer(id(of: table))])
            .map {
                $0[0]
            }
    }

    /// Whether `row`, deleted, is shown because a child brought it back (see ``markRevived(_:_:)``).
    func isShownRevived(_ row: RowRef) throws -> Bool {
        guard isRevivable(row.table) else { return false }
        return try database.cached("SELECT EXISTS (SELECT 1 FROM \(Metadata.revived) WHERE tbl = ? AND pk = ?)")
            .all([.integer(id(of: row.table)), row.key]).first?.first == .integer(1)
    }

    /// Forgets a row's parking, once it is shown or deleted.
    func unpark(_ row: RowRef) throws {
        try RowMarks(database: database).unpark(table: id(of: row.table), key: row.key)
    }

    /// SQLite's message when `row` is parked because its values break a constraint of its table.
    func constraintParking(_ row: RowRef) throws -> String? {
        try database.scalar(
            "SELECT reason FROM \(Metadata.parked) WHERE tbl = ? AND pk = ? AND kind = ?",
            [.integer(id(of: row.table)), row.key, .integer(ParkReason.constraint("").kind)])?.textValue
            .map(ParkReason.constraintMessage(stored:))
    }

    /// Rows of `tables` parked because the app's schema refused to show them for a reason other rows may
    /// lift, in table id and key order: a trigger's refusal (`RAISE(ABORT)`, `RAISE(IGNORE)`), a UNIQUE
    /// index of another table a trigger writes. Not a CHECK, NOT NULL or STRICT type constraint, which reads
    /// the row's own values alone; not a row of a table refused for a schema change, which waits untouched.
    ///
    /// Why: such a refusal depends on what other rows hold ("at most 2 items", "a tag name is used once"),
    /// so a row parked for it may show once the app writes those rows; it is tried again after each fold
    /// and apply that writes its table (see ``Reprojection/reproject(_:retrying:)``). Before, it stayed
    /// hidden until its own registers changed, for good on a device whose app never wrote it again.
    func rowsParkedByOthers(in tables: Set<String>) throws -> [RowRef] {
        guard !tables.isEmpty else { return [] }
        return try database.query(
            "SELECT tbl, pk, reason FROM \(Metadata.parked) WHERE kind = ? ORDER BY tbl, pk",
            [.integer(ParkReason.constraint("").kind)]
        ).compactMap { row -> RowRef? in
            guard let name = row[0].integerValue.flatMap({ tableNames[$0] }), tables.contains(name),
                !isRefused(name), let stored = row[2].textValue
            else { return nil }
            let message = ParkReason.constraintMessage(stored: stored)
            let ownValues = ["CHECK constraint failed", "NOT NULL constraint failed", "cannot store "]
            if ownValues.contains(where: message.hasPrefix) { return nil }
            return RowRef(table: name, key: row[1])
        }
    }

    /// The parked rows of `table` with their reasons' kinds and texts, in key order.
    func parkedRows(of table: SyncedTable) throws -> [(key: SQLiteValue, kind: Int64, reason: String)] {
        try database.query(
            "SELECT pk, kind, reason FROM \(Metadata.parked) WHERE tbl = ? ORDER BY pk",
            [.integer(table.id)]
        ).map { ($0[0], $0[1].integerValue ?? 0, $0[2].textValue ?? "") }
    }

    /// The register store of a synced table.
    func store(_ table: SyncedTable) -> RegisterStore {
        if let store = stores[table.name] { return store }
        let store = RegisterStore(
            table: table, database: database, nodes: nodes, affinities: captureFacts[table.name]?.affinities,
            defaults: captureFacts[table.name]?.defaults, volatileDefaults: captureFacts[table.name]?.volatileDefaults,
            isRevivable: isRevivable(table.name))
        stores[table.name] = store
        return store
    }

    // MARK: Node ids

    /// The node id stored under `index` (0 means "no write").
    func node(at index: Int64) throws -> NodeID? { try nodes.node(at: index) }

    /// The index of `node` in `_concord_nodes`, adding the node on first sight.
    func indexRegistering(_ node: NodeID) throws -> Int64 { try nodes.indexRegistering(node) }

    /// Forgets cached node indexes: after a rollback may have undone new ones, and as every operation
    /// starts.
    ///
    /// Why: a rollback Concord does not see (the app's own transaction around an apply, a backup restored
    /// over the open file) can undo a node the cache still maps to an index; the next apply stored a
    /// peer's stamps under an index the file no longer held, and exported its values as NULL. An operation
    /// reads each index it needs again, once.
    func forgetNodeCache() { nodes.forget() }
}

/// The JSON forms of the column list and merges stored in `_concord_tables`.
enum ColumnList {
    static func encode(_ columns: [String]) -> String {
        (try? JSONEncoder().encode(columns)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }

    static func decode(_ text: String) -> [String] {
        (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }

    /// `{"column": "merge"}` for the columns that do not use `lww`, keys sorted.
    static func encodeMerges(_ merges: [String: ColumnMerge]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(merges.mapValues(\.name))).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    static func decodeMerges(_ text: String) -> [String: ColumnMerge] {
        ((try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))) ?? [:]).mapValues(
            ColumnMerge.init(name:))
    }
}
