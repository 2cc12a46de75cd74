/// The SQL that makes any SQLite client's writes to a synced table land in the capture log.
///
/// Triggers, not a hook in Concord's own connection, so that the app, the
/// `sqlite3` shell and any other process are all captured, in the order they
/// wrote, without loading anything of Concord. Each write appends one row to
/// `_concord_log` in the same transaction as the write: the key, the
/// operation, the time of the write (SQL's `'now'`, read from the connection's
/// VFS) and, for an UPDATE, which columns changed (by bytes and type), so an ORM that
/// writes every column does not clobber concurrent edits of the others. A
/// DELETE also keeps the row's values, which the table no longer has. For
/// columns that merge by value (`counter`, `max`, `min`, `union`, custom),
/// the old and new values go to `_concord_N_logvalues`, since a later write
/// would overwrite what the fold needs. While Concord merges, its own
/// connection compiles its writes without the three capture triggers' log
/// writes (see ``Replica/withoutCapture(_:)``): so they need no condition that
/// every write of the app would pay for, and the schema never changes for it.
struct CaptureTriggers {
    let table: SyncedTable
    /// How each column and the key are compared and guarded (see ``TableInspector/captureFacts(of:)``).
    let facts: TableInspector.CaptureFacts
    /// How a union column's guard reads its array: the walker the app's schema does not hide, or `nil`
    /// when it hides both, and the guard refuses every value but NULL, saying why.
    var walker: JSONWalker? = .each
    /// Whether the guard triggers may call SQLite's scalar JSON functions (`json_valid`, `json_type`).
    ///
    /// Why: before SQLite 3.41 those functions are not marked innocuous, and a connection with
    /// `PRAGMA trusted_schema = OFF` (SQLite's advice for hardened apps) refuses every statement whose
    /// triggers call them ("unsafe use of json_valid()"): the app could write no row of a table with a
    /// union column, and Concord could merge none. From 3.42 on, `json_each` also reads JSON5, which a
    /// union does not hold and only `json_valid` tells apart, so the guard calls it where it may.
    var scalarJSONInTriggers = Database.libraryVersionNumber >= 3_041_000

    var id: Int64 { table.id }

    /// DDL for the table's metadata tables.
    var metadataSQL: String { [metadataTablesSQL, mergeTablesSQL].joined(separator: "\n") }

    /// DDL for all of the table's triggers (capture and guards), the side table its update trigger writes,
    /// and the index that keeps writes from going around the triggers.
    var triggersSQL: String {
        [
            zerosTableSQL, captureSQL, keyGuardTrigger, valueGuardTriggers.joined(separator: "\n"),
            inPlaceWriteGuardSQL,
        ].joined(separator: "\n")
    }

    /// An index on every synced column that holds no entry (`WHERE 0`), so that no write goes around the
    /// triggers.
    ///
    /// Why: incremental BLOB I/O (`sqlite3_blob_open` for writing, then `sqlite3_blob_write`) changes a
    /// TEXT or BLOB value in place, and fires no trigger: the capture log never heard of it, the table
    /// showed the new bytes under the old write's stamp, and a peer that had the old bytes under that stamp
    /// kept them, each device's `check` saying ok. SQLite refuses to open a column that any index covers for
    /// writing ("cannot open indexed column for writing"), since it could not keep the index right; this
    /// index covers them all and, holding no row, takes no space (its write cost was inside the benchmark's
    /// run-to-run spread at 100,000 rows). Apps write such values with `UPDATE` (reading them in place still
    /// works).
    ///
    /// ```sql
    /// CREATE INDEX IF NOT EXISTS main."_concord_3_inplace_guard" ON "notes"("title", "body") WHERE 0;
    /// ```
    var inPlaceWriteGuardSQL: String {
        guard !table.quotedColumns.isEmpty else { return "" }
        return "CREATE INDEX IF NOT EXISTS main.\(quoteIdentifier(Metadata.inPlaceWriteGuard(id))) "
            + "ON \(table.quotedName)(\(table.quotedColumns.joined(separator: ", "))) WHERE 0;"
    }

