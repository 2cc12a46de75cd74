@_spi(Testing) import ConcordCore

/// What inspecting the synced tables found, so that reading the metadata again (or opening the same
/// schema again) does not inspect every table again while the tables did not change.
///
/// Why: the metadata is read again after every table sync is enabled on, at every schema check that
/// finds the schema moved, and on every open; inspecting each table (its capture facts, its
/// foreign keys) takes a dozen pragma queries, so enabling `n` tables cost `n²` inspections.
///
/// What an inspection finds follows from the tables' `CREATE TABLE` text alone — columns,
/// types, DEFAULTs, keys, `STRICT`, `WITHOUT ROWID` and foreign keys all live there, and SQLite
/// rewrites it on `ALTER TABLE` — together with the table's declaration in `_concord_tables`,
/// and, for foreign keys, the set of synced tables. So a result is reused only while the text of
/// every table outside Concord's metadata (in `main` and `temp`, byte for byte: ``fingerprint(in:)``)
/// and the declarations are the same bytes as when it was found. DEFAULTs are evaluated by running
/// them, so a table with a DEFAULT that is not a plain literal (`CURRENT_TIMESTAMP`, an expression)
/// is inspected afresh every time, as before. The results live in the process's ``InspectionStore``.
struct InspectionCache {
    /// Where results are kept: shared by the process's replicas (see ``InspectionStore``).
    private let store = InspectionStore.shared
    /// By table name: whether the table's last inspection would repeat exactly (its DEFAULTs are
    /// literals), so that its results may be kept.
    private var repeatable: [SQLiteName.Key: Bool] = [:]
    /// Column lists and merges of `_concord_tables`, decoded, by their JSON text.
    private var columnLists: [SQLiteName.Key: [String]] = [:]
    private var mergeLists: [SQLiteName.Key: [String: ColumnMerge]] = [:]

    /// `ColumnList.decode(text)`, decoded once per text.
    mutating func columns(_ text: String) -> [String] {
        let key = SQLiteName.Key(text)
        if let columns = columnLists[key] { return columns }
        let columns = ColumnList.decode(text)
        columnLists[key] = columns
        return columns
    }

    /// `ColumnList.decodeMerges(text)`, decoded once per text.
    mutating func merges(_ text: String) -> [String: ColumnMerge] {
        let key = SQLiteName.Key(text)
        if let merges = mergeLists[key] { return merges }
        let merges = ColumnList.decodeMerges(text)
        mergeLists[key] = merges
        return merges
    }

    /// The text of every table outside Concord's metadata, in `main` and then `temp`, in the order
    /// `sqlite_schema` holds them (the same schema reads the same; a reordered one is only a miss).
    ///
    /// One statement without sorting or compound parts: it is prepared again after every schema
    /// change, and enabling sync changes the schema a dozen times.
    static func fingerprint(in database: Database) throws -> SQLiteName.Key {
        SQLiteName.Key(
            try database.scalar(
                """
                SELECT ifnull((SELECT group_concat(name || char(1) || ifnull(sql, ''), char(2)) FROM main.sqlite_schema
                    WHERE type = 'table' AND lower(substr(name, 1, 9)) <> '_concord_'), '') || char(3)
                  || ifnull((SELECT group_concat(name || char(1) || ifnull(sql, ''), char(2)) FROM temp.sqlite_schema
                    WHERE type = 'table' AND lower(substr(name, 1, 9)) <> '_concord_'), '')
                """)?.textValue ?? "")
    }

    /// What of `table` the capture facts depend on, byte for byte.
    static func declaration(of table: SyncedTable) -> [SQLiteName.Key] {
        ([table.name, table.key] + table.columns).map(SQLiteName.Key.init)
    }

    /// `table`'s capture facts: the ones found before when `schema` and its declaration are unchanged,
    /// else freshly inspected (and kept when inspecting again would find the same).
    mutating func captureFacts(
        of table: SyncedTable, schema: SQLiteName.Key, inspector: TableInspector
    ) throws -> TableInspector.CaptureFacts {
        let key = InspectionStore.FactsKey(schema: schema, declaration: Self.declaration(of: table))
        let name = SQLiteName.Key(table.name)
        if let found = store.facts(key) {
            repeatable[name] = true
            return found
        }
        let declared = try inspector.declaredColumns(of: table)
        let found = try inspector.captureFacts(of: table, declared: declared)
        let literal = declared.allSatisfy { $0?.defaultSQL.map(Self.isLiteral) ?? true }
        repeatable[name] = literal
        if literal { store.store(found, for: key) }
        return found
    }

    /// The foreign keys between the synced `tables` (in name order): the ones found before when `schema`
    /// and every declaration are unchanged, else `find()`'s, kept when every table's last inspection
    /// (``captureFacts(of:schema:inspector:)``, called first) would repeat exactly.
    mutating func foreignKeys(
        of tables: [SyncedTable], schema: SQLiteName.Key, find: () throws -> [ForeignKey]
    ) rethrows -> [ForeignKey] {
        let key = InspectionStore.KeysKey(schema: schema, declarations: tables.map(Self.declaration(of:)))
        let literal = tables.allSatisfy { repeatable[SQLiteName.Key($0.name)] ?? false }
        if literal, let found = store.keys(key) { return found }
        let found = try find()
        if literal { store.store(found, for: key) }
        return found
    }

    /// Whether a column's DEFAULT text (as `PRAGMA table_xinfo` gives it) is a literal, which evaluates
    /// to the same value every time: a number, a string, a blob, NULL, TRUE or FALSE, maybe signed.
    /// Anything else (`CURRENT_TIMESTAMP`, a parenthesized expression) counts as not repeatable.
    static func isLiteral(_ sql: String) -> Bool {
        var text = Substring(sql).drop { $0 == " " || $0 == "+" || $0 == "-" }
        while text.last == " " { text = text.dropLast() }
        guard let first = text.first else { return false }
        if first.isASCII && (first.isNumber || first == ".") {
            return text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._+-".contains($0)) }
        }
        if first == "x" || first == "X", text.dropFirst().first == "'" { text = text.dropFirst() }
        if text.first == "'" {
            // One quoted string: quotes inside it come doubled.
            guard text.count >= 2, text.last == "'" else { return false }
            return !text.dropFirst().dropLast().replacing("''", with: "").contains("'")
        }
        return ["null", "true", "false"].contains(text.lowercased())
    }
}
