import ConcordCore

/// Whose counter changes a copied file's capture log held: the original replica's, at the clock the copy
/// was made with.
///
/// Why: Concord stamps captured writes at the next fold, so a file copied
/// between an app's write and that fold (a backup taken, a file copied to a
/// new device) carries the write unstamped, and both files fold it. For a
/// last-writer-wins column that is harmless: both stamp the same value. A
/// counter, though, would take the increment twice, once as each device's
/// contribution, and once they sync every device would count it twice. So the
/// copy, which notices it is one before it stamps anything, folds what it
/// found waiting with its counter changes credited to the original node, at
/// the original's clock as the file holds it: no stamp the original ever
/// issues after the copy is lower. When the original folds the same writes
/// (or more), its contribution is newer and replaces the credited one, so the
/// increment counts once; when the original never syncs again (a phone
/// restored from its backup and retired), the credited contribution is the
/// increment, and it is not lost. The counter's register takes the credited
/// stamp too, as the original's write; every other register of those writes
/// is the copy's own write, stamped under its new node id.
///
/// The credit is kept in the file (`_concord_credits`), with the last log
/// position it covers, until every write it covers is folded: writes of a
/// table refused for a destructive schema change wait in the log, and are
/// folded with the credit once the change is undone, however many folds and
/// opens later.
///
/// Limits: a decrement credited at the very stamp of the original's last
/// contribution to that counter ties with it and loses (for good if the
/// original never syncs); writes an app made to the copy before Concord first
/// opened it cannot be told from the original's, are credited alike, and are
/// lost when the original's next change of that counter arrives; two copies
/// taken at different moments before the original folds credit different
/// amounts at one stamp, and the larger is kept; and if the original itself
/// then loses the write (a power failure before its disk had it, which a copy
/// read from its cache can survive), the original's next change to that
/// counter may replace the credit without it.
///
/// ```swift
/// // cp phone.sqlite tablet.sqlite, with `likes = likes + 1` not folded yet
/// let tablet = try Replica(path: "tablet.sqlite")   // folds it as the phone's +1
/// ```
struct CopyCredit: Equatable {
    /// The node id the file wrote under before it was copied.
    let original: NodeID
    /// The file's clock when the copy noticed it was one: at least every stamp the original had issued.
    let hlc: HLCTimestamp
    /// The last capture-log position the credit covers: the log's last write when the copy noticed it.
    let upTo: Int64

    /// The stamp of the contributions credited to the original.
    var stamp: Stamp { Stamp(hlc: hlc, node: original) }
}

/// The copy credits a file keeps (`_concord_credits`), oldest first: each covers the log positions above the
/// previous one's, up to its own.
///
/// Why more than one: a copy of a copy that still holds writes its original never folded (a table refused
/// for a schema change) credits those to the first original, and the writes made since to the second.
struct CopyCredits {
    private(set) var credits: [CopyCredit]

    static let createSQL = """
        CREATE TABLE IF NOT EXISTS \(Metadata.credits) (
            upto INTEGER PRIMARY KEY, node INTEGER NOT NULL, hlc INTEGER NOT NULL
        );
        """

    /// The credits `replica`'s file keeps (none, nearly always: one indexed read of an empty table).
    init(of replica: Replica) throws {
        credits = []
        for row in try replica.database.cached("SELECT upto, node, hlc FROM \(Metadata.credits) ORDER BY upto").all([])
        {
            guard let index = row[1].integerValue, let original = try replica.node(at: index) else {
                throw ReplicaError.damagedMetadata("a copy credit names a node id the replica does not know")
            }
            credits.append(
                CopyCredit(
                    original: original, hlc: HLCTimestamp(sqliteValue: row[2].integerValue ?? 0),
                    upTo: row[0].integerValue ?? 0))
        }
    }

    /// The credit a logged write at `position` is folded under, if any.
    func credit(at position: Int64) -> CopyCredit? { credits.first { position <= $0.upTo } }

    /// Keeps a new credit for every write the log holds now, in the caller's transaction.
    ///
    /// Writes an older credit covers keep it: they were the earlier original's (a copy of a copy made before
    /// the first copy's log grew keeps only the first credit).
    static func record(_ credit: CopyCredit, in replica: Replica) throws {
        try replica.database.execute(
            "INSERT OR IGNORE INTO \(Metadata.credits) (upto, node, hlc) VALUES (?, ?, ?)",
            [
                .integer(credit.upTo), .integer(try replica.indexRegistering(credit.original)),
                .integer(credit.hlc.sqliteValue),
            ])
    }

    /// After a fold: each credit now covers only the writes still waiting in the log (a refused table's), and
    /// goes once it covers none.
    ///
    /// A new log row takes the position after the log's last, so once a credit ends at the last waiting
    /// write it covers, no write made later can fall under it.
    func narrow(in database: Database) throws {
        var below = Int64.min
        for credit in credits {
            let last = try database.scalar(
                "SELECT max(seq) FROM \(Metadata.log) WHERE seq > ? AND seq <= ?",
                [.integer(below), .integer(credit.upTo)])?.integerValue
            below = credit.upTo
            if let last {
                if last != credit.upTo {
                    try database.execute(
                        "UPDATE \(Metadata.credits) SET upto = ? WHERE upto = ?",
                        [.integer(last), .integer(credit.upTo)])
                }
            } else {
                try database.execute("DELETE FROM \(Metadata.credits) WHERE upto = ?", [.integer(credit.upTo)])
            }
        }
    }
}
