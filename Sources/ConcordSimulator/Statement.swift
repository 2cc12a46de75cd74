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

    /// INSERT (with any conflict clause, or REPLACE), UPDATE or DELETE, from the statement's first word.
    var kind: Ledger.Kind? {
        switch sql.split(whereSeparator: \.isWhitespace).first?.uppercased() {
        case "INSERT", "REPLACE": .insert
        case "UPDATE": .update
        case "DELETE": .delete
        default: nil
        }
    }

    /// The table the statement names.
    var table: String? { Self.table(writtenBy: sql) }

    /// The table an INSERT, UPDATE or DELETE statement names.
    static func table(writtenBy sql: String) -> String? {
        let words = sql.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let keyword = words.firstIndex(where: { ["INTO", "UPDATE", "FROM"].contains($0.uppercased()) }),
            keyword + 1 < words.count
        else { return nil }
        return words[keyword + 1].trimmingCharacters(in: CharacterSet(charactersIn: "\"`[]("))
    }

    /// What the statement did to `row`: its own kind for a row of its table (a row a DELETE left in
    /// place was set by a self-referencing key), otherwise the foreign-key action that changed it.
    func kind(of row: RowRef) -> Ledger.Kind {
        let (was, now) = (before[row] != nil, after[row] != nil)
        if row.table == table, let kind, !(kind == .delete && now) { return kind }
        // Gone from its table: `ON DELETE CASCADE`; still there: `SET NULL` / `SET DEFAULT`.
        return was && !now ? .delete : !was && now ? .insert : .update
    }

    /// The values written to `row`, by column: every column for an insert or a row-policy table, else
    /// those whose stored value changed; for a `counter` column, the change made (new minus old).
    func values(of row: RowRef, kind: Ledger.Kind, table: TableSchema) -> [Int: SQLiteValue] {
        guard kind != .delete, let new = after[row] else { return [:] }
        let old = kind == .insert ? nil : before[row]
        var values: [Int: SQLiteValue] = [:]
        for index in table.columns.indices {
            guard table.policy == .column else {
                values[index] = new[index]
                continue
            }
            if let old, old[index] == new[index] { continue }
            values[index] =
                table.merges[index] == .counter
                ? .integer((new[index].integerValue ?? 0) &- (old?[index].integerValue ?? 0)) : new[index]
        }
        return values
    }
}
