/// The replica's conflict log: values of other devices that lost to a write of this replica that had
/// not seen them (``ConflictRule``), kept in `_concord_conflicts` for the app's ``ConflictRetention``.
///
/// The core decides what lost; this only stores it. An entry is keyed by the
/// row, the column and the losing stamp, so a changeset applied twice, or the
/// same value arriving through two peers, is listed once. And per winner, a
/// device's value is listed once, its newest: an older value of the same
/// device that arrives late (through a relay that lagged) had lost to that
/// device's own newer write first, which is no conflict. The log is local
/// knowledge: it is never exported, and two devices may list different
/// conflicts.
///
/// ```swift
/// let log = ConflictLog(database: database, nodes: nodes)
/// try log.record(table: 2, key: "r1", losses, at: now)
/// try log.prune(.default, now: now)
/// ```
struct ConflictLog {
    let database: Database
    let nodes: NodeDirectory

    /// Stores `losses` of the row `key` of table `table`; returns how many were new.
    func record(table: Int64, key: SQLiteValue, _ losses: [ConflictRule.Loss], at time: Int64) throws -> Int {
        var added = 0
        // Is this value, or a newer one of its device, already listed as lost to the same write?
        let listed = try database.cached(
            "SELECT 1 FROM \(Metadata.conflicts) WHERE tbl = ? AND pk = ? AND col = ? AND node = ? AND hlc >= ? "
                + "AND whlc = ? AND wnode = ? LIMIT 1")
        let insert = try database.cached(
            "INSERT OR IGNORE INTO \(Metadata.conflicts) "
                + "(tbl, pk, col, kind, value, hlc, node, whlc, wnode, wvalue, at) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        // The device's older values listed as lost to the same write lost to this one first.
        let superseded = try database.cached(
            "DELETE FROM \(Metadata.conflicts) WHERE tbl = ? AND pk = ? AND col = ? AND node = ? AND hlc < ? "
                + "AND whlc = ? AND wnode = ?")
        for loss in losses {
            let loser = SQLiteValue.integer(try nodes.indexRegistering(loss.loser.stamp.node))
            let winner = SQLiteValue.integer(try nodes.indexRegistering(loss.winner.node))
            let (column, loserClock) = (
                SQLiteValue.integer(Int64(loss.column)), SQLiteValue.integer(loss.loser.stamp.hlc.sqliteValue)
            )
            let winnerClock = SQLiteValue.integer(loss.winner.hlc.sqliteValue)
            let place = [SQLiteValue.integer(table), key, column, loser, loserClock, winnerClock, winner]
            guard try listed.all(place).isEmpty else { continue }
            do {
                try insert.run([
                    .integer(table), key, column, .integer(Int64(loss.kind.rawValue)), loss.loser.value, loserClock,
                    loser, winnerClock, winner, loss.winningValue ?? .null, .integer(time),
                ])
            } catch let error as SQLiteError where error.resultCode.primary == .tooBig {
                // The two values together pass SQLite's row limit (two of 500 MB): the loss is not listed.
                // Failing here instead stopped every sync of both devices, which then showed different values.
                continue
            }
            guard database.changes > 0 else { continue }
            added += 1
            try superseded.run(place)
        }
        return added
    }

    /// Drops entries older than the retention's age, then, per table, all but the newest `maxPerTable`.
    func prune(_ retention: ConflictRetention, now: Int64) throws {
        try database.execute(
            "DELETE FROM \(Metadata.conflicts) WHERE at < ?", [.integer(now &- retention.maxAge)])
        try database.execute(
            """
            DELETE FROM \(Metadata.conflicts) WHERE id IN (
                SELECT id FROM (
                    SELECT id, row_number() OVER (PARTITION BY tbl ORDER BY at DESC, id DESC) AS position
                    FROM \(Metadata.conflicts)
                ) WHERE position > ?
            )
            """, [.integer(Int64(retention.maxPerTable))])
    }
}

/// How long a replica keeps the values that lost to a concurrent write (see ``Replica/conflicts(table:key:)``).
///
/// Entries are dropped when newer ones are recorded: those older than
/// ``maxAge``, and in each table all but the newest ``maxPerTable``. Ages are
/// read from the replica's clock (``Replica/Configuration/clock``).
///
/// ```swift
/// var configuration = Replica.Configuration()
/// configuration.conflictRetention = ConflictRetention(maxAge: 7 * ConflictRetention.day, maxPerTable: 200)
/// ```
public struct ConflictRetention: Hashable, Sendable {
    /// The longest an entry is kept, in milliseconds.
    public var maxAge: Int64
    /// The most entries kept per table; the newest stay.
    public var maxPerTable: Int

    /// A retention of `maxAge` milliseconds and `maxPerTable` entries per table.
    public init(maxAge: Int64, maxPerTable: Int) {
        self.maxAge = max(0, maxAge)
        self.maxPerTable = max(0, maxPerTable)
    }

    /// One day in milliseconds.
    public static let day: Int64 = 86_400_000

    /// 30 days, at most 1,000 entries per table.
    public static let `default` = ConflictRetention(maxAge: 30 * day, maxPerTable: 1_000)
}

/// A value that lost to a concurrent write of this replica, side by side with the winner.
///
/// ```swift
/// for conflict in try replica.conflicts(table: "reminders") {
///     print(conflict.column, conflict.lost, "lost to", conflict.winner ?? "a delete")
/// }
/// ```
public struct Conflict: Hashable, Sendable, Encodable {
    /// How the value lost.
    public enum Kind: String, Hashable, Sendable, Encodable {
        /// To an edit of the same column (under the row policy, of the same row).
        case edit
        /// To a delete of the row; restoring it inserts the row again.
        case delete
    }

    /// The entry's id in this replica's conflict log, which ``Replica/restore(conflict:)`` takes.
    public var id: Int64
    /// The synced table.
    public var table: String
    /// The row's key.
    public var key: SQLiteValue
    /// The column whose value lost.
    public var column: String
    /// What it lost to.
    public var kind: Kind
    /// The value that lost.
    public var lost: SQLiteValue
    /// The stamp of the write that made it (its node is the device that wrote it).
    public var lostStamp: Stamp
    /// The winning value; `nil` when the row was deleted.
    public var winner: SQLiteValue?
    /// The stamp of the winning write.
    public var winnerStamp: Stamp
    /// When this replica recorded it, in Unix milliseconds of its clock.
    public var recordedAt: Int64

    private enum CodingKeys: String, CodingKey {
        case id, table, key, column, kind, lost, lostStamp, lostNode, winner, winnerStamp, winnerNode, recordedAt
    }

    /// Encodes values as SQL literals (`'text'`, `X'…'`, `NULL`), the key as ``JSONKey`` does, stamps as `milliseconds.counter`
    /// with the node id in hex beside them.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(table, forKey: .table)
        try container.encode(JSONKey(key), forKey: .key)
        try container.encode(column, forKey: .column)
        try container.encode(kind, forKey: .kind)
        try container.encode(lost.description, forKey: .lost)
        try container.encode(lostStamp.hlc.description, forKey: .lostStamp)
        try container.encode(lostStamp.node.description, forKey: .lostNode)
        try container.encode(winner?.description, forKey: .winner)
        try container.encode(winnerStamp.hlc.description, forKey: .winnerStamp)
        try container.encode(winnerStamp.node.description, forKey: .winnerNode)
        try container.encode(recordedAt, forKey: .recordedAt)
    }
}
