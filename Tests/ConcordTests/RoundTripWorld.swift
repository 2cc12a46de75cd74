import Concord
import ConcordTestSupport
import ConcordTesting

/// Three replicas of one table and a plain SQLite copy of it: the app writes to replica A (and,
/// with the same statements, to the plain copy, which tells what SQLite itself stores), and A's
/// changes reach B through the binary changeset form and C through the JSON form.
final class RoundTripWorld {
    let table: String
    let key: String
    let columns: [String]
    /// The plain table: no Concord, the same schema and the same writes.
    let plain: Database
    let a: Replica, b: Replica, c: Replica
    var replicas: [Replica] { [a, b, c] }
    let clock = ManualClock(unixMilliseconds: epoch2026)

    init(
        schema: String, table: String, key: String, columns: [String], policy: TablePolicy,
        merges: [String: ColumnMerge] = [:]
    ) throws {
        self.table = table
        self.key = key
        self.columns = columns
        plain = try Database.inMemory()
        try plain.execute(schema)
        var made: [Replica] = []
        for node: UInt8 in 1...3 {
            let replica = try Replica.inMemory(configuration: configuration(node: node, clock: clock))
            try replica.database.execute(schema)
            try replica.enableSync(on: table, policy: policy, merges: merges)
            made.append(replica)
        }
        (a, b, c) = (made[0], made[1], made[2])
    }

    /// Runs one write on the plain table and on replica A; both must take it or both refuse it.
    ///
    /// - Returns: whether it was taken.
    @discardableResult
    func write(_ sql: String, _ values: [SQLiteValue], _ source: inout ChoiceSource) throws -> Bool {
        var plainError: (any Error)?
        do { try plain.execute(sql, values) } catch { plainError = error }
        do {
            try a.database.execute(sql, values)
        } catch {
            try Property.require(plainError != nil, "replica A refused a write plain SQLite took: \(error)")
            source.note("  (refused by SQLite: \(error))")
            return false
        }
        try Property.require(plainError == nil, "replica A took a write plain SQLite refused: \(plainError!)")
        return true
    }

    /// What the plain table stores for `key` now: one value per column, or `nil` when the row is gone.
    func plainRow(_ key: SQLiteValue) throws -> [SQLiteValue]? {
        let selected = columns.map(quoteIdentifier).joined(separator: ", ")
        return try plain.query(
            "SELECT \(selected) FROM \(quoteIdentifier(table)) WHERE \(quoteIdentifier(self.key)) = ?",
            [key]
        ).first
    }

    /// A's changes to B through the binary form and to C through the JSON form.
    func deliver() throws {
        try ConcordTestSupport.deliver(from: a, to: b, as: .binary)
        try ConcordTestSupport.deliver(from: a, to: c, as: .json)
    }

    /// The table on A, B and C, as stored, in key order.
    func storedTables() throws -> [[[StoredCell]]] {
        try replicas.map { try storedRows(of: table, key: key, columns: columns, in: $0.database) }
    }

    /// Requires A, B and C to store the same bytes and types, to have the same registers, and to pass `check()`.
    func requireConverged() throws {
        let tables = try storedTables()
        for (name, other) in zip(["B (binary)", "C (JSON)"], tables.dropFirst()) {
            if let difference = firstDifference(tables[0], other, columns: [key] + columns) {
                throw PredicateFailed("A and \(name) store different values: \(difference)")
            }
        }
        let dumps = try replicas.map { try $0.canonicalDump() }
        // Compared as bytes: String's `==` holds canonically equivalent spellings equal.
        for (name, dump) in zip(["B (binary)", "C (JSON)"], dumps.dropFirst())
        where !dump.utf8.elementsEqual(dumps[0].utf8) {
            throw PredicateFailed("A and \(name) hold different registers:\n\(dumpDifference(dumps[0], dump))")
        }
        for (name, replica) in zip(["A", "B", "C"], replicas) {
            let report = try replica.check()
            try Property.require(report.isConsistent, "check() on \(name) found:\n\(report)")
        }
    }

    /// The registers of `key` on each replica.
    func registers(_ key: SQLiteValue) throws -> [RowRegisters?] {
        try replicas.map { try $0.registers(of: table, key: key) }
    }
}

/// The first line where two dumps differ, shortened.
func dumpDifference(_ lhs: String, _ rhs: String) -> String {
    let left = lhs.split(separator: "\n", omittingEmptySubsequences: false)
    let right = rhs.split(separator: "\n", omittingEmptySubsequences: false)
    for index in 0..<max(left.count, right.count) {
        let l = index < left.count ? String(left[index]) : "(nothing)"
        let r = index < right.count ? String(right[index]) : "(nothing)"
        if !l.utf8.elementsEqual(r.utf8) {
            return "  line \(index + 1):\n  \(shorten(l))\n  \(shorten(r))"
        }
    }
    return "  (same lines)"
}

func shorten(_ line: String) -> String {
    let shown =
        line.utf8.count <= 400
        ? line : String(decoding: line.utf8.prefix(400), as: UTF8.self) + "… (\(line.utf8.count) bytes)"
    return visible(shown)
}

/// SQLite's order of two values (NULL first; numbers by value; text, then blobs, by bytes): -1, 0 or 1,
/// asked of SQLite itself with the values bound, so under BINARY collation.
func sqliteOrder(_ lhs: SQLiteValue, _ rhs: SQLiteValue, in database: Database) throws -> Int {
    switch (lhs.isNull, rhs.isNull) {
    case (true, true): return 0
    case (true, false): return -1
    case (false, true): return 1
    default:
        let answer = try database.scalar("SELECT CASE WHEN ?1 < ?2 THEN -1 WHEN ?1 > ?2 THEN 1 ELSE 0 END", [lhs, rhs])
        return Int(answer?.integerValue ?? 0)
    }
}
