/// Names and DDL of the tables in which Concord keeps its registers.
///
/// Everything Concord stores lives in tables whose names start with
/// `_concord_`, next to the user's own tables in the same file, so a backup
/// or a copy of the file carries the replica whole. Names starting with
/// `_concord_` are Concord's: a user table by such a name cannot sync.
///
/// User names (tables, columns) appear only as *values* in metadata rows
/// (`_concord_tables`), never in the names of Concord's own objects: those
/// are made from the table's id and the columns' positions, so no user name,
/// however it is spelled, can collide with them — a column called `pk`, or
/// tables `a` and `a_rows`, sync like any other.
///
/// Per synced table with id `N` (its row in `_concord_tables`) there are:
/// - `_concord_N_rows`, one row per key, whose rowid `ver` is the local
///   version of the row's last change (every change gets its own, so the
///   table is in version order and `changes(since:)` reads only its tail),
///   then the key's hash `kh` (``KeyHash``, indexed by `_concord_N_rows_kh`:
///   how a key is found), the key `pk`, causal length `cl`, a base stamp
///   (`hlc`, `node`) shared by every register that has no stamp of its own,
///   the liveness stamp (`clh`, `cln`) when it differs from the base, and for
///   column-policy tables an optional stamp per column `k` (`hK`, `nK`: the
///   clock and the node index of the write that set column `k`), and `seen`:
///   for each register, the stamp its write saw (``ConflictRule``), packed by
///   `SeenStamps`; NULL when none saw anything of another device.
/// - `_concord_N_hidden`, the register values (`cK` for column `k`) of rows
///   that are not shown in the user table (deleted or parked rows); a shown
///   row's values are the user table's own.
/// - `_concord_N_counters`, for tables with `counter` columns: one
///   contribution per (key, column position, node).
/// - `_concord_N_logvalues`, for tables with value-merged columns: the old
///   (`oK`) and new (`vK`) values of each logged write of column `k`.
/// - `_concord_N_zeros`, for tables with untyped columns: an update that wrote
///   a real zero over a real zero logs both here, since SQL cannot tell
///   `0.0` from `-0.0` and the fold can.
/// - triggers `_concord_N_insert`, `_update`, `_delete` (capture), `_key`,
///   `_check_insert`, `_check_update` (guards), and indexes
///   `_concord_N_hidden_cK` / `_concord_N_fk_cK` on foreign-key columns.
///
/// Node ids are kept once, in `_concord_nodes`, and referred to by index;
/// index 0 with clock 0 stands for "no write yet".
///
/// Capture triggers write only to `_concord_log`: an append per write (table
/// id, key, operation, time of the write, changed columns), which costs the
/// app little. Concord folds the log into the registers, in write order,
/// before it exports, merges or checks anything.
enum Metadata {
    static let state = "_concord_state"
    static let nodes = "_concord_nodes"
    static let tables = "_concord_tables"
    static let peers = "_concord_peers"
    static let log = "_concord_log"
    /// The keys of rows being written, as the app's statement had them (see `CaptureTriggers+NumericKeys.swift`).
    static let pendingKeys = "_concord_keys"
    static let parked = "_concord_parked"
    static let revived = "_concord_revived"
    static let conflicts = "_concord_conflicts"
    static let readers = "_concord_readers"
    /// The versions a peer or caller can hold as a read position (``ReadPositions``).
    static let positions = "_concord_positions"
    /// The copy credits a file keeps while writes they cover wait in its log (``CopyCredits``).
    static let credits = "_concord_credits"
    static let prefix = "_concord_"

    /// The metadata layout this build reads and writes.
    ///
    /// Layout 5 names every per-table object by the table's id and its
    /// columns by position, records the file's identity and the kind of each
    /// parked row; layout 6 adds the ``RelayStore``; layout 7 the conflict
    /// log (`_concord_conflicts`), the `seen` column of every rows table,
    /// the time each peer was last read (`_concord_peers.at`), how far
    /// each peer has read this replica (`_concord_readers`), and the clock's
    /// reading when this replica last stamped a write of its own
    /// (`_concord_state.own`) as of its last export (`exported`); layout 8
    /// keeps the seen stamps of the registers merged in from other devices too; layout 9's delete
    /// triggers keep a re-inserted row's previous value-merged values for the fold to join with, and
    /// tell a stand-in from the app's own value by the log rather than by the parent's presence; layout 10
    /// records the schema version the synced tables were last swept for rows lost uncaptured at
    /// (`_concord_state.swept`, see ``Replica/logRowsLostUncaptured()``); layout 11's update triggers
    /// of tables of more than 63 synced columns log a mask with a bit for every column (``ChangeMask``);
    /// layout 12 keeps the keys of rows being written to a table with a TEXT key in ``pendingKeys``, for
    /// the capture triggers to read when SQLite hands them the key as a number, and logs the values an
    /// `INSERT OR REPLACE` replaced in a table with value-merged columns; layout 13 keeps the causal lengths,
    /// stamps, values and counter contributions of tables sync was disabled on, for enabling them again
    /// (``RetiredRows``); layout 14 looks for the rows an app's trigger deleted while Concord merged in the
    /// merge's own transaction (``Replica/logRowsDeletedWhileSilencing()``), so a file of this layout holds
    /// none left to look for when it is opened, and its delete triggers of tables with a TEXT key read the
    /// key back from the log row they write; layout 15's delete triggers keep, for a row whose column showed
    /// a conversion of what its writer wrote (`'007'` as 7 in an INTEGER column), the value as written that
    /// the row's hidden copy held; layout 16 keeps the credit a copy gives the original for the writes its log
    /// held (``CopyCredits``) until every one is folded, and its delete triggers of tables with value-merged
    /// columns end what an insert of the same key may replace (see `CaptureTriggers+Replace.swift`).
    /// Layout 17 never gives a conflict entry's id to another (`AUTOINCREMENT`): before, the id of the
    /// newest entry, once restored, went to the next loss, and `restore` of the id read earlier wrote that.
    /// Layout 18 keeps the versions it handed out as read positions (``ReadPositions``), so that a peer
    /// that read one this file never handed out tells it that it lost history (a backup restored over it).
    /// Layout 19's triggers name the synced table through an alias wherever they read it: in a trigger of a
    /// table named `new` (or `old`), the table's own name hid the row being written, and the trigger that
    /// keeps the row an `INSERT OR REPLACE` replaces kept another row's values.
    /// Layout 20's update triggers log the zeros of every column that keeps types in one statement, not one
    /// each: SQLite compiles every statement of a table's triggers into each UPDATE of it.
    /// ``MetadataMigration`` upgrades every earlier layout.
    static let layoutVersion: Int64 = 20

