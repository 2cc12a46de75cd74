/// Names and DDL of the tables in which Concord keeps its registers.
///
/// Everything Concord stores lives in tables whose names start with
/// `_concord_`, next to the user's own tables in the same file, so a backup
/// or a copy of the file carries the replica whole.
///
/// Per synced table `T` there are two:
/// - `_concord_rows_T`, one row per key, whose rowid `ver` is the local
///   version of the row's last change (every change gets its own, so the
///   table is in version order and `changes(since:)` reads only its tail),
///   then the key's hash `kh` (``KeyHash``, indexed: how a key is found), the
///   key `pk`, causal length `cl`, a base stamp (`hlc`, `node`) shared by
///   every register that has no stamp of its own, the liveness stamp (`clh`,
///   `cln`) when it differs from the base, and for column-policy tables an
///   optional per-column stamp (`h_<col>`, `n_<col>`). A freshly inserted row
///   therefore costs one small metadata row, not one per column, and the key
///   is stored once more, not twice.
/// - `_concord_hidden_T`, the register values of rows that are not shown in
///   `T` (deleted rows); a shown row's values are the user table's own.
///
/// Node ids are kept once, in `_concord_nodes`, and referred to by index;
/// index 0 with clock 0 stands for "no write yet".
///
/// Capture triggers write only to `_concord_log`: an append per write (table,
/// key, operation, time of the write, changed columns), which costs the app
/// little. Concord folds the log into the registers, in write order, before
/// it exports, merges or checks anything.
enum Metadata {
    static let state = "_concord_state"
    static let nodes = "_concord_nodes"
    static let tables = "_concord_tables"
    static let peers = "_concord_peers"
    static let log = "_concord_log"
    static let parked = "_concord_parked"
    static let revived = "_concord_revived"
    static let prefix = "_concord_"

    /// The metadata layout this build reads and writes.
    ///
    /// Layout 4 logs the time of a write as a Julian day and an update that
    /// changed nothing with mask 0; layout 3 differed only in those, so a
    /// replica of layout 3 is upgraded when opened (see ``upgradeSQL``).
    static let layoutVersion: Int64 = 4

    /// The older layout this build upgrades in place.
    static let upgradableLayout: Int64 = 3

    /// Rewrites the times a layout-3 log holds (Unix milliseconds) as Julian days; the triggers are made again separately.
    static let upgradeSQL = """
        UPDATE \(log) SET at = at / 86400000.0 + 2440587.5;
        UPDATE \(state) SET layout = \(layoutVersion);
        """

    static let createSQL = """
        CREATE TABLE \(state) (
            id INTEGER PRIMARY KEY CHECK (id = 0),
            layout INTEGER NOT NULL,
            hlc INTEGER NOT NULL,
            version INTEGER NOT NULL,
            node INTEGER NOT NULL
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
        CREATE TABLE \(peers) (node BLOB PRIMARY KEY, version INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE \(parked) (
            tbl TEXT NOT NULL, pk NOT NULL, reason TEXT NOT NULL, PRIMARY KEY (tbl, pk)
        ) WITHOUT ROWID;
        CREATE TABLE \(revived) (tbl TEXT NOT NULL, pk NOT NULL, PRIMARY KEY (tbl, pk)) WITHOUT ROWID;
        CREATE TABLE \(log) (
            seq INTEGER PRIMARY KEY,
            tbl INTEGER NOT NULL,
            pk NOT NULL,
            op INTEGER NOT NULL,
            at REAL NOT NULL,
            mask INTEGER
        );
        """

    static func rowsTable(_ table: String) -> String { prefix + "rows_" + table }
    static func hiddenTable(_ table: String) -> String { prefix + "hidden_" + table }
    static func countersTable(_ table: String) -> String { prefix + "counters_" + table }
    static func logValuesTable(_ table: String) -> String { prefix + "logvalues_" + table }
    static func keyIndex(_ table: String) -> String { prefix + "rows_" + table + "_key" }
    static func trigger(_ table: String, _ event: String) -> String { prefix + table + "_" + event }
    static func stampColumn(_ column: String) -> String { "h_" + column }
    static func nodeColumn(_ column: String) -> String { "n_" + column }

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
    /// rounding restores the exact value.
    ///
    /// ```swift
    /// Metadata.unixMilliseconds(julianDay: 2440587.5)   // 0
    /// ```
    static func unixMilliseconds(julianDay: Double) -> Int64 {
        Int64((julianDay * 86_400_000).rounded()) - ReplicaVFS.unixEpochJulianMilliseconds
    }

    /// Operation codes in `_concord_log.op`.
    enum Operation: Int64 {
        case insert = 1, update = 2, delete = 3
    }

    /// Columns past this position share the last bit of an update's change mask.
    static let maskBits = 62
}
