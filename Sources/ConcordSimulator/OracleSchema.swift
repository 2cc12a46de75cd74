import Concord

/// The declarations the reference model is given: the synced tables as the replica declares them,
/// their foreign keys between synced tables, their NOT NULL columns, and their columns' defaults.
///
/// The tables are the replica's own ``TableSchema`` declarations (the ones its
/// changesets carry). Concord has no public list of the foreign keys it obeys or
/// of the NOT NULL columns it parks rows for, so those two are read here from
/// SQLite's pragmas the way the engine reads them when sync is enabled: one key
/// per referencing column onto a synced table, by the column's position among
/// the synced columns, with its `ON DELETE` action and its column's default
/// evaluated once. A column's DEFAULT is what a row shows there until someone
/// writes it (a column a migration added has no register in the rows before it).
///
/// ```swift
/// let schema = try OracleSchema(of: replica)
/// let model = ReferenceModel(tables: schema.tables, foreignKeys: schema.foreignKeys,
///                            ledger: ledger, notNull: schema.notNull, defaults: schema.defaults)
/// ```
struct OracleSchema {
    let tables: [TableSchema]
    let foreignKeys: [ForeignKey]
    let notNull: [String: Set<Int>]
    /// Table → column position → the column's DEFAULT, evaluated, for the columns that declare one.
    let defaults: [String: [Int: SQLiteValue]]

    init(of replica: Replica) throws {
        let synced = replica.tables
        tables = synced.map(\.schema)
        var keys: [ForeignKey] = []
        var notNull: [String: Set<Int>] = [:]
        var defaults: [String: [Int: SQLiteValue]] = [:]
        for table in synced {
            let info = try replica.database.pragma("table_xinfo", of: table.name)
            let byName = Dictionary(info.map { ($0.text("name") ?? "", $0) }, uniquingKeysWith: { first, _ in first })
            notNull[table.name] = Set(
                table.columns.indices.filter { byName[table.columns[$0]]?.integer("notnull") == 1 })
            for (index, column) in table.columns.enumerated() {
                guard let expression = byName[column]?.text("dflt_value") else { continue }
                defaults[table.name, default: [:]][index] = try replica.database.scalar("SELECT \(expression)") ?? .null
            }
            for link in try replica.database.foreignKeyList(of: table.name) {
                guard let column = table.columns.firstIndex(where: { SQLiteName.same($0, link.text("from") ?? "") }),
                    let parent = synced.first(where: { SQLiteName.same($0.name, link.text("table") ?? "") })
                else { continue }
                // SQLite compares a child's value with the key under the key column's affinity.
                let keyType = try replica.database.columnInfo(parent.key, of: parent.name)?.text("type") ?? ""
                keys.append(
                    ForeignKey(
                        child: table.name, column: column, parent: parent.name,
                        action: ForeignKey.Action(rawValue: link.text("on_delete")?.uppercased() ?? "") ?? .noAction,
                        defaultValue: defaults[table.name]?[column] ?? .null,
                        parentKeyIsText: ColumnAffinity(declaredType: keyType) == .text))
            }
        }
        foreignKeys = keys
        self.notNull = notNull
        self.defaults = defaults
    }
}