    /// Whether any column keeps the type of what is written (BLOB affinity), and so can tell -0.0 from 0.0.
    private var hasUntypedColumns: Bool { facts.comparesTypes.contains(true) }

    private var zerosTableSQL: String {
        guard hasUntypedColumns else { return "" }
        return "CREATE TABLE IF NOT EXISTS \(table.zerosTable) (seq INTEGER NOT NULL, col INTEGER NOT NULL, old, new, "
            + "PRIMARY KEY (seq, col)) WITHOUT ROWID;"
    }

    /// An update that writes a real zero over a real zero in a column that keeps types logs
    /// both values, so the fold can tell whether it changed the sign (see ``updateTrigger``).
    ///
    /// One statement for every such column, reading them from a list: SQLite compiles the body of each
    /// trigger of a table into every UPDATE statement of it, and an INSERT per column (layouts 11 to 19)
    /// made compiling an UPDATE of a 66-column untyped table take 2.1 to 2.5 times as long.
    ///
    /// ```sql
    /// INSERT INTO "_concord_3_zeros" (seq, col, old, new) SELECT last_insert_rowid(), col, old_value, new_value
    /// FROM (SELECT 0 AS col, OLD."a" AS old_value, NEW."a" AS new_value UNION ALL VALUES (2, OLD."c", NEW."c"))
    /// WHERE typeof(new_value) = 'real' AND typeof(old_value) = 'real' AND NOT new_value AND NOT old_value
    /// ```
    private var zerosSQL: [String] {
        let columns = zip(table.quotedColumns, facts.comparesTypes).enumerated().filter(\.element.1).map {
            (index: $0.offset, old: "OLD.\($0.element.0)", new: "NEW.\($0.element.0)")
        }
        guard let first = columns.first else { return [] }
        // The first row names the columns: a bare VALUES list, which would name them column1 to column3, is
        // not read by those names inside a trigger (SQLite 3.40: "no such column"). A zero is `NOT value`, not
        // `value = 0`: from `value = 0`, SQLite's constant propagation reads the selected value as that 0, and
        // logged a -0.0 as 0.0.
        let rest = columns.dropFirst().map { "(\($0.index), \($0.old), \($0.new))" }
        let list =
            "SELECT \(first.index) AS col, \(first.old) AS old_value, \(first.new) AS new_value"
            + (rest.isEmpty ? "" : " UNION ALL VALUES " + rest.joined(separator: ", "))
        return [
            "INSERT INTO \(table.zerosTable) (seq, col, old, new) SELECT last_insert_rowid(), col, old_value, new_value "
                + "FROM (\(list)) WHERE typeof(new_value) = 'real' AND typeof(old_value) = 'real' "
                + "AND NOT new_value AND NOT old_value"
        ]
    }

    /// DDL for the triggers that append the table's writes to the log.
    private var captureSQL: String {
        ([insertTrigger, updateTrigger, deleteTrigger] + keyStashTriggers + replacedRowTrigger).joined(separator: "\n")
    }

    /// Drops every trigger ``triggersSQL`` makes (capture and guards), and its index, to make them again or for good.
    var dropAllTriggersSQL: String {
        dropSQL(["insert", "update", "delete", "prereplace", "key"] + Self.keyStashEvents + Self.valueGuardEvents)
            + "\n"
            + dropInPlaceWriteGuardSQL
    }

    /// Drops the index ``inPlaceWriteGuardSQL`` makes.
    var dropInPlaceWriteGuardSQL: String {
        "DROP INDEX IF EXISTS main.\(quoteIdentifier(Metadata.inPlaceWriteGuard(id)));"
    }

    /// Drops the value guards only (``valueGuardTriggers``), to make them again with another walker.
    var dropValueGuardsSQL: String { dropSQL(Self.valueGuardEvents) }

    /// The events of the triggers that refuse values a counter or union column cannot merge.
    static let valueGuardEvents = ["check_insert", "check_update"]

    private func dropSQL(_ events: [String]) -> String {
        events.map { "DROP TRIGGER IF EXISTS main.\(quoteIdentifier(Metadata.trigger(id, $0)));" }.joined(
            separator: "\n")
    }

