import Concord
import ConcordTesting
import Foundation

/// An app's statement, with the synced tables as the app saw them just before and just after it.
///
/// Both readings come before Concord folds the write, so they hold what SQLite
/// itself did: the statement's own rows, and the rows its foreign-key actions
/// changed.
///
/// ```swift
/// let statement = Statement(sql: "DELETE FROM lists WHERE id = 'l1'", before: before, after: after)
/// statement.kind(of: RowRef(table: "reminders", key: "r1"))   // .delete: cascaded
/// ```
struct Statement {
    let sql: String
    let before: TableSnapshot
    let after: TableSnapshot
    /// Rows Concord deletes as this statement's cascade because SQLite did not: the app's connection left
    /// foreign keys off, or SQLite's action missed them (see ``SimulatedDevice/statement(_:before:physical:)``
    /// and ``cascades(before:after:foreignKeys:)``); usually empty when the app enforces them.
    var cascaded: Set<RowRef> = []
    /// The device's clock, in Unix milliseconds, when its app ran the statement: every stamp the statement's
    /// writes get is at or after it (a hybrid logical clock never stamps below the physical time).
    var physical: Int64?
    /// For a migration that rebuilt its tables (create, copy, drop, rename) rather than a statement, the
    /// device's clock's last reading before the migration ran. Concord, reinstalling capture, records every
    /// row such a table holds as this device's write of every column, dated then, the earliest the rebuild
    /// can have happened, so that the copies lose to every edit made after it (README, "Table rebuilds,
    /// reconciled").
    var lastLook: HLCTimestamp?
    /// Whether this stands for a migration that rebuilt its tables (see ``lastLook``).
    var rebuilds: Bool { lastLook != nil }
    /// Whether this stands for what Concord wrote taking up a migration's new columns: a `max` or `min`
    /// column's DEFAULT in every row, values the migration put there. Its writes are the columns the
    /// device's registers stamped, which the tables before (without those columns) and after cannot tell.
    var takesUpColumns = false
    /// Whether the statement replaces rows by deleting them with their triggers firing: an `INSERT OR
    /// REPLACE` (or `REPLACE`) on a connection with `recursive_triggers` on. A row it replaced is then
    /// deleted and inserted again, a new life (as a DELETE and an INSERT make), not updated in place.
    var deletesReplacedRows = false

    /// The row of its table the statement replaced by deleting it (``deletesReplacedRows``): there before and
    /// after it, with other values. (A row replaced by the very values it held cannot be told from the rows
    /// the statement left alone; the model then misses what that delete did, a cascade with foreign keys off.)
    var replacedRows: Set<RowRef> {
        guard deletesReplacedRows else { return [] }
        var replaced: Set<RowRef> = []
        for (row, values) in before.rows where row.table == table {
            if let now = after[row], now != values { replaced.insert(row) }
        }
        return replaced
    }

    /// Whether `sql` makes, drops or alters something in a schema (`CREATE`, `DROP`, `ALTER` first).
    static func changesSchema(_ sql: String) -> Bool {
        var first = ""
        SQLTokens.forEachWord(of: sql) { word in
            first = word.quoted ? "" : word.text.uppercased()
            return false
        }
        return ["CREATE", "DROP", "ALTER"].contains(first)
    }

    /// Whether `sql` is an INSERT that replaces the rows it conflicts with (`REPLACE`, `INSERT OR REPLACE`).
    static func replaces(_ sql: String) -> Bool {
        let words = sql.split(whereSeparator: \.isWhitespace).prefix(3).map { $0.uppercased() }
        return words.first == "REPLACE" || words == ["INSERT", "OR", "REPLACE"]
    }

    /// INSERT (with any conflict clause, or REPLACE), UPDATE or DELETE, from the statement's first word.
    let kind: Ledger.Kind?
    /// The table the statement names.
    let table: String?
    /// Whether the statement is an INSERT whose conflict with a row already there updates that row
    /// (`ON CONFLICT … DO UPDATE`, an upsert): for such a row it is an UPDATE, and is captured as one.
    let upserts: Bool

