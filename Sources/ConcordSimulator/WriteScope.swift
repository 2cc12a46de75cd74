import Concord

/// The synced tables an app statement can change, read from a device's schema once per schema.
///
/// Why: the ledger records a statement with the tables as the app saw them
/// before and after it (``TableSnapshot``), and reading every table twice per
/// write was a large part of a step. A statement changes the table it names
/// and, through foreign-key actions (cascades, SET NULL, SET DEFAULT, and
/// Concord's own cascade when the app leaves foreign keys off), the tables
/// whose keys reach that one, transitively — nothing else, unless a trigger of
/// the app's own fires on one of them: its writes may reach any table, so such a
/// statement, and one whose table cannot be told, is given every table.
///
/// ```swift
/// let scope = try WriteScope(of: replica)
/// scope.tables(writtenBy: "DELETE FROM lists WHERE id = 'l1'")   // lists, reminders, subtasks, reminder_tags
/// ```
struct WriteScope {
    /// The synced tables, as the replica declares them.
    let tables: [TableSchema]
    /// The foreign keys between synced tables.
    let foreignKeys: [ForeignKey]
    private let children: [String: [String]]
    /// The tables an app trigger (not one of Concord's) fires on, as the schema spells them: the file's
    /// triggers, and the `TEMP` ones the app made on its own connection, which only its statements fire.
    private let triggered: [String]
    /// The synced tables an app trigger deletes from (its text says `DELETE FROM` the table): rows a merge
    /// may delete here, which the device's next fold stamps as its own deletes. Not a view's `INSTEAD OF`
    /// trigger's, nor a `TEMP` one's: no merge fires those.
    let deletedByTriggers: Set<String>

    /// The scope on `replica`'s schema, with the `TEMP` triggers of `app`, the app's own connection.
    init(of replica: Replica, app: Database? = nil) throws {
        tables = replica.tables.map(\.schema)
        foreignKeys = try OracleSchema(of: replica).foreignKeys
        children = Dictionary(grouping: foreignKeys, by: \.parent).mapValues { $0.map(\.child) }
        let triggers = try replica.database.query(
            """
            SELECT tbl_name, lower(sql), tbl_name IN (SELECT name FROM main.sqlite_schema WHERE type = 'view')
            FROM main.sqlite_schema
            WHERE type = 'trigger' AND lower(substr(name, 1, 9)) <> '_concord_' ORDER BY name
            """)
        let temporary = try app?.query("SELECT tbl_name FROM temp.sqlite_schema WHERE type = 'trigger' ORDER BY name")
        triggered = (triggers + (temporary ?? [])).compactMap { $0[0].textValue }
        // Searched as bytes: a text search (Foundation's or the standard library's) over these bodies, once per
        // table and spelling, was 2% to 3% of a simulation's instructions.
        let bodies = triggers.filter { $0[2] == .integer(0) }.compactMap { $0[1].textValue.map { Array($0.utf8) } }
        deletedByTriggers = Set(
            tables.map(\.name).filter { name in
                let spellings = [name.lowercased(), quoteIdentifier(name).lowercased()].map {
                    Array("delete from \($0)".utf8)
                }
                return bodies.contains { body in spellings.contains { Self.bytes(body, contain: $0) } }
            })
    }

    /// Whether `needle` occurs in `haystack`, byte for byte.
    private static func bytes(_ haystack: [UInt8], contain needle: [UInt8]) -> Bool {
        guard let first = needle.first, haystack.count >= needle.count else { return needle.isEmpty }
        for start in 0...(haystack.count - needle.count) where haystack[start] == first {
            if haystack[start..<start + needle.count].elementsEqual(needle) { return true }
        }
        return false
    }

    /// The tables `sql` can change, in declaration order.
    func tables(writtenBy sql: String) -> [TableSchema] {
        let named = Statement.tables(namedBy: sql)
        let starts = named.compactMap { name in tables.first { SQLiteName.same($0.name, name) }?.name }
        guard !named.isEmpty, starts.count == named.count else { return tables }
        var reached = Set(starts)
        var pending = starts
        while let parent = pending.popLast() {
            for child in children[parent] ?? [] where reached.insert(child).inserted { pending.append(child) }
        }
        if reached.contains(where: { name in triggered.contains { SQLiteName.same($0, name) } }) { return tables }
        return tables.filter { reached.contains($0.name) }
    }
}
