/// What ``Replica/check()`` found.
///
/// ```swift
/// let report = try replica.check()
/// for problem in report.problems { print(problem) }   // each says what is wrong, and where
/// ```
public struct CheckReport: Hashable, Sendable, CustomStringConvertible {
    /// Each problem, in a stable order; empty when the replica is consistent.
    public var problems: [Problem]

    /// Whether nothing is wrong: the user tables are exactly what the registers prescribe.
    public var isConsistent: Bool { problems.isEmpty }

    /// `ok`, or one problem a line, each starting with `- `, as `concord check` prints it.
    public var description: String {
        isConsistent ? "ok" : problems.map { "- \($0)" }.joined(separator: "\n")
    }

    /// One way the replica is not what its registers prescribe.
    public enum Problem: Hashable, Sendable, CustomStringConvertible {
        /// A line of `PRAGMA integrity_check` other than `ok`.
        case integrity(String)
        /// Synced columns that incremental BLOB I/O could write in place, around the capture triggers: the
        /// table's in-place write guard is missing or does not cover them.
        case writableInPlace(table: String, columns: [String])
        /// A row of `PRAGMA foreign_key_check`: the child table's row (by rowid) and the parent table it misses.
        case foreignKey(table: String, rowid: SQLiteValue, parent: String)
        /// A user row with no registers (written while capture was off?).
        case unrecorded(RowRef)
        /// More than one register row for one key.
        case duplicateRegisters(RowRef)
        /// Visible by its registers, yet not shown; the parking reason if any.
        case visibleButNotShown(RowRef, parked: String?)
        /// Shown with other values than its registers (with stand-ins) give.
        case wrongValues(RowRef, shown: [SQLiteValue], expected: [SQLiteValue])
        /// Shown and also kept in the hidden table, or shown with stand-ins and no hidden copy of the real values.
        case hiddenCopy(RowRef, missing: Bool)
        /// Shown although parked.
        case shownButParked(RowRef)
        /// Shown although its registers hide it (for this reason).
        case shownButHidden(RowRef, reason: String)
        /// Not shown for this reason, but not listed as parked.
        case notParked(RowRef, reason: String)
        /// Deleted, but listed as parked.
        case deletedButParked(RowRef)
        /// Hidden, but its values are not in the hidden table.
        case hiddenValuesMissing(RowRef)
        /// A counter whose value is not the sum of its contributions.
        case counterSum(RowRef, column: String, holds: SQLiteValue, sum: Int64)
        /// A union whose value is not in canonical form.
        case unionNotCanonical(RowRef, column: String, holds: SQLiteValue, canonical: SQLiteValue)
        /// Listed as parked, but with no registers.
        case parkedWithoutRegisters(RowRef)
        /// Registers stored at a version above the replica's own, which exports after that version skip.
        case versionAhead(RowRef, version: Int64, replica: Int64)

        /// The problem in one line, naming the table and key (or column) it is about.
        public var description: String {
            switch self {
            case .integrity(let line): "integrity check: \(line)"
            case .writableInPlace(let table, let columns):
                "\(table): column(s) \(columns.joined(separator: ", ")) can be written in place (sqlite3_blob_write), "
                    + "which no trigger captures: the index \(table)'s guard needs is missing or does not cover them"
            case .foreignKey(let table, let rowid, let parent):
                "foreign key check: row \(rowid) of \(table) references missing \(parent)"
            case .unrecorded(let row):
                "\(Self.name(row)): in the table but has no registers (written while capture was off?)"
            case .duplicateRegisters(let row): "\(Self.name(row)): has more than one register row"
            case .visibleButNotShown(let row, let parked):
                "\(Self.name(row)): visible but not shown (\(parked ?? "not parked"))"
            case .wrongValues(let row, let shown, let expected):
                "\(Self.name(row)): shows \(shown), its registers give \(expected)"
            case .hiddenCopy(let row, let missing):
                "\(Self.name(row)): " + (missing ? "hidden copy missing" : "shown and also kept hidden")
            case .shownButParked(let row): "\(Self.name(row)): shown but still parked"
            case .shownButHidden(let row, let reason): "\(Self.name(row)): shown but \(reason)"
            case .notParked(let row, let reason): "\(Self.name(row)): not shown (\(reason)) but not parked"
            case .deletedButParked(let row): "\(Self.name(row)): deleted but parked"
            case .hiddenValuesMissing(let row): "\(Self.name(row)): hidden but its values are missing"
            case .counterSum(let row, let column, let holds, let sum):
                "\(Self.name(row)).\(column): counter holds \(holds) but its contributions add up to \(sum)"
            case .unionNotCanonical(let row, let column, let holds, let canonical):
                "\(Self.name(row)).\(column): union holds \(holds), not the canonical \(canonical)"
            case .parkedWithoutRegisters(let row): "\(Self.name(row)): parked but has no registers"
            case .versionAhead(let row, let version, let replica):
                "\(Self.name(row)): stored at version \(version), above the replica's \(replica)"
            }
        }

        private static func name(_ row: RowRef) -> String { "\(row.table) \(row.key)" }
    }
}