    private var metadataTablesSQL: String {
        let stampColumns = table.stampColumns.map { ", \($0) INTEGER" }.joined()
        let hiddenColumns = table.hiddenColumns.map { ", \($0)" }.joined()
        return """
            CREATE TABLE \(table.rowsTable) (
                ver INTEGER PRIMARY KEY, kh INTEGER NOT NULL, pk NOT NULL, cl INTEGER NOT NULL,
                hlc INTEGER NOT NULL, node INTEGER NOT NULL, clh INTEGER, cln INTEGER\(stampColumns), seen BLOB
            );
            CREATE INDEX \(quoteIdentifier(Metadata.keyIndex(id))) ON \(table.rowsTable)(kh);
            CREATE TABLE \(table.hiddenTable) (pk PRIMARY KEY NOT NULL\(hiddenColumns)) WITHOUT ROWID;
            """
    }

    /// Positions of the value-merged columns.
    private var joined: [Int] { table.joinedColumns }

    /// Tables for counter contributions and for the values of value-merged columns' writes.
    private var mergeTablesSQL: String {
        var sql = ""
        if !table.counterColumns.isEmpty {
            sql += """
                CREATE TABLE \(table.countersTable) (
                    pk NOT NULL, col INTEGER NOT NULL, node INTEGER NOT NULL, cl INTEGER NOT NULL,
                    amount INTEGER NOT NULL, hlc INTEGER NOT NULL, PRIMARY KEY (pk, col, node)
                ) WITHOUT ROWID;

                """
        }
        if !joined.isEmpty {
            let columns = joined.flatMap { [Self.old($0), Self.new($0)] }.map { ", \($0)" }.joined()
            sql += "CREATE TABLE \(table.logValuesTable) (seq INTEGER PRIMARY KEY\(columns));"
        }
        return sql
    }

    static func old(_ column: Int) -> String { Metadata.oldValueColumn(column) }
    static func new(_ column: Int) -> String { Metadata.newValueColumn(column) }

    /// Records the written (and, for updates, previous) values of value-merged columns.
    ///
    /// An insert's old values are those of the row it replaced, if any (see `CaptureTriggers+Replace.swift`).
    private func logValuesSQL(withOld: Bool, key: String) -> [String] {
        guard !joined.isEmpty else { return [] }
        let names = joined.flatMap { [Self.old($0), Self.new($0)] }
        let olds = withOld ? joined.map { "OLD.\(table.quotedColumns[$0])" } : replacedValues(key: key)
        let values = zip(olds, joined).flatMap { [$0, "NEW.\(table.quotedColumns[$1])"] }
        return [
            "INSERT INTO \(table.logValuesTable) (seq, \(names.joined(separator: ", "))) "
                + "VALUES (last_insert_rowid(), \(values.joined(separator: ", ")))"
        ]
    }

    /// The triggers that refuse values a counter or union column cannot merge, naming the column: one
    /// `CREATE TRIGGER` statement each, for ``valueGuardEvents`` in order (none when no column needs one).
    var valueGuardTriggers: [String] {
        let checks = valueGuards(row: "NEW", scalarJSON: scalarJSONInTriggers).map {
            "SELECT RAISE(ABORT, '\(sqlString($0.message))') WHERE \($0.refused)"
        }
        guard !checks.isEmpty else { return [] }
        return zip(Self.valueGuardEvents, ["BEFORE INSERT", "BEFORE UPDATE"]).map { trigger($0, $1, "1", checks) }
    }