    static let createSQL = """
        CREATE TABLE \(state) (
            id INTEGER PRIMARY KEY CHECK (id = 0),
            layout INTEGER NOT NULL,
            hlc INTEGER NOT NULL,
            version INTEGER NOT NULL,
            node INTEGER NOT NULL,
            file TEXT,
            own INTEGER NOT NULL DEFAULT 0,
            exported INTEGER NOT NULL DEFAULT 0,
            swept INTEGER
        );
        CREATE TABLE \(nodes) (idx INTEGER PRIMARY KEY, id BLOB NOT NULL UNIQUE);
        CREATE TABLE \(tables) (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            key TEXT NOT NULL,
            columns TEXT NOT NULL,
            policy TEXT NOT NULL,
            merges TEXT NOT NULL DEFAULT '{}'
        );
        CREATE TABLE \(peers) (node BLOB PRIMARY KEY, version INTEGER NOT NULL, at INTEGER) WITHOUT ROWID;
        \(parkedSQL)
        \(conflictsSQL)
        \(readersSQL)
        \(revivedSQL)
        \(RelayStore.createSQL)
        CREATE TABLE \(log) (
            seq INTEGER PRIMARY KEY,
            tbl INTEGER NOT NULL,
            pk NOT NULL,
            op INTEGER NOT NULL,
            at REAL NOT NULL,
            mask INTEGER
        );
        \(pendingKeysSQL)
        \(RetiredRows.createSQL)
        \(CopyCredits.createSQL)
        \(ReadPositions.createSQL)
        """

    static let pendingKeysSQL =
        "CREATE TABLE IF NOT EXISTS \(pendingKeys) (seq INTEGER PRIMARY KEY, tbl INTEGER NOT NULL, pk NOT NULL);"

    static let parkedSQL = """
        CREATE TABLE \(parked) (
            tbl INTEGER NOT NULL, pk NOT NULL, kind INTEGER NOT NULL, reason TEXT NOT NULL, PRIMARY KEY (tbl, pk)
        ) WITHOUT ROWID;
        """

    /// Per peer, how far it has read this replica's changes (this replica's versions) and when (Unix ms
    /// of this replica's clock), as the transport reported it (``Replica/recordDelivery(to:upTo:)``).
    static let readersSQL = """
        CREATE TABLE IF NOT EXISTS \(readers) (
            node BLOB PRIMARY KEY, version INTEGER NOT NULL, at INTEGER NOT NULL
        ) WITHOUT ROWID;
        """

    /// The conflict log (``ConflictLog``): values of other devices that lost to a write of this replica
    /// that had not seen them, each with its winner and the time it was recorded (Unix ms). Local knowledge,
    /// never synced. `col` is the column's position, `kind` ``ConflictRule/Loss/Kind``; stamps as elsewhere
    /// (clock, node index); `wvalue` the winning value (NULL for a delete). An id is never given to
    /// another entry (`AUTOINCREMENT`, layout 17): `restore` takes an id the user read earlier.
    static let conflictsSQL = conflictsSQL(named: conflicts)

