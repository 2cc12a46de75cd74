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

    /// A foreign key from `child`'s column at `column` to `parent`'s key; `defaultValue` matters for `SET DEFAULT` only.
    public init(child: String, column: Int, parent: String, action: Action, defaultValue: SQLiteValue = .null) {
        self.child = child
        self.column = column
        self.parent = parent
        self.action = action
        self.defaultValue = defaultValue
    }
}
