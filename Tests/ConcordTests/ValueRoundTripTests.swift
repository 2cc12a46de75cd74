import Concord
import ConcordTestSupport
import ConcordTesting
import Testing

/// Every value SQLite can store survives capture, fold, both changeset forms, apply and projection
/// byte for byte and type for type, in every kind of column and under every merge that accepts it.
///
/// The app writes generated values with plain SQL (values bound as parameters) to replica A and,
/// with the same statements, to a plain SQLite table, which says what SQLite itself stores for
/// each write. A's changes reach B through the binary form and C through the JSON form, also
/// part-way through. Then A, B and C must store the same values (`quote`, `typeof`, `hex`, and the
/// value read bit for bit), equal to what the model of the merge computes (see
/// ``ValueRoundTripRun``), hold the same registers, and pass `check()`.
@Suite("Values round-trip byte for byte and type for type", .tags(.replica), .timeLimit(.hangGuard))
struct ValueRoundTripTests {
    @Test("Column policy: lww, max and min columns of every type", .tags(.property))
    func propertyColumnPolicy() throws {
        try ValueRoundTripRun.check(
            shape: TableShape.gen(policy: .column, merges: [.lww, .max, .min]),
            values: .anySQLiteValue(largeLengths: nil), seed: 0x7A1E_0001, iterations: 100)
    }

    @Test("Row policy: columns of every type", .tags(.property))
    func propertyRowPolicy() throws {
        try ValueRoundTripRun.check(
            shape: TableShape.gen(policy: .row, merges: [.lww]),
            values: .anySQLiteValue(largeLengths: nil), seed: 0x7A1E_0002, iterations: 100)
    }

