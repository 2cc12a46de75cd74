import Concord
import ConcordTestSupport
import ConcordTesting
import Testing

/// A key is its bytes and its type: every generated TEXT or BLOB key — empty text, empty blob, NUL,
/// bytes that are not UTF-8, keys one byte or one Unicode normalization apart — is its own row on
/// every replica, through inserts, updates, deletes and re-inserts made on two replicas and carried
/// by both changeset forms.
@Suite("Keys are their own rows everywhere", .tags(.replica), .timeLimit(.hangGuard))
struct KeyRoundTripTests {
    struct Shape: Sendable, CustomStringConvertible {
        var keyType: String
        var withoutRowID: Bool
        var policy: TablePolicy
        var schema: String {
            "CREATE TABLE t (id \(keyType) PRIMARY KEY NOT NULL, v INTEGER)\(withoutRowID ? " WITHOUT ROWID" : "");"
        }
        var description: String {
            "key \(keyType.isEmpty ? "untyped" : keyType)\(withoutRowID ? ", WITHOUT ROWID" : ""), \(policy.rawValue) policy"
        }
    }

    static let shapes = Gen<Shape> { source in
        Shape(
            keyType: ["TEXT", "BLOB", ""][source.int(in: 0...2)], withoutRowID: source.bool(),
            policy: source.bool() ? .row : .column)
    }

    @Test("Generated keys, written on A and B", .tags(.property))
    func propertyGeneratedKeys() throws {
        try Property.check(seed: 0x6E75_0001, iterations: 100) { source in
            let shape = Self.shapes.generate(using: &source)
            let keys = Gen.sqliteKeys(count: 1...8).generate(using: &source)
            source.note("\(shape); keys \(keys.map(brief))")
            let world = try RoundTripWorld(
                schema: shape.schema, table: "t", key: "id", columns: ["v"], policy: shape.policy)
            var model: [SQLiteValue: (alive: Bool, value: Int64)] = [:]
            var counter: Int64 = 0
            for _ in 0..<source.int(in: 1...12) {
                let key = keys[source.int(in: 0...keys.count - 1)]
                let onB = source.bool(probability: 0.3)
                let replica = onB ? world.b : world.a
                // B writes having seen all of A's writes, and a millisecond after the previous write, so the
                // writes are sequential: the last one wins and a re-insert follows the delete it saw.
                if onB { try Self.exchange(world, &source) }
                world.clock.advance(by: 1)
                counter += 1
                let row = try replica.database.query("SELECT v FROM t WHERE id = ?", [key]).first
                let sql: String
                switch (row, source.int(in: 0...2)) {
                case (nil, _): sql = "INSERT INTO t (id, v) VALUES (?1, ?2)"
                case (_, 0): sql = "DELETE FROM t WHERE id = ?1"
                default: sql = "UPDATE t SET v = ?2 WHERE id = ?1"
                }
                source.note("\(onB ? "B" : "A"): \(sql.prefix(6)) \(brief(key)) v=\(counter)")
                try replica.database.execute(sql, sql.hasPrefix("DELETE") ? [key] : [key, .integer(counter)])
                try Property.require(
                    replica.database.changes == 1, "the write touched \(replica.database.changes) rows")
                model[key] = (!sql.hasPrefix("DELETE"), sql.hasPrefix("DELETE") ? model[key]?.value ?? 0 : counter)
                if source.bool(probability: 0.3) || onB { try Self.exchange(world, &source) }
            }
            try Self.exchange(world, &source)
            try Self.requireRows(world, model)
            try world.requireConverged()
        }
    }

    /// A to B and B to A, then both to C, through alternating forms.
    static func exchange(_ world: RoundTripWorld, _ source: inout ChoiceSource) throws {
        source.note("exchange")
        try deliver(from: world.a, to: world.b, as: .binary)
        try deliver(from: world.b, to: world.a, as: .json)
        try deliver(from: world.a, to: world.c, as: .json)
        try deliver(from: world.b, to: world.c, as: .binary)
    }

    /// Each replica shows exactly the live keys, each once, with its last value, and holds registers for every key.
    static func requireRows(_ world: RoundTripWorld, _ model: [SQLiteValue: (alive: Bool, value: Int64)]) throws {
        let expected = model.filter(\.value.alive).sorted { SQLiteValue.totallyOrdered($0.key, before: $1.key) }
        for (name, replica) in zip(["A", "B", "C"], world.replicas) {
            let rows = try storedRows(of: "t", key: "id", columns: ["v"], in: replica.database)
                .sorted { SQLiteValue.totallyOrdered($0[0].value, before: $1[0].value) }
            let shown = rows.map { "\(brief($0[0].value)) (\($0[0].type)) = \($0[1].value)" }
            let wanted = expected.map { "\(brief($0.key)) ('\($0.key.typeName)') = \($0.value.value)" }
            try Property.require(
                rows.map { [$0[0].value, $0[1].value] } == expected.map { [$0.key, .integer($0.value.value)] },
                "\(name) shows \(shown), expected \(wanted)")
            for (key, entry) in model.sorted(by: { SQLiteValue.totallyOrdered($0.key, before: $1.key) }) {
                let registers = try replica.registers(of: "t", key: key)
                try Property.require(
                    registers?.liveness.isAlive == entry.alive,
                    "\(name) holds \(brief(key)) as \(registers.map { $0.liveness.isAlive ? "alive" : "deleted" } ?? "unknown")"
                )
            }
        }
    }
}