    /// What a counter or union column refuses, column by column: the message, and the condition on the
    /// row named `row` (`NEW` in a trigger, the table's alias in a query) that holds when it refuses.
    ///
    /// The guard triggers refuse such values as the app writes them; enabling sync asks the same of the
    /// rows already in the table, which no trigger saw (see ``Replica/enableSync(on:policy:merges:)``).
    ///
    /// With `scalarJSON` false (a trigger on an SQLite before 3.41, see ``scalarJSONInTriggers``), a union's
    /// guard reads the value with the walker alone: text that does not start with `[` is refused, saying
    /// why; text that does is an array once the walker reads it whole, and SQLite itself refuses the write
    /// as "malformed JSON" when it cannot. (No SQLite before 3.42 reads JSON5.)
    func valueGuards(row: String, scalarJSON: Bool = true) -> [(column: Int, message: String, refused: String)] {
        var guards: [(column: Int, message: String, refused: String)] = []
        for (index, (column, merge)) in zip(table.columns, table.merges).enumerated() {
            let c = "\(row).\(quoteIdentifier(column))"
            let name = "\(table.name).\(column)"
            switch merge {
            case .counter:
                guards.append(
                    (
                        index,
                        "concord: counter column \(name) holds integers (SQL makes a sum past the 64-bit range a REAL)",
                        "typeof(\(c)) NOT IN ('integer', 'null')"
                    )
                )
            case .union where walker == nil:
                guards.append(
                    (
                        index,
                        "concord: union column \(name) cannot be checked while tables or views named json_each and "
                            + "json_tree hide SQLite's JSON functions; to fix: \(JSONWalker.hiddenFix)",
                        "\(c) IS NOT NULL"
                    ))
            case .union:
                // SQLite's JSON functions read a BLOB as text, and text only up to a NUL: a union holds neither,
                // and its merge, which reads every byte of a TEXT, would take such a value for an empty set.
                guards.append(
                    (
                        index, "concord: union column \(name) holds a JSON array of strings and integers, as TEXT",
                        "\(c) IS NOT NULL AND CASE WHEN typeof(\(c)) <> 'text' OR instr(CAST(\(c) AS BLOB), X'00') THEN 1 "
                            + (scalarJSON
                                ? "WHEN json_valid(\(c)) AND json_type(\(c)) = 'array' "
                                : "WHEN substr(ltrim(\(c), ' ' || char(9, 10, 13)), 1, 1) = '[' ")
                            + "THEN \((walker ?? .each).hasElement(of: c, where: "type NOT IN ('integer', 'text')")) ELSE 1 END"
                    ))
            default: break
            }
        }
        return guards
    }

    /// The text SQLite keeps in `sqlite_schema` for one of these `CREATE TRIGGER` statements: without the
    /// schema that qualifies the trigger's name, and without the semicolon.
    static func storedSQL(_ statement: String) -> String {
        let qualified = "CREATE TRIGGER main."
        let text = statement.hasSuffix(";") ? String(statement.dropLast()) : statement
        guard text.hasPrefix(qualified) else { return text }
        return "CREATE TRIGGER " + text.dropFirst(qualified.count)
    }

    func trigger(_ event: String, _ timing: String, _ when: String, _ body: [String]) -> String {
        """
        CREATE TRIGGER main.\(quoteIdentifier(Metadata.trigger(id, event))) \(timing) ON \(table.quotedName)
        WHEN \(when)
        BEGIN
        \(body.map { "  " + $0 + ";" }.joined(separator: "\n"))
        END;
        """
    }

    private func logSQL(_ operation: Metadata.Operation, key: String, mask: String = "NULL") -> String {
        "INSERT INTO \(Metadata.log) (tbl, pk, op, at, mask) "
            + "VALUES (\(id), \(key), \(operation.rawValue), \(Metadata.now), \(mask))"
    }

    /// An insert logs the write; where the key column could take a value that cannot sync
    /// (NULL, a number), it refuses the row first, naming the table and column.
    private var insertTrigger: String {
        let key = writtenKey
        let guardKey =
            facts.guardsKey
            ? [
                "SELECT RAISE(ABORT, 'concord: the key column \(sqlString(table.key)) of synced table \(sqlString(table.name)) "
                    + "takes TEXT or BLOB values, such as UUIDs; this row''s key is NULL or a number') "
                    + "WHERE typeof(\(key)) NOT IN ('text', 'blob')"
            ] : []
        return trigger(
            "insert", "AFTER INSERT", "1",
            guardKey + [logSQL(.insert, key: key)] + logValuesSQL(withOld: false, key: key) + unstashSQL(key, .insert))
    }

