/// The constants, integer codings and validity rules the binary and JSON changeset forms share.
///
/// Keeping the rules in one place means the encoder refuses exactly what the
/// decoders refuse: anything that encodes decodes, in either form, to an equal
/// changeset. The layout itself is documented on ``ChangesetEncoder``.
///
/// ```swift
/// var bytes: [UInt8] = []
/// ChangesetFormat.appendVarint(ChangesetFormat.zigzag(-3), to: &bytes)   // [5]
/// ```
enum ChangesetFormat {
    static let magic: [UInt8] = Array("CNCD".utf8)
    /// The formats this build reads, oldest first: every format ever written, so no older changeset is refused.
    static let supportedVersions: [UInt16] = [1, 2, 3]

    /// The oldest Concord release that reads each format, by format: written right after the format number
    /// from format 2 on (format 1 names none), and refused if it is not exactly the format's.
    ///
    /// It is fixed with its format rather than taken from ``ConcordRelease/current``: a later release that
    /// still writes format 2 writes "0.2.0", so equal changesets keep encoding to identical bytes.
    static let needs: [UInt16: String] = [2: "0.2.0", 3: "0.3.0"]

    /// The first format whose rows say what each write saw (``RowChange/seen``).
    static let firstWithSeen: UInt16 = 3

    /// What the format this build writes needs, as it writes it.
    static let writtenNeeds = needs[Changeset.formatVersion]!

    /// The longest release name a decoder shows from a format it does not read.
    static let maxReleaseLength = 32

