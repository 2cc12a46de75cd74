/// Which of SQLite's table-valued JSON functions a union column's guard trigger reads an array with.
///
/// Why: a table or view the app names `json_each` (in any ASCII case) hides the function of that
/// name from every trigger of the schema, and each write to a table whose trigger calls it would be
/// refused with `'json_each' is not a function`. A trigger cannot name `temp.json_each` instead, so
/// the guard walks with `json_tree`, which reads the same top-level elements, while that name is
/// free. When the app took both names, a union column cannot be guarded: enabling sync on its table is
/// refused, and a table that already syncs stops (``Replica/schemaRefusals``) while its guards refuse
/// every value but NULL, saying why, until one name is free again.
///
/// Between the app's creating such a table and Concord's next look (any fold, export, apply or status),
/// SQLite itself refuses the app's writes to union tables, and `ALTER TABLE … RENAME` anywhere in the
/// schema (it parses every trigger); nothing is lost, and Concord's next look makes the guards anew.
///
/// ```swift
/// let walker = try JSONWalker.unhidden(in: database)   // .each, unless the app has a `json_each`
/// walker?.hasElement(of: "NEW.\"tags\"", where: "type <> 'text'")
/// ```
enum JSONWalker: Sendable {
    case each, tree

    /// The walker no table or view of the `main` schema hides, `json_each` first; `nil` when both are hidden.
    ///
    /// (A temporary table does not hide it: triggers of `main` see only `main`'s objects.)
    static func unhidden(in database: Database) throws -> JSONWalker? {
        let hidden = try database.query(
            """
            SELECT lower(name) FROM main.sqlite_schema
            WHERE type IN ('table', 'view') AND lower(name) IN ('json_each', 'json_tree') ORDER BY 1
            """
        ).compactMap { $0[0].textValue }
        if !hidden.contains("json_each") { return .each }
        return hidden.contains("json_tree") ? nil : .tree
    }

    /// SQL that is true when the JSON array `array` (an SQL expression) has an element for which `condition`
    /// (over `json_each`'s columns: `type`, `value`, …) holds.
    func hasElement(of array: String, where condition: String) -> String {
        switch self {
        case .each: "EXISTS (SELECT 1 FROM json_each(\(array)) WHERE \(condition))"
        // The array's own row is the one whose full key is the root; its elements are the rows under it.
        case .tree: "EXISTS (SELECT 1 FROM json_tree(\(array)) WHERE path = '$' AND fullkey <> '$' AND \(condition))"
        }
    }

    /// Why a table with union columns cannot be guarded while the app's schema hides both walkers, and the fix.
    static func hiddenReason(union column: String) -> (reason: String, fix: String) {
        (
            "tables or views named json_each and json_tree hide the SQLite functions that guard its union column "
                + column, hiddenFix
        )
    }

    /// What the app does when its schema hides both walkers.
    static let hiddenFix = "rename or drop the table or view named json_each or json_tree"
}
