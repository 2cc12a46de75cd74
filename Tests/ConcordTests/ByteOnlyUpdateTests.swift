import Concord
import ConcordTestSupport
import ConcordTesting
import Testing

/// An UPDATE that changes only a stored value's bytes or type — a change SQL's `=` does not see —
/// is captured as a write and reaches the other replicas through both changeset forms, and an
/// UPDATE that leaves the stored value as it was is not a write.
@Suite("Updates that change only bytes or type", .tags(.replica), .timeLimit(.hangGuard))
struct ByteOnlyUpdateTests {
    /// One update of column `c0` from `before` to `after`, in a table whose `c0` is declared `type`.
    struct Case: Sendable, CustomStringConvertible {
        var type: String
        var strict = false
        var before: SQLiteValue
        var after: SQLiteValue
        var description: String {
            "\(strict ? "STRICT " : "")\(type.isEmpty ? "untyped" : type): \(brief(before)) -> \(brief(after))"
        }
        var schema: String {
            "CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, c0 \(type), other \(strict ? "ANY" : ""))\(strict ? " STRICT" : "");"
        }
    }

    static let examples: [Case] = [
        Case(type: "", before: .real(0), after: .real(-0.0)),
        Case(type: "", before: .real(-0.0), after: .real(0)),
        Case(type: "TEXT COLLATE NOCASE", before: .text("A"), after: .text("a")),
        Case(type: "", before: .integer(1), after: .real(1)),
        Case(type: "BLOB", before: .real(1), after: .integer(1)),
        Case(type: "", before: .text("caf\u{E9}"), after: .text(SQLiteText(bytes: Array("cafe\u{301}".utf8)))),
        Case(type: "TEXT", before: .text(SQLiteText(bytes: Array("e\u{301}".utf8))), after: .text("\u{E9}")),
        Case(type: "", before: .text("a"), after: .blob([0x61])),
        Case(type: "", before: .text(""), after: .blob([])),
        // SQLite converts an integral REAL to INTEGER in these columns, except at -2^63, which stays REAL.
        Case(type: "INTEGER", before: .integer(.min), after: .real(-0x1p63)),
        Case(type: "NUMERIC", before: .real(-0x1p63), after: .integer(.min)),
        Case(type: "ANY", strict: true, before: .integer(1), after: .real(1)),
        Case(type: "ANY", strict: true, before: .real(0), after: .real(-0.0)),
        Case(type: "ANY COLLATE NOCASE", strict: true, before: .text("A"), after: .text("a")),
    ]

    @Test("Each is captured and reaches B (binary) and C (JSON)", arguments: examples)
    func example(_ example: Case) throws {
        var source = ChoiceSource(replaying: [])
        try Self.check(example, policy: .column, &source)
    }

    /// Any value, updated to a look-alike (or sometimes anything), in a column of any type, under both policies.
    @Test("Generated look-alike updates", .tags(.property))
    func propertyLookalikeUpdates() throws {
        let types = TableShape.plainTypes.map { ($0, false) } + TableShape.strictTypes.map { ($0, true) }
        try Property.check(seed: 0xB1_7E5, iterations: 300) { source in
            let (type, strict) = types[source.int(in: 0...types.count - 1)]
            let before = Gen.anySQLiteValue(largeLengths: nil).generate(using: &source)
            let after =
                source.bool(probability: 0.9)
                ? Gen.sqliteLookalike(of: before).generate(using: &source)
                : Gen.anySQLiteValue(largeLengths: nil).generate(using: &source)
            let policy: TablePolicy = source.bool() ? .row : .column
            let drawn = Case(type: type, strict: strict, before: before, after: after)
            source.note("\(policy.rawValue) policy, \(drawn)")
            try Self.check(drawn, policy: policy, &source)
        }
    }

    /// Writes `before`, syncs, updates to `after`, and requires the update to be a write exactly
    /// when it changed what A stores, and B and C to end with what A stores.
    static func check(_ example: Case, policy: TablePolicy, _ source: inout ChoiceSource) throws {
        let world = try RoundTripWorld(
            schema: example.schema, table: "t", key: "id", columns: ["c0", "other"], policy: policy)
        let key = SQLiteValue.text("r")
        guard try world.write("INSERT INTO t (id, c0, other) VALUES (?, ?, 'x')", [key, example.before], &source) else {
            return
        }
        try world.deliver()
        let stored = try world.a.database.scalar("SELECT c0 FROM t WHERE id = ?", [key]) ?? .null
        let otherStamp = try world.a.registers(of: "t", key: key)?.columns[1]?.stamp
        world.clock.advance(by: 1)
        guard try world.write("UPDATE t SET c0 = ? WHERE id = ?", [example.after, key], &source) else { return }
        let updated = try world.a.database.scalar("SELECT c0 FROM t WHERE id = ?", [key]) ?? .null
        let plain = try world.plainRow(key)?[0] ?? .null
        try Property.require(updated == plain, "A stores \(brief(updated)) where plain SQLite stores \(brief(plain))")
        let writes = try world.a.foldLocalWrites()
        let changed = updated != stored
        try Property.require(
            writes == (changed ? 1 : 0),
            "A stored \(brief(stored)), then \(brief(updated)): "
                + (changed ? "a change, but the update was not captured" : "no change, yet \(writes) write(s) captured")
        )
        try world.deliver()
        for (name, replica) in zip(["B (binary)", "C (JSON)"], [world.b, world.c]) {
            let shown = try replica.database.scalar("SELECT c0 FROM t WHERE id = ?", [key]) ?? .null
            try Property.require(shown == updated, "\(name) shows \(brief(shown)), A \(brief(updated))")
            let register = try replica.registers(of: "t", key: key)?.columns[0]?.value ?? .null
            try Property.require(
                register == updated, "\(name)'s register holds \(brief(register)), A shows \(brief(updated))")
        }
        if policy == .column {
            let stamp = try world.a.registers(of: "t", key: key)?.columns[1]?.stamp
            try Property.require(stamp == otherStamp, "the update stamped the column it did not change")
        }
        try world.requireConverged()
    }
}
