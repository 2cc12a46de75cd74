import Concord
import Foundation

/// Whether a table's CHECK constraints take a row's values, as SQLite itself decides: the reference model
/// asks before it shows a row.
///
/// Why: two edits that are each fine may merge into a row its CHECK refuses
/// (one device raises a range's low end while another lowers its high end),
/// and the engine then parks the row for the constraint. A ``TableSchema``
/// carries no CHECK; rather than read the engine's verdict, the model tries
/// the values on an empty copy of the table in a scratch database, whose
/// CREATE statement is the replica's own, so SQLite judges them as it judges
/// the app's writes. Only tables whose statement mentions CHECK are copied (a
/// name holding the word only costs a copy: its verdict is still SQLite's).
///
/// ```swift
/// let checks = try CheckConstraints(of: replica)
/// checks?.accepts(table: "ranges", key: "r1", values: [.integer(7), .integer(6), .text("milk")])   // false
/// ```
final class CheckConstraints: @unchecked Sendable {
    private let database: Database
    private let lock = NSLock()
    /// Per copied table, the INSERT of a row's key and columns, in the declaration's order.
    private let inserts: [String: String]

    /// The CHECK constraints of the tables `replica` syncs, or `nil` when none has one.
    init?(of replica: Replica) throws {
        var statements: [String: (create: String, insert: String)] = [:]
        for table in replica.tables {
            guard
                let create = try replica.database.scalar(
                    "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", [.text(table.name)]
                )?.textValue, create.range(of: "CHECK", options: .caseInsensitive) != nil
            else { continue }
            let columns = ([table.key] + table.columns).map(quoteIdentifier).joined(separator: ", ")
            let placeholders = Array(repeating: "?", count: table.columns.count + 1).joined(separator: ", ")
            statements[table.name] = (
                create, "INSERT INTO \(quoteIdentifier(table.name)) (\(columns)) VALUES (\(placeholders))"
            )
        }
        guard !statements.isEmpty else { return nil }
        database = try Database(path: ":memory:")
        for name in statements.keys.sorted() { try database.execute(statements[name]!.create) }
        inserts = statements.mapValues(\.insert)
    }

    /// Whether `table` has CHECK constraints.
    func constrains(table: String) -> Bool { inserts[table] != nil }

    /// Whether `table` takes a row of key `key` showing `values` (every column, in order); a table without
    /// CHECK constraints takes any.
    func accepts(table: String, key: SQLiteValue, values: [SQLiteValue]) -> Bool {
        guard let insert = inserts[table] else { return true }
        return lock.withLock {
            do {
                try database.execute("SAVEPOINT check_row")
                defer { try? database.execute("ROLLBACK TO check_row; RELEASE check_row") }
                try database.execute(insert, [key] + values)
                return true
            } catch {
                return false
            }
        }
    }
}
