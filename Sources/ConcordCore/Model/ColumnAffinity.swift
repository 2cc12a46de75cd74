/// A column's type affinity: how SQLite converts a value stored in it (section 3.1 of "Datatypes In SQLite").
///
/// A value merged from a peer is shown in this replica's user table, whose
/// affinity may turn it into another value: `0.0` into `0` in an INTEGER
/// column, `5` into `'5'` in a TEXT column. Registers keep the value as
/// written (a peer whose column has another type wrote it so), and the table
/// shows the converted one. ``mayConvert(_:)`` says cheaply whether SQLite would touch a value; only then
/// is SQLite asked what it makes of it (see `RegisterStore.conversions(of:)` in Concord).
///
/// ```swift
/// ColumnAffinity(declaredType: "VARCHAR(20)")     // .text
/// ColumnAffinity.integer.mayConvert(.real(2.0))   // true: stored as 2
/// ColumnAffinity.text.mayConvert(.blob([1]))      // false: blobs are never converted
/// ```
package enum ColumnAffinity: String, Hashable, Sendable {
    case text = "TEXT"
    case numeric = "NUMERIC"
    case integer = "INTEGER"
    case real = "REAL"
    case blob = "BLOB"

    /// SQLite's rules, in their order: INT, then CHAR/CLOB/TEXT, then BLOB or no type, then REAL/FLOA/DOUB, else NUMERIC;
    /// in a STRICT table, `ANY` keeps every value as it is written, like no type at all.
    package init(declaredType: String, strict: Bool = false) {
        let type = declaredType.uppercased()
        if strict && type == "ANY" {
            self = .blob
        } else if type.contains("INT") {
            self = .integer
        } else if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") {
            self = .text
        } else if type.contains("BLOB") || type.isEmpty {
            self = .blob
        } else if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") {
            self = .real
        } else {
            self = .numeric
        }
    }

    /// Whether storing `value` in a column of this affinity could change it.
    package func mayConvert(_ value: SQLiteValue) -> Bool {
        switch (self, value) {
        case (.blob, _), (_, .null), (_, .blob): false
        case (.text, .text): false
        case (.text, _): true
        case (.integer, .integer), (.numeric, .integer): false
        case (.integer, _), (.numeric, _): true
        // A REAL column stores an integral real as an integer, and so reads -0.0 back as 0.0.
        case (.real, .real(let real)): real == 0 && real.sign == .minus
        case (.real, _): true
        }
    }
}