    /// `sql`, with the tables as the app saw them `before` and `after` it; its kind and table are read
    /// from it once, as every row it touched asks for them.
    init(sql: String, before: TableSnapshot, after: TableSnapshot) {
        self.sql = sql
        self.before = before
        self.after = after
        kind =
            switch sql.split(whereSeparator: \.isWhitespace).first?.uppercased() {
            case "INSERT", "REPLACE": .insert
            case "UPDATE": .update
            case "DELETE": .delete
            default: nil
            }
        table = Self.table(writtenBy: sql)
        upserts = kind == .insert && Self.updatesOnConflict(sql)
    }

    /// Whether `sql` has an unquoted `DO UPDATE` (an upsert's, the only place SQL has those two words).
    static func updatesOnConflict(_ sql: String) -> Bool {
        var found = false
        var afterDo = false
        SQLTokens.forEachWord(of: sql) { word in
            let text = word.quoted ? "" : word.text.uppercased()
            found = afterDo && text == "UPDATE"
            afterDo = text == "DO"
            return !found
        }
        return found
    }

    /// The table an INSERT, UPDATE or DELETE statement names: the word after its first `INTO`, `UPDATE`
    /// or `FROM` outside quotes, unquoted (a drawn name may hold spaces, quotes and keywords).
    static func table(writtenBy sql: String) -> String? { tables(namedBy: sql).first }

    /// Every table `sql` names after an `INTO`, `UPDATE` or `FROM` outside quotes, in order, unquoted: the
    /// tables an app's transaction of several statements writes (and any a subquery reads). An upsert's
    /// `DO UPDATE SET` names none; `UPDATE OR IGNORE` names the word after its conflict clause; a name the
    /// statement's own `WITH [RECURSIVE]` defines is no table; `main.t` names `t` (only a name with no
    /// schema before it can be one the `WITH` defines).
    static func tables(namedBy sql: String) -> [String] {
        var named: [(name: String, qualified: Bool)] = []
        var defined: Set<String> = []
        var previous = ""
        var expectsTable = false
        var justNamed = false
        var skipsConflictAction = false
        SQLTokens.forEachWord(of: sql) { word in
            let keyword = word.quoted ? "" : word.text.uppercased()
            defer { previous = keyword }
            if justNamed, word.qualified {
                named[named.count - 1] = (word.text, true)
                justNamed = false
                return true
            }
            justNamed = false
            if ["WITH", "RECURSIVE"].contains(previous), keyword != "RECURSIVE" { defined.insert(word.text) }
            if skipsConflictAction {
                (skipsConflictAction, expectsTable) = (false, true)
                return true
            }
            if expectsTable {
                expectsTable = false
                if previous == "UPDATE" && keyword == "OR" {
                    skipsConflictAction = true
                    return true
                }
                if keyword != "SET" {
                    named.append((word.text, false))
                    justNamed = true
                }
            }
            expectsTable = ["INTO", "UPDATE", "FROM"].contains(keyword)
            return true
        }
        return named.filter { $0.qualified || !defined.contains($0.name) }.map(\.name)
    }

    /// The rows a statement deleting parents leaves in place (all of them when foreign keys are off), and that Concord
    /// deletes for it: the children it showed through an `ON DELETE CASCADE` key to a row the statement
    /// deleted, and theirs (DESIGN.md: a local delete deletes the children the device can see, whether or
    /// not its app enforces foreign keys). Derived from the tables as the app saw them and the schema's keys.
    ///
    /// Rows in `leaving` are left out, and so are the rows only they lead to: when several statements are
    /// folded together, a child a later one wrote (moved, updated, deleted) is that write's business.
    /// Rows in `replaced` were deleted too, and inserted again (``deletesReplacedRows``).
    static func cascades(
        before: TableSnapshot, after: TableSnapshot, foreignKeys: [ForeignKey], leaving: Set<RowRef> = [],
        replaced: Set<RowRef> = []
    ) -> Set<RowRef> {
        var gone = before.rows.keys.filter { after[$0] == nil || replaced.contains($0) }
            .sorted { ($0.table, $0.key) < ($1.table, $1.key) }
        var cascaded: Set<RowRef> = []
        while let parent = gone.popLast() {
            for key in foreignKeys where key.parent == parent.table && key.action == .cascade {
                for (row, values) in after.rows
                where row.table == key.child && key.parentKey(of: values[key.column]) == parent.key
                    && !leaving.contains(row)
                {
                    if cascaded.insert(row).inserted { gone.append(row) }
                }
            }
        }
        return cascaded
    }