    /// An update logs which columns changed, one bit per column.
    ///
    /// The mask is computed once, with no WHEN clause to compute it again:
    /// an update that changed nothing is logged with mask 0 and skipped by
    /// the fold, which costs less than testing every column twice on every
    /// update the app makes.
    private var updateTrigger: String {
        // SQL equality holds 'A' = 'a' under a NOCASE column, and 1 = 1.0 in a column that keeps both
        // types; a change of case or of type is still a change of the stored value, so compare bytes,
        // and types where the column can hold both an INTEGER and an equal REAL. Such a column also
        // keeps -0.0 apart from 0.0, which no SQL function of SQLite 3.40 tells apart: a real zero
        // written over a real zero is flagged, its two values go to the zeros table, and the fold
        // unflags it when their bits are equal.
        let changed = zip(table.quotedColumns, facts.affinities).map { column, affinity in
            let bytes = "NEW.\(column) IS NOT OLD.\(column) COLLATE BINARY"
            // An INTEGER or NUMERIC column stores an integral REAL as an INTEGER, but for -2^63, which it
            // keeps as a REAL equal to the INTEGER -2^63: that one change of type alone is compared too.
            if affinity == .integer || affinity == .numeric {
                // (CASE, not AND: SQL evaluates both sides of AND and OR, and CASE only what it needs.)
                return "(\(bytes) OR CASE WHEN NEW.\(column) = -9223372036854775808 "
                    + "THEN typeof(NEW.\(column)) <> typeof(OLD.\(column)) ELSE 0 END)"
            }
            guard affinity == .blob else { return "(\(bytes))" }
            return "(\(bytes) OR typeof(NEW.\(column)) <> typeof(OLD.\(column)) "
                + "OR CASE WHEN NEW.\(column) = 0 THEN typeof(NEW.\(column)) = 'real' ELSE 0 END)"
        }
        guard !changed.isEmpty else { return "" }
        let key = writtenKey
        return trigger(
            "update", "AFTER UPDATE", "1",
            [logSQL(.update, key: key, mask: ChangeMask.sql(changed))] + zerosSQL
                + logValuesSQL(withOld: true, key: key)
                + unstashSQL(key, .update))
    }

    /// Keys identify rows across devices, so they may not change.
    private var keyGuardTrigger: String {
        trigger(
            "key", "BEFORE UPDATE OF \(table.quotedKey)", "NEW.\(table.quotedKey) IS NOT OLD.\(table.quotedKey)",
            [
                "SELECT RAISE(ABORT, 'concord: the primary key of synced table \(sqlString(table.name)) cannot change; "
                    + "delete the row and insert it under the new key')"
            ])
    }

