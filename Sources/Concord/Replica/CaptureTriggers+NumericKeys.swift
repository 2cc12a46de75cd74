/// How the capture triggers read the key of a row whose TEXT key SQLite hands them as a number.
///
/// Why: with foreign keys on, SQLite 3.40 looks a row's children up through an index on their column
/// (the one Concord makes for finding children, or the app's own) and first applies that column's
/// affinity to the key *in place*, where the AFTER triggers read it. It does so when a row is
/// deleted, when an UPDATE assigns the key column (as ORMs that write every column do, to the same
/// value), and when an INSERT meets a foreign-key violation still pending (deferred keys, or a
/// violation in the same statement). So the TEXT key `'01'` of a row an INTEGER, REAL or NUMERIC column
/// references reached the triggers as `1`: the write was logged under a key no device syncs, and was
/// lost. A TEXT column never holds a number, so a number there is always such a conversion; the
/// triggers then read the key back from where it still is as the app wrote it:
///
/// - an INSERT or UPDATE of a table with a rowid, from the row itself, by its rowid;
/// - a DELETE, or a write of a `WITHOUT ROWID` table, from ``Metadata/pendingKeys``, where a BEFORE
///   trigger (which still sees the key as it was) keeps each key a number could be read from, and the
///   AFTER trigger takes it out again. Keys holding a letter, as UUIDs do, are never kept.
///
/// A write an app's own BEFORE trigger vetoes (`RAISE(IGNORE)`) after Concord's kept its key leaves
/// that key behind; a trigger reads the newest key of its table that reads as the same number, and the
/// fold clears what is left.
///
/// ```sql
/// -- folders(id TEXT PRIMARY KEY), child column parent INTEGER REFERENCES folders(id), indexed
/// DELETE FROM folders WHERE id = '01'   -- the delete trigger reads OLD.id as 1, logs '01'
/// ```
extension CaptureTriggers {
    /// The events of the triggers that keep keys before a write: every table with a TEXT key has the
    /// first, a `WITHOUT ROWID` one all three.
    static let keyStashEvents = ["predelete", "preinsert", "preupdate"]

    /// Where the triggers read back a key SQLite handed them as a number.
    private enum KeySource {
        /// The key is not TEXT: SQLite never converts it, and the triggers read it as it is.
        case asWritten
        /// From the row in the table, by the rowid named so.
        case row(rowid: String)
        /// From ``Metadata/pendingKeys``.
        case kept
    }

    private var writeKeySource: KeySource {
        guard facts.keyIsText else { return .asWritten }
        return facts.rowidName.map { .row(rowid: $0) } ?? .kept
    }

    /// Whether BEFORE triggers keep the keys of inserts and updates too (a `WITHOUT ROWID` table).
    private var keepsWrittenKeys: Bool { if case .kept = writeKeySource { true } else { false } }

    /// The key of the row an INSERT or UPDATE wrote, as the app wrote it.
    var writtenKey: String { key(of: "NEW", from: writeKeySource) }

    /// The key of the row a DELETE removed, as the app had it.
    var deletedKey: String { key(of: "OLD", from: facts.keyIsText ? .kept : .asWritten) }

    private func key(of row: String, from source: KeySource) -> String {
        let seen = "\(row).\(table.quotedKey)"
        let recovered: String
        switch source {
        case .asWritten: return seen
        case .row(let rowid):
            // Aliased: a table named `new` or `old` would otherwise hide the trigger's own row.
            recovered = "(SELECT t.\(table.quotedKey) FROM \(table.quotedName) AS t WHERE t.\(rowid) = \(row).\(rowid))"
        case .kept:
            recovered =
                "(SELECT pk FROM \(Metadata.pendingKeys) WHERE tbl = \(id) AND CAST(pk AS NUMERIC) = \(seen) "
                + "ORDER BY seq DESC LIMIT 1)"
        }
        return
            "(CASE WHEN typeof(\(seen)) IN ('integer', 'real') THEN COALESCE(\(recovered), \(seen)) ELSE \(seen) END)"
    }

    /// The BEFORE triggers that keep keys for the AFTER triggers (see ``keyStashEvents``).
    var keyStashTriggers: [String] {
        guard facts.keyIsText else { return [] }
        let deletes = [keep("predelete", "BEFORE DELETE", row: "OLD")]
        guard keepsWrittenKeys else { return deletes }
        return deletes + [
            keep("preinsert", "BEFORE INSERT", row: "NEW"),
            keep("preupdate", "BEFORE UPDATE OF \(table.quotedKey)", row: "NEW"),
        ]
    }

    private func keep(_ event: String, _ timing: String, row: String) -> String {
        let key = "\(row).\(table.quotedKey)"
        return trigger(
            event, timing, Self.mayBecomeNumber(key),
            ["INSERT INTO \(Metadata.pendingKeys) (tbl, pk) VALUES (\(id), \(key))"])
    }

    /// What an AFTER trigger of `operation` runs last to take out the key its BEFORE trigger kept.
    func unstashSQL(_ key: String, _ operation: Metadata.Operation) -> [String] {
        guard operation == .delete ? facts.keyIsText : keepsWrittenKeys else { return [] }
        return [
            "DELETE FROM \(Metadata.pendingKeys) WHERE seq = "
                + "(SELECT max(seq) FROM \(Metadata.pendingKeys) WHERE tbl = \(id) AND pk = \(key))"
        ]
    }

    /// SQL that is true when the text `expression` could be read as a number by a column's affinity: it
    /// holds a digit and nothing but digits, signs, points, exponents and white space (SQLite's six space
    /// characters, which it skips around a number).
    private static func mayBecomeNumber(_ expression: String) -> String {
        "(\(expression) GLOB '*[0-9]*' AND \(expression) NOT GLOB '*[^0-9.eE+ ' || char(9, 10, 11, 12, 13) || '-]*')"
    }
}