    /// `bytes` as the name of a release — 1 to 32 ASCII letters, digits, `.`, `+` or `-`, as in `0.3.0` or
    /// `1.0.0-beta.2` — or `nil`.
    ///
    /// A decoder shows this name from a format it does not know, where nothing else can be trusted: the
    /// bytes after an unknown format number may mean anything, so only a short, printable name is worth
    /// putting in front of a person.
    static func releaseName(_ bytes: some Collection<UInt8>) -> String? {
        guard (1...maxReleaseLength).contains(bytes.count) else { return nil }
        let allowed = { (byte: UInt8) in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "."), UInt8(ascii: "+"), UInt8(ascii: "-"):
                true
            default: false
            }
        }
        return bytes.allSatisfy(allowed) ? String(decoding: bytes, as: UTF8.self) : nil
    }

    static let rowTag: UInt8 = 1
    static let endTag: UInt8 = 2

    static let nullTag: UInt8 = 0
    static let integerTag: UInt8 = 1
    static let realTag: UInt8 = 2
    static let textTag: UInt8 = 3
    static let blobTag: UInt8 = 4

    /// Policies by their byte in the binary form.
    static let policies: [TablePolicy] = [.column, .row]

    /// SQLite's default maximum string or blob length (`SQLITE_MAX_LENGTH`).
    static let maxLength: UInt64 = 1_000_000_000
    /// SQLite's hard upper bound on columns in a table (`SQLITE_MAX_COLUMN`).
    static let maxColumns: UInt64 = 32_767
    /// A bound that keeps every count convertible to `Int`.
    static let maxTables: UInt64 = UInt64(Int32.max)
    /// The same bound for the contributions of one counter register (one per node).
    static let maxContributions: UInt64 = UInt64(Int32.max)

    // MARK: Integer codings

    /// Maps signed to unsigned so small magnitudes get short varints: 0, -1, 1, -2 ... → 0, 1, 2, 3 ...
    static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    static func unzigzag(_ value: UInt64) -> Int64 {
        Int64(bitPattern: (value >> 1) ^ (0 &- (value & 1)))
    }

    /// Appends `value` as unsigned LEB128: seven bits a byte, low first, high bit = more follow.
    static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    static func appendUInt64(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    static func appendString(_ text: String, to bytes: inout [UInt8]) {
        appendVarint(UInt64(text.utf8.count), to: &bytes)
        bytes += text.utf8
    }

    // MARK: Rules

    /// Why `name` cannot name a table or column, or `nil` if it can.
    static func problem(identifier name: String) -> ChangesetError.Reason? {
        if name.isEmpty { return .emptyIdentifier }
        if name.utf8.contains(0) { return .identifierContainsNUL }
        if UInt64(name.utf8.count) > maxLength {
            return .lengthTooLarge(declared: UInt64(name.utf8.count), limit: maxLength)
        }
        return nil
    }

    /// Why `merge` cannot be written in a table's merge list, or `nil` if it can.
    ///
    /// Its name must be a valid identifier, and a custom merge must not use a
    /// built-in's name: the decoders parse names with ``ColumnMerge/init(name:)``,
    /// so `.custom("max")` would read back as `.max`.
    static func problem(merge: ColumnMerge) -> ChangesetError.Reason? {
        if let reason = problem(identifier: merge.name) { return reason }
        if case .custom(let name) = merge, ColumnMerge(name: name) != merge { return .customMergeShadowsBuiltIn(name) }
        return nil
    }

    /// Why a contribution of `node` cannot follow one of `previous` in a counter register, or `nil` if it can.
    ///
    /// Contributions are listed in strictly increasing node-id order, so each
    /// register has exactly one encoding and each node at most one entry.
    static func problem(contributionNode node: NodeID, after previous: NodeID?) -> ChangesetError.Reason? {
        guard let previous else { return nil }
        if node == previous { return .duplicateContribution(node) }
        if node < previous { return .contributionsOutOfOrder(previous: previous, found: node) }
        return nil
    }

    /// Why a register of a column merging with `merge` cannot carry `contributions`, or `nil` if it can.
    ///
    /// Returns the offending entry's field after the list's (`[j].causalLength`, `[j].stamp`,
    /// `[j].stamp.node`; empty when the list as a whole is wrong) and why.
    static func problem(
        contributions: [CounterContribution], merge: ColumnMerge
    ) -> (field: String, reason: ChangesetError.Reason)? {
        guard merge == .counter else {
            return contributions.isEmpty ? nil : ("", .contributionsOnNonCounterColumn(merge: merge.name))
        }
        if UInt64(contributions.count) > maxContributions {
            return ("", .countTooLarge(declared: UInt64(contributions.count), limit: maxContributions))
        }
        var previous: NodeID?
        for (j, contribution) in contributions.enumerated() {
            if let reason = problem(contributionNode: contribution.stamp.node, after: previous) {
                return ("[\(j)].stamp.node", reason)
            }
            if let reason = problem(causalLength: contribution.causalLength) { return ("[\(j)].causalLength", reason) }
            if let reason = problem(stamp: contribution.stamp) { return ("[\(j)].stamp", reason) }
            previous = contribution.stamp.node
        }
        return nil
    }

    /// The name as SQLite compares identifiers (see ``SQLiteName``).
    static func folded(_ name: String) -> [UInt8] { SQLiteName.folded(name) }

    static func problem(since: Int64, upTo: Int64) -> ChangesetError.Reason? {
        since >= 0 && since <= upTo ? nil : .invalidVersionRange(since: since, upTo: upTo)
    }

    /// Why `value` cannot appear in a changeset, or `nil` if it can.
    static func problem(value: SQLiteValue) -> ChangesetError.Reason? {
        switch value {
        case .real(let v) where v.isNaN: return .notANumber
        case .text(let s) where UInt64(s.bytes.count) > maxLength:
            return .lengthTooLarge(declared: UInt64(s.bytes.count), limit: maxLength)
        case .blob(let b) where UInt64(b.count) > maxLength:
            return .lengthTooLarge(declared: UInt64(b.count), limit: maxLength)
        default: return nil
        }
    }

    static func problem(key: SQLiteValue) -> ChangesetError.Reason? {
        key.isNull ? .nullKey : problem(value: key)
    }

    /// The largest clock reading a stamp may carry: every reading must be a positive 64-bit integer in SQLite.
    static let maxClock = UInt64(Int64.max)

    static func problem(stamp: Stamp) -> ChangesetError.Reason? {
        stamp.hlc.rawValue > maxClock ? .clockOutOfRange(stamp.hlc.rawValue) : nil
    }

    static func problem(causalLength: UInt64) -> ChangesetError.Reason? {
        causalLength > Liveness.maxCausalLength ? .causalLengthTooLarge(causalLength) : nil
    }

    static func problem(liveness: Liveness) -> ChangesetError.Reason? {
        if let reason = problem(causalLength: liveness.causalLength) { return reason }
        if let stamp = liveness.stamp, let reason = problem(stamp: stamp) { return reason }
        return liveness.causalLength > 0 && liveness.stamp == nil
            ? .liveWithoutStamp(causalLength: liveness.causalLength) : nil
    }

    /// Why a row's `seen` list cannot go with its `registers` under `merges`, or `nil` if it can.
    ///
    /// The list lines up with the columns, and has a stamp only for a column of last-writer-wins merge
    /// that holds a register, at or below that register's own stamp (a write sees only what came before
    /// it; a stamp equal to the register's own says it saw everything below). Returns the offending
    /// entry's column (`nil` when the list as a whole is wrong) and why.
    static func problem(
        seen: [Stamp?], registers: RowRegisters, merges: [ColumnMerge]
    ) -> (column: Int?, reason: ChangesetError.Reason)? {
        guard seen.count == registers.columns.count else {
            return (nil, .columnCountMismatch(expected: registers.columns.count, found: UInt64(seen.count)))
        }
        for (c, entry) in seen.enumerated() {
            guard let entry else { continue }
            guard let register = registers.columns[c], merges[c] == .lww else {
                return (c, .seenWithoutRegister)
            }
            if let reason = problem(stamp: entry) { return (c, reason) }
            if entry > register.stamp { return (c, .seenAfterWrite(seen: entry, write: register.stamp)) }
        }
        return nil
    }

    /// Checks a table list: valid, distinct names; the key not repeated among the columns; one valid merge per column.
    ///
    /// Returns the offending field (as `tables[i].columns[j]` or `tables[i].merges[j]`) and why.
    static func problem(tables: [TableSchema]) -> (field: String, reason: ChangesetError.Reason)? {
        if UInt64(tables.count) > maxTables {
            return ("the table count", .countTooLarge(declared: UInt64(tables.count), limit: maxTables))
        }
        var tableNames = Set<[UInt8]>()
        for (t, table) in tables.enumerated() {
            if let reason = problem(identifier: table.name) { return ("tables[\(t)].name", reason) }
            if !tableNames.insert(folded(table.name)).inserted {
                return ("tables[\(t)].name", .duplicateTable(table.name))
            }
            if let reason = problem(identifier: table.key) { return ("tables[\(t)].key", reason) }
            if UInt64(table.columns.count) > maxColumns {
                return (
                    "tables[\(t)].columns", .countTooLarge(declared: UInt64(table.columns.count), limit: maxColumns)
                )
            }
            var columnNames: Set<[UInt8]> = [folded(table.key)]
            for (c, column) in table.columns.enumerated() {
                if let reason = problem(identifier: column) { return ("tables[\(t)].columns[\(c)]", reason) }
                if !columnNames.insert(folded(column)).inserted {
                    return ("tables[\(t)].columns[\(c)]", .duplicateColumn(column))
                }
            }
            guard table.merges.count == table.columns.count else {
                return (
                    "tables[\(t)].merges", .mergeCountMismatch(columns: table.columns.count, merges: table.merges.count)
                )
            }
            for (c, merge) in table.merges.enumerated() {
                if let reason = problem(merge: merge) { return ("tables[\(t)].merges[\(c)]", reason) }
            }
        }
        return nil
    }
}
