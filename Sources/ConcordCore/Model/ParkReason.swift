/// Why an alive row is not shown in its table, as `concord status` lists it.
///
/// A parked row keeps its registers and is shown the moment the reason goes
/// away (its parent arrives, a constraint is relaxed); nothing about it is
/// lost. The reason is stored with each parked row (`_concord_parked.kind`
/// holds its numeric `kind`, `reason` the text), so status and check need no
/// recomputation and never parse their own messages.
///
/// ```swift
/// ParkReason.missingParent(table: "lists", key: "l1").description   // "missing parent lists/l1"
/// ```
public enum ParkReason: Hashable, Sendable, CustomStringConvertible {
    /// It references, through a hiding key, a parent this replica never heard of.
    case missingParent(table: String, key: SQLiteValue)
    /// It references a parent that is not shown (deleted, or parked itself).
    case hiddenParent(table: String, key: SQLiteValue)
    /// It is on a cycle of hiding references (concurrent moves), through this row.
    case onCycle(table: String, key: SQLiteValue)
    /// Showing it would break a constraint of the user table (NOT NULL, CHECK); SQLite's message.
    case constraint(String)
    /// Its key cannot sync (a number or NULL, stored before keys were checked); it stays in the
    /// table, unsynced, until the app deletes it or gives it a TEXT or BLOB key.
    case unsyncableKey(type: String)

    /// The code stored in `_concord_parked.kind`.
    package var kind: Int64 {
        switch self {
        case .missingParent: 1
        case .hiddenParent: 2
        case .onCycle: 3
        case .constraint: 4
        case .unsyncableKey: 5
        }
    }

    /// The reason in a few words, naming the parent (as `table/key`) or quoting SQLite's message.
    public var description: String {
        switch self {
        case .missingParent(let table, let key): "missing parent \(table)/\(Self.describe(key))"
        case .hiddenParent(let table, let key): "parent \(table)/\(Self.describe(key)) is not visible"
        case .onCycle(let table, let key): "on a cycle through \(table)/\(Self.describe(key))"
        case .constraint(let message): Self.constraintPrefix + message
        case .unsyncableKey(let type):
            "its key is \(Self.article(type)), and a synced key must be TEXT or BLOB (such as a UUID); "
                + "it stays in the table unsynced: delete it, or insert it again under a TEXT key"
        }
    }

    /// A key's type name (`typeof()`) in the message: "NULL", "an integer", "a real".
    private static func article(_ type: String) -> String {
        if type == "null" { return "NULL" }
        return (type.first.map { "aeiou".contains($0) } ?? false ? "an " : "a ") + type
    }

    package static func describe(_ key: SQLiteValue) -> String { key.textValue ?? key.description }

    private static let constraintPrefix = "cannot be shown: "

    /// SQLite's message inside the stored text of a ``constraint(_:)`` reason.
    package static func constraintMessage(stored text: String) -> String {
        text.hasPrefix(constraintPrefix) ? String(text.dropFirst(constraintPrefix.count)) : text
    }
}