    /// The first row (in table and key order) the statement cascaded to (``cascaded``) that `touched`,
    /// the rows its device's fold stamped, leaves out; `nil` when every one was stamped, or left to
    /// another statement of the same fold (`leftToOthers`).
    ///
    /// The ledger records only the rows a fold stamped, so a cascade the engine skipped would leave
    /// the model silent too: the child would stay alive in both, hidden while its parent is gone, and
    /// come back with it. Checking the derived set against the stamped one closes that gap. With foreign
    /// keys off, SQLite leaves the child in its table until Concord folds, so other statements of the same
    /// fold may find it there: one that deleted it (the app's own delete, or its parent's delete before a
    /// re-insert) stamped it, and one after the parent's delete that wrote it made it that write's business
    /// (the fold cascades only to children no later write touched, see `FoldSession.cascade`).
    ///
    /// ```swift
    /// statement.firstCascadeUnstamped(in: touched)   // reminders/r1: Concord left it alive
    /// ```
    func firstCascadeUnstamped(in touched: [OwnWrite], leftToOthers: Set<RowRef> = []) -> RowRef? {
        guard !cascaded.isEmpty else { return nil }
        let stamped = Set(touched.map(\.row)).union(leftToOthers)
        return cascaded.filter { !stamped.contains($0) }.min { ($0.table, $0.key) < ($1.table, $1.key) }
    }

    /// What the statement did to `row`: its own kind for a row of its table (a row a DELETE left in
    /// place was set by a self-referencing key or a trigger, a row gone after an INSERT or UPDATE was
    /// deleted by a trigger), otherwise the foreign-key action or the trigger that changed it.
    func kind(of row: RowRef) -> Ledger.Kind {
        if cascaded.contains(row) { return .delete }
        let (was, now) = (before[row] != nil, after[row] != nil)
        if row.table == table, upserts, was, now { return .update }
        // A row of its table the statement's kind does not fit was written by a trigger of the app: gone after
        // an insert or update (a trigger deleting from the very table), still there after a delete.
        if row.table == table, let kind, kind == .delete ? !now : (now || !was) { return kind }
        // Gone from its table: `ON DELETE CASCADE` or a trigger; still there: `SET NULL` / `SET DEFAULT`.
        return was && !now ? .delete : !was && now ? .insert : .update
    }

    /// The values written to `row`, by column: every column for an insert or a row-policy table, else
    /// those whose stored value changed; for a `counter` column, the change made (new minus old — for an
    /// insert that replaced a row the table showed, `INSERT OR REPLACE`, minus what that row showed), exact
    /// (``Ledger/counterChange(_:)``).
    func values(of row: RowRef, kind: Ledger.Kind, table: TableSchema) -> [Int: SQLiteValue] {
        guard kind != .delete, let new = after[row] else { return [:] }
        let old = kind == .insert ? nil : before[row]
        var values: [Int: SQLiteValue] = [:]
        for index in table.columns.indices {
            guard table.policy == .column else {
                values[index] = new[index]
                continue
            }
            // A rebuild's rows had no column before an ADD COLUMN the same migration made; a row replaced by
            // deleting it starts a new life, whose counter starts from the value inserted.
            let was =
                deletesReplacedRows && kind == .insert
                ? nil : before[row].flatMap { index < $0.count ? $0[index] : nil }
            if !rebuilds, let old, index < old.count, old[index] == new[index] { continue }
            values[index] =
                table.merges[index] == .counter
                ? Ledger.counterChange(Int128(new[index].integerValue ?? 0) - Int128(was?.integerValue ?? 0))
                : new[index]
        }
        return values
    }
}