    /// A counter is the sum of every device's increments, so it always holds an integer: NULL written
    /// to it (by an insert that leaves the column out, say) counts as 0, and every replica shows 0.
    @Test("A counter column reads NULL as 0, alike everywhere")
    func counterReadsNULLAsZero() throws {
        let world = try RoundTripWorld(
            schema: "CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, n INTEGER);", table: "t",
            key: "id", columns: ["n"], policy: .column, merges: ["n": .counter])
        var source = ChoiceSource(replaying: [])
        try world.write("INSERT INTO t (id, n) VALUES ('r', NULL)", [], &source)
        try world.deliver()
        let shown = try world.replicas.map { try $0.database.scalar("SELECT n FROM t WHERE id = 'r'") }
        #expect(
            shown == [.integer(0), .integer(0), .integer(0)],
            "A, B (binary) and C (JSON) show n = \(shown.map { $0.map(brief) ?? "no row" })")
        #expect(throws: Never.self) { try world.requireConverged() }
    }

    /// Arrays the union column's trigger accepts (SQLite's JSON functions read every element as a
    /// string or an integer), which must keep every element, byte for byte, on A, B and C.
    @Test(
        "A union column keeps every element SQLite reads as a string or an integer",
        arguments: [
            #"["b",1,"a"]"#, #"["a",-0]"#, #"["\u00e9","\u0065\u0301"]"#, "[\"\u{C5}\",\"A\u{30A}\",\"\u{212B}\"]",
            #"["\ud800","b"]"#, #"["\udc00x",1]"#, #"[9223372036854775808,1]"#, #"[-9223372036854775809,"a"]"#,
        ])
    func unionKeepsEveryElement(_ json: String) throws {
        try unionKeepsEveryElement(.text(json))
    }

    @Test("A union column keeps a string element whose bytes are not UTF-8")
    func unionKeepsBytesThatAreNotUTF8() throws {
        try unionKeepsEveryElement(.text(SQLiteText(bytes: Array(#"["a"#.utf8) + [0xFF] + Array(#"","b"]"#.utf8))))
    }

    private func unionKeepsEveryElement(_ value: SQLiteValue) throws {
        let shape = TableShape(
            layout: "rowid", keyType: "TEXT", policy: .column, columns: [ColumnShape(type: "TEXT", merge: .union)])
        var run = try ValueRoundTripRun(shape: shape, values: .constant(.null))
        var source = ChoiceSource(replaying: [])
        try run.world.write("INSERT INTO t (id, c0) VALUES ('r', ?)", [value], &source)
        try run.deliver(&source)
        let written = try run.elements(of: value)
        for (name, replica) in zip(["A", "B (binary)", "C (JSON)"], run.world.replicas) {
            let shown = try replica.database.scalar("SELECT c0 FROM t") ?? .null
            #expect(try run.elements(of: shown) == written, "\(name) shows \(brief(shown)) for \(brief(value))")
        }
    }

    @Test("Counter columns: integers at every width, increments", .tags(.property))
    func propertyCounters() throws {
        try ValueRoundTripRun.check(
            shape: TableShape.gen(
                policy: .column, merges: [.counter, .lww], plainTypes: ["INTEGER", ""], strictTypes: ["INTEGER", "ANY"]),
            values: .anySQLiteValue(largeLengths: nil), seed: 0x7A1E_0004, iterations: 100)
    }

    @Test("Union columns: JSON arrays of strings and integers", .tags(.property))
    func propertyUnions() throws {
        try ValueRoundTripRun.check(
            shape: TableShape.gen(
                policy: .column, merges: [.union, .lww], plainTypes: ["TEXT", ""], strictTypes: ["TEXT", "ANY"]),
            values: .anySQLiteValue(largeLengths: nil), seed: 0x7A1E_0005, iterations: 100)
    }

    /// Values of hundreds of kilobytes, one value in four, under both policies.
    @Test("Large values", .tags(.property))
    func propertyLargeValues() throws {
        let values = Gen<SQLiteValue>.frequency([
            (weight: 3, gen: .anySQLiteValue(largeLengths: nil)),
            (weight: 1, gen: .largeSQLiteValue(lengths: Gen.defaultLargeLengths)),
        ])
        let shape = Gen<TableShape> { source in
            let policy: TablePolicy = source.bool() ? .row : .column
            return TableShape.gen(policy: policy, merges: policy == .row ? [.lww] : [.lww, .max, .min]).generate(
                using: &source)
        }
        try ValueRoundTripRun.check(shape: shape, values: values, seed: 0x7A1E_0006, iterations: 4)
    }

    /// One row with values of several megabytes, updated once. The registers are compared directly
    /// (values and stamps) rather than through `canonicalDump()`, which spells out every byte.
    @Test("Multi-megabyte values", .tags(.property))
    func propertyMultiMegabyteValues() throws {
        let shape = TableShape(
            layout: "rowid", keyType: "TEXT", policy: .column,
            columns: [ColumnShape(type: "", merge: .lww), ColumnShape(type: "BLOB", merge: .max)])
        try Property.check(seed: 0x7A1E_0003, iterations: 1, maxShrinkCalls: 20) { source in
            let world = try RoundTripWorld(
                schema: shape.schema, table: "t", key: "id", columns: shape.columnNames,
                policy: .column, merges: shape.merges)
            let huge = Gen.largeSQLiteValue(lengths: 2_000_000...3_000_000)
            var written: [[SQLiteValue]] = []
            for step in 0..<2 {
                written.append([huge.generate(using: &source), huge.generate(using: &source)])
                source.note("\(step == 0 ? "INSERT" : "UPDATE") 'r': \(written[step].map(brief))")
                let sql =
                    step == 0
                    ? "INSERT INTO t (id, c0, c1) VALUES ('r', ?, ?)" : "UPDATE t SET c0 = ?, c1 = ? WHERE id = 'r'"
                try world.write(sql, written[step], &source)
                try world.deliver()
            }
            let tables = try world.storedTables()
            for (name, table) in zip(["B (binary)", "C (JSON)"], tables.dropFirst()) {
                if let difference = firstDifference(tables[0], table, columns: ["id"] + shape.columnNames) {
                    throw PredicateFailed("A and \(name) store different values: \(difference)")
                }
            }
            // c0 is lww: the update's value; c1 is max: the larger, the update's on a tie.
            let larger =
                try sqliteOrder(written[1][1], written[0][1], in: world.plain) >= 0 ? written[1][1] : written[0][1]
            try Property.require(
                tables[0][0][1].value == written[1][0], "A shows c0 = \(tables[0][0][1]), not the value written last")
            try Property.require(
                tables[0][0][2].value == larger, "A shows c1 = \(tables[0][0][2]), not the larger value written")
            let registers = try world.registers(.text("r"))
            try Property.require(
                registers[1] == registers[0] && registers[2] == registers[0], "A, B and C hold different registers")
            for (name, replica) in zip(["A", "B", "C"], world.replicas) {
                let report = try replica.check()
                try Property.require(report.isConsistent, "check() on \(name) found:\n\(report)")
            }
        }
    }
}
