/// How a synced table's live schema differs from the declaration Concord keeps for it.
///
/// Concord compares the table `PRAGMA table_xinfo` describes with the column
/// list stored in `_concord_tables`. Columns appended at the end that every
/// replica can fill on its own (nullable, or with a DEFAULT) are *additive*:
/// the metadata follows them. Anything that would leave registers no column
/// shows, or make two devices' positions disagree — a dropped, renamed or
/// reordered column, a dropped or renamed table, another primary key, a
/// UNIQUE index besides the key — is *destructive*, and the table stops
/// syncing until the change is undone.
///
/// ```swift
/// let change = try SchemaChange.of(table, in: database)
/// if case .destructive(let what, let fix) = change.kind { print(what, fix) }
/// ```
struct SchemaChange: Equatable {
    /// A column the live table has that the declaration does not.
    struct NewColumn: Equatable {
        var name: String
        /// The SQL text of its DEFAULT (`nil` when it has none).
        var defaultSQL: String?
    }

    enum Kind: Equatable {
        /// The live columns are the declared ones.
        case unchanged
        /// Columns were appended, each nullable or with a DEFAULT.
        case additive([NewColumn])
        /// The table cannot sync as it is: what changed, and how to fix it.
        case destructive(change: String, fix: String)
    }

    let kind: Kind
    /// Whether the capture triggers are gone (the table was rebuilt by a migration).
    let triggersMissing: Bool

    /// Whether the metadata or the triggers need to follow the live table.
    var needsAdoption: Bool {
        if case .destructive = kind { return false }
        return triggersMissing || kind != .unchanged
    }

    /// The fix of every destructive change: undo it, or stop syncing the table first.
    static func fix(_ table: String, _ first: String) -> String {
        "\(first); or, to make the change anyway, run `concord disable DB --table \(table)` "
            + "(Replica.disableSync(on:)) first and enable sync again after the migration"
    }

    /// Compares `table`'s live schema in `database` with its declaration.
    static func of(_ table: SyncedTable, in database: Database, triggersMissing: Bool) throws -> SchemaChange {
        let columns = try database.pragma("table_xinfo", of: table.name)
        func destructive(_ change: String, _ fix: String, evenAfterDisable: Bool = false) -> SchemaChange {
            // A change enable refuses as well cannot be made "anyway" by disabling first.
            SchemaChange(
                kind: .destructive(change: change, fix: evenAfterDisable ? fix : Self.fix(table.name, fix)),
                triggersMissing: false)
        }
        guard !columns.isEmpty else {
            return destructive(
                "the table no longer exists (dropped or renamed)",
                "rename it back, or create it again with its rows (from a backup: created empty, it would delete "
                    + "them on every device, as the drop took their values)")
        }
        // Names compare by their bytes, as SQLite's do: `String`'s `==` takes `Å` (U+00C5) and `Å` (U+212B)
        // for one, and a column renamed from one to the other would go unnoticed.
        let keys = columns.filter { $0.integer("pk") != 0 }.compactMap { $0.text("name") }
        guard keys.map(SQLiteName.Key.init) == [SQLiteName.Key(table.key)] else {
            return destructive(
                "its primary key is now \(keys.isEmpty ? "missing" : keys.joined(separator: ", ")), not \(table.key)",
                "give it back its primary key \(table.key)")
        }
        if let (change, fix) = try TableInspector(database).keyProblem(of: table.name, rows: columns) {
            return destructive(change, "declare the key as before (\(fix))")
        }
        let live = columns.filter { $0.integer("pk") == 0 && $0.integer("hidden") == 0 }
        let names = live.compactMap { $0.text("name") }
        if let kind = columnChange(declared: table.columns, live: names) {
            return destructive(kind.change, kind.fix)
        }
        // A counter holds integers: a rebuild that declares its column TEXT or REAL would store them converted,
        // and the counter's guard would then refuse Concord's own writes, stopping every table of the file.
        for (index, column) in zip(table.columns.indices, live)
        where table.merges[index] == .counter
            && [.text, .real].contains(ColumnAffinity(declaredType: column.text("type") ?? ""))
        {
            return destructive(
                "its counter column \(table.columns[index]) is now declared \(column.text("type") ?? ""), "
                    + "which stores integers converted",
                "declare \(table.columns[index]) INTEGER again")
        }
        if let index = try TableInspector.firstUniqueIndex(of: table.name, in: database) {
            return destructive(TableInspector.uniqueIndexReason(index), TableInspector.uniqueIndexFix)
        }
        let added = live.dropFirst(table.columns.count)
        // Read back as empty too: a name that is not UTF-8.
        if added.contains(where: { ($0.text("name") ?? "").isEmpty }) {
            return destructive(
                "its new column's name is empty (or is not UTF-8), and changesets name every column they carry",
                "rename the new column (ALTER TABLE \(quoteIdentifier(table.name)) RENAME COLUMN ... TO a name)")
        }
        if let (twin, column) = Self.twin(among: names) {
            return destructive(
                "its new column \(column) and its column \(twin) have different Unicode bytes "
                    + "(\(Hex.encode(Array(twin.utf8))) and \(Hex.encode(Array(column.utf8)))) that read as the same text",
                "rename the new column \(column)")
        }
        for column in added where column.integer("notnull") != 0 && column["dflt_value"] == .null {
            return destructive(
                "its new column \(column.text("name") ?? "") is NOT NULL without a DEFAULT, so rows written by "
                    + "devices that do not have it yet could not show",
                "give the column a DEFAULT, or make it nullable")
        }
        if live.count > TableInspector.maxColumns(in: database) {
            return destructive(
                TableInspector.tooManyColumnsReason(live.count, in: database),
                "drop the columns added, or " + TableInspector.tooManyColumnsFix
                    + " (enabling sync refuses a table this wide too, so disabling it first does not help)",
                evenAfterDisable: true)
        }
        let new = added.map { NewColumn(name: $0.text("name") ?? "", defaultSQL: $0.text("dflt_value")) }
        return SchemaChange(kind: new.isEmpty ? .unchanged : .additive(new), triggersMissing: triggersMissing)
    }

    /// The first column of `names` whose text reads as an earlier one's with other bytes, with that earlier
    /// one: Concord tells columns apart by text where SQLite tells them apart by bytes, so it refuses both.
    private static func twin(among names: [String]) -> (String, String)? {
        var seen: [String: String] = [:]
        for name in names {
            if let twin = seen[name], !twin.utf8.elementsEqual(name.utf8) { return (twin, name) }
            seen[name] = seen[name] ?? name
        }
        return nil
    }

    /// What is wrong with the live column list, if the declared columns are not its start.
    ///
    /// Names compare as SQLite's do: by their bytes, but for ASCII case (a column renamed from `title` to
    /// `TITLE` is the same column to SQLite, and to the SQL Concord writes).
    private static func columnChange(declared: [String], live: [String]) -> (change: String, fix: String)? {
        let kept = live.count >= declared.count && zip(declared, live).allSatisfy { SQLiteName.same($0, $1) }
        guard !kept else { return nil }
        let gone = declared.filter { name in !live.contains { SQLiteName.same($0, name) } }
        if !gone.isEmpty {
            let list = gone.joined(separator: ", ")
            return (
                "column(s) \(list) dropped or renamed",
                "put back column(s) \(list) as they were; to rename a column, add a new column "
                    + "and copy the values instead, and stop writing the old one"
            )
        }
        return (
            "its columns were reordered, or a column was inserted before existing ones",
            "put the columns back in their order (\(declared.joined(separator: ", "))) and add new columns at the end"
        )
    }
}