    /// A delete keeps the row's values in the hidden table, since the user table no longer has them.
    ///
    /// A `SET NULL` / `SET DEFAULT` column showing its stand-in (its parent is not in its table) has the
    /// real reference in the row's hidden copy: that one is kept, not the stand-in the table showed.
    /// What the table shows is the app's own value instead when the app wrote it since the last fold (an
    /// update of the column, or the row inserted again, in the log); the parent's presence alone cannot
    /// tell, since the app may have inserted the parent again before that fold, which would have shown
    /// the reference again.
    ///
    /// A value-merged column of a row the app inserted again since the last fold keeps the hidden copy's
    /// value: the previous life's, which the fold joins that insert with (the join of what the row last
    /// held). The fold then stores the joined value there; without this, deleting the new row before the
    /// fold replaced the value it joins with by the new row's unjoined one.
    private var deleteTrigger: String {
        let columns = table.hiddenColumns.map { ", \($0)" }.joined()
        var values = table.quotedColumns.map { "OLD.\($0)" }
        let deleted = deletedKey
        // After the log row is written, the key is read back from it: `deletedKey` of a TEXT key looks a kept
        // key up and is long, and SQLite parses each copy at every open and compiles it into every DELETE.
        // (A silenced trigger leaves out both inserts, so the read never meets another row's log entry.)
        let key = facts.keyIsText ? "(SELECT pk FROM \(Metadata.log) WHERE seq = last_insert_rowid())" : deleted
        // Whether the log holds a write of this row, since the last fold, that `condition` names. Asked only
        // of a row with a hidden copy (CASE stops at its first true WHEN): the log has no index on keys, and
        // a row the app deletes has no hidden copy but when inserted again, or showing a stand-in.
        func logged(_ condition: String) -> String {
            "EXISTS (SELECT 1 FROM \(Metadata.log) WHERE tbl = \(id) AND pk = \(key) AND \(condition))"
        }
        let (insert, update) = (Metadata.Operation.insert.rawValue, Metadata.Operation.update.rawValue)
        for standIn in facts.standIns where values.indices.contains(standIn.column) {
            let (shown, kept) = (values[standIn.column], "h.\(table.hiddenColumns[standIn.column])")
            let bit = ChangeMask.sqlHas(column: standIn.column, count: table.columns.count)
            let written = logged("(op = \(insert) OR (op = \(update) AND \(bit)))")
            values[standIn.column] =
                "CASE WHEN h.pk IS NULL OR \(shown) IS NOT \(standIn.value) OR \(kept) IS NULL THEN \(shown) "
                + "WHEN \(written) THEN \(shown) ELSE \(kept) END"
        }
        let reinserted = logged("op = \(insert)")
        for column in joined where values.indices.contains(column) {
            values[column] =
                "CASE WHEN h.pk IS NULL THEN \(values[column]) WHEN \(reinserted) "
                + "THEN h.\(table.hiddenColumns[column]) ELSE \(values[column]) END"
        }
        // A shown row whose column converts what its writer wrote (`'007'` shows as 7 in an INTEGER column)
        // keeps the value as written in its hidden copy, `k` (joined only when the app wrote nothing of the
        // row since the last fold): the delete keeps that value where the row showed it as the column stores it.
        let standInColumns = Set(facts.standIns.map(\.column))
        let converting = table.columns.indices.filter {
            facts.affinities.indices.contains($0) && facts.affinities[$0] != .blob && !standInColumns.contains($0)
                && !joined.contains($0)
        }
        for column in converting {
            let kept = "k.\(table.hiddenColumns[column])"
            // TEXT affinity turns numbers to text (as CAST does); the others compare numerically.
            let asStored = facts.affinities[column] == .text ? "CAST(\(kept) AS TEXT)" : kept
            values[column] =
                "CASE WHEN \(values[column]) = \(asStored) COLLATE BINARY THEN \(kept) ELSE \(values[column]) END"
        }
        // Asked only of a row with a hidden copy (it reads `k.pk`): the log has no index on keys.
        let written =
            "EXISTS (SELECT 1 FROM \(Metadata.log) WHERE tbl = \(id) AND pk = k.pk AND op IN (\(insert), \(update)))"
        let source =
            facts.standIns.isEmpty && joined.isEmpty && converting.isEmpty
            ? "VALUES (\(key)\(values.map { ", \($0)" }.joined()))"
            : "SELECT \(key)\(values.map { ", \($0)" }.joined()) FROM (SELECT 1) "
                + (facts.standIns.isEmpty && joined.isEmpty
                    ? "" : "LEFT JOIN \(table.hiddenTable) AS h ON h.pk = \(key) ")
                + (converting.isEmpty
                    ? "" : "LEFT JOIN \(table.hiddenTable) AS k ON k.pk = \(key) AND NOT \(written)")
        // A row deleted with its triggers firing while an insert of its key runs (an `INSERT OR REPLACE` under
        // `recursive_triggers`, or an app's BEFORE INSERT trigger deleting it) ends its life here: the insert
        // starts a new one, so it must not log what the replaced-row slot kept of it as its old values.
        let endsReplacedRow =
            table.joinedColumns.first.map {
                ["DELETE FROM \(table.logValuesTable) WHERE seq = \(Self.replacedSlot) AND \(Self.new($0)) IS \(key)"]
            } ?? []
        return trigger(
            "delete", "AFTER DELETE", "1",
            [logSQL(.delete, key: deleted), "INSERT OR REPLACE INTO \(table.hiddenTable) (pk\(columns)) \(source)"]
                + endsReplacedRow + unstashSQL(deleted, .delete))
    }

    /// Escapes `'` for use inside an SQL string literal.
    private func sqlString(_ text: String) -> String { doubling(UInt8(ascii: "'"), in: text) }
}