    /// ``conflictsSQL`` for a table named `name` (the upgrade to layout 17 builds the table anew).
    static func conflictsSQL(named name: String) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(name) (
            id INTEGER PRIMARY KEY AUTOINCREMENT, tbl INTEGER NOT NULL, pk NOT NULL, col INTEGER NOT NULL,
            kind INTEGER NOT NULL, value, hlc INTEGER NOT NULL, node INTEGER NOT NULL, whlc INTEGER NOT NULL,
            wnode INTEGER NOT NULL, wvalue, at INTEGER NOT NULL, UNIQUE (tbl, pk, col, hlc, node)
        );
        """
    }

    static let revivedSQL = """
        CREATE TABLE \(revived) (tbl INTEGER NOT NULL, pk NOT NULL, PRIMARY KEY (tbl, pk)) WITHOUT ROWID;
        """

    /// The name of a per-table object: `_concord_<id>_<suffix>`.
    static func object(_ table: Int64, _ suffix: String) -> String { prefix + String(table) + "_" + suffix }
    static func rowsTable(_ table: Int64) -> String { object(table, "rows") }
    static func hiddenTable(_ table: Int64) -> String { object(table, "hidden") }
    static func countersTable(_ table: Int64) -> String { object(table, "counters") }
    static func logValuesTable(_ table: Int64) -> String { object(table, "logvalues") }
    static func zerosTable(_ table: Int64) -> String { object(table, "zeros") }
    static func keyIndex(_ table: Int64) -> String { object(table, "rows_kh") }
    static func trigger(_ table: Int64, _ event: String) -> String { object(table, event) }
    /// Whether `name` is a capture trigger's (`_concord_<id>_insert`, `_update`, `_delete`, or one that keeps a key
    /// or a replaced row before such a write, `_preinsert`, `_preupdate`, `_predelete`, `_prereplace`), which Concord
    /// silences while it merges (see ``Replica/withoutCapture(_:)``).
    static func isCaptureTrigger(_ name: String) -> Bool {
        guard name.hasPrefix(prefix) else { return false }
        let rest = name.utf8.dropFirst(prefix.utf8.count)
        guard let underscore = rest.firstIndex(of: UInt8(ascii: "_")), underscore != rest.startIndex,
            rest[..<underscore].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return false }
        let event = String(decoding: rest[rest.index(after: underscore)...], as: UTF8.self)
        return ["insert", "update", "delete", "preinsert", "preupdate", "predelete", "prereplace"].contains(event)
    }
    /// The index on a foreign-key column of the hidden copies.
    static func hiddenIndex(_ table: Int64, column: Int) -> String { object(table, "hidden_c\(column)") }
    /// The empty index on the user table's synced columns that keeps incremental BLOB I/O from writing them
    /// (see ``CaptureTriggers/inPlaceWriteGuardSQL``).
    static func inPlaceWriteGuard(_ table: Int64) -> String { object(table, "inplace_guard") }
    /// The index Concord adds on a foreign-key column of the user table that has none.
    static func userIndex(_ table: Int64, column: Int) -> String { object(table, "fk_c\(column)") }
    /// Column `k`'s value in the hidden table.
    static func valueColumn(_ column: Int) -> String { "c\(column)" }
    /// Column `k`'s stamp clock and node index in the rows table.
    static func stampColumn(_ column: Int) -> String { "h\(column)" }
    static func nodeColumn(_ column: Int) -> String { "n\(column)" }
    /// Column `k`'s old and new values in the log-values table.
    static func oldValueColumn(_ column: Int) -> String { "o\(column)" }
    static func newValueColumn(_ column: Int) -> String { "v\(column)" }

    /// SQL for the current time as a Julian day, read from the connection's VFS.
    ///
    /// The capture triggers log this as it is: turning it into Unix
    /// milliseconds in SQL cost every update about 0.8k more instructions
    /// (of about 24k), so the fold does it instead (``unixMilliseconds(julianDay:)``).
    static let now = "julianday('now')"

    /// The Unix time in milliseconds of a Julian day that ``now`` produced.
    ///
    /// SQLite keeps `'now'` as whole milliseconds and divides by 86,400,000,
    /// so multiplying back is off by far less than half a millisecond, and
    /// rounding restores the exact value. A time outside what a clock can
    /// read (a log row written by hand) is clamped, never trapped on.
    ///
    /// ```swift
    /// Metadata.unixMilliseconds(julianDay: 2440587.5)   // 0
    /// ```
    /// The Julian day `'now'` reads at Unix time `unixMilliseconds` (the inverse of ``unixMilliseconds(julianDay:)``).
    static func julianDay(unixMilliseconds: Int64) -> Double {
        Double(unixMilliseconds + ReplicaVFS.unixEpochJulianMilliseconds) / 86_400_000
    }

    static func unixMilliseconds(julianDay: Double) -> Int64 {
        let milliseconds = (julianDay * 86_400_000).rounded()
        guard milliseconds.isFinite, abs(milliseconds) < 9.0e15 else {
            return milliseconds > 0 ? 9_000_000_000_000_000 : 0
        }
        return Int64(milliseconds) - ReplicaVFS.unixEpochJulianMilliseconds
    }

    /// Operation codes in `_concord_log.op`.
    enum Operation: Int64 {
        case insert = 1
        case update = 2
        case delete = 3
    }

    /// The `mask` of a logged delete that nothing captured (``Replica/logLostRow(_:of:log:)``): its row's
    /// values are not known (``LocalWrite/deleteUncaptured(forgetting:)``). A captured delete logs NULL, and an
    /// update never a negative mask.
    static let uncapturedMask: Int64 = -1
}
