import Foundation

/// A foreign key from one synced table's column to another synced table's key.
///
/// Discovered from the schema (`PRAGMA foreign_key_list`); its `ON DELETE`
/// action decides what a child shows when its parent is not visible:
/// `CASCADE`, `RESTRICT` and `NO ACTION` hide the child, `SET NULL` and
/// `SET DEFAULT` show NULL or the column's default while the register keeps
/// the real value.
///
/// ```swift
/// // reminders.list_id REFERENCES lists(id) ON DELETE CASCADE
/// ForeignKey(child: "reminders", column: 1, parent: "lists", action: .cascade, defaultValue: .null)
/// ```
public struct ForeignKey: Hashable, Sendable {
    /// The key's `ON DELETE` action, as SQLite spells it (its raw value).
    public enum Action: String, Hashable, Sendable {
        /// `CASCADE`: the child is hidden while its parent is not visible.
        case cascade = "CASCADE"
        /// `RESTRICT`: the child is hidden while its parent is not visible, and a child written after
        /// the parent's delete brings the parent back.
        case restrict = "RESTRICT"
        /// `NO ACTION`: synced as `RESTRICT` is.
        case noAction = "NO ACTION"
        /// `SET NULL`: the child stays shown, with NULL in the column while its parent is not visible.
        case setNull = "SET NULL"
        /// `SET DEFAULT`: the child stays shown, with the column's default while its parent is not visible.
        case setDefault = "SET DEFAULT"

        /// Whether a child needs the parent visible to be visible itself.
        public var hidesChild: Bool { self == .cascade || self == .restrict || self == .noAction }
        /// Whether a child written after the parent's delete brings the parent back.
        public var revivesParent: Bool { self == .restrict || self == .noAction }
    }

    /// The referencing table.
    public let child: String
    /// The index, among the child's synced columns, of the referencing column.
    public let column: Int
    /// The referenced table, whose key the column holds.
    public let parent: String
    /// What the child shows while the parent is not visible.
    public let action: Action
    /// What a `SET DEFAULT` child shows while its parent is not visible.
    public let defaultValue: SQLiteValue
    /// Whether the parent's key column has TEXT affinity, which SQLite applies to a child's value
    /// before it compares it with the key (a key is TEXT or BLOB; BLOB affinity converts nothing).
    public let parentKeyIsText: Bool

    /// A foreign key from `child`'s column at `column` to `parent`'s key; `defaultValue` matters for
    /// `SET DEFAULT` only, `parentKeyIsText` for a child holding a number.
    public init(
        child: String, column: Int, parent: String, action: Action, defaultValue: SQLiteValue = .null,
        parentKeyIsText: Bool = false
    ) {
        self.child = child
        self.column = column
        self.parent = parent
        self.action = action
        self.defaultValue = defaultValue
        self.parentKeyIsText = parentKeyIsText
    }
}

extension ForeignKey {
    /// The parent key a child's `value` names, as SQLite's own foreign-key check finds it.
    ///
    /// SQLite applies the parent key's affinity to the child's value before comparing: an INTEGER
    /// column holding `1` references the TEXT key `'1'`, and a REAL column holding `1.5` the key
    /// `'1.5'`. Looked up by the raw value, such a child would be parked "missing parent" on every
    /// device while SQLite itself accepted it. A real becomes text as SQLite 3.40 prints it (15
    /// significant digits, always a decimal point); a replica asks its own SQLite instead, so that a
    /// library that prints reals otherwise still agrees with its own foreign-key check.
    ///
    /// ```swift
    /// key.parentKey(of: .integer(1))   // .text("1") when the parent's key is TEXT
    /// key.parentKey(of: .real(1e20))   // .text("1.0e+20")
    /// ```
    public func parentKey(of value: SQLiteValue) -> SQLiteValue {
        guard parentKeyIsText else { return value }
        switch value {
        case .integer(let integer): return .text(String(integer))
        case .real(let real): return .text(Self.sqliteText(of: real))
        case .null, .text, .blob: return value
        }
    }

    /// A real as SQLite 3.40 turns it into text (`%!.15g`): `1.0`, `0.1`, `1.0e+20`, `Inf`.
    static func sqliteText(of real: Double) -> String {
        if real.isInfinite { return real < 0 ? "-Inf" : "Inf" }
        if real == 0 { return "0.0" }
        var text = String(format: "%.15g", real)
        let exponent = text.firstIndex(of: "e") ?? text.endIndex
        if !text[..<exponent].contains(".") { text.insert(contentsOf: ".0", at: exponent) }
        return text
    }
}
