import Concord
import ConcordTestSupport
import ConcordTesting
import Foundation
import Testing

/// Any name SQLite accepts for a table or column syncs: quotes, spaces, Unicode (in either
/// normalization), SQL keywords, names that extend one another, names of Concord's own metadata
/// columns, in ordinary and WITHOUT ROWID tables, with foreign keys between them. Names in
/// Concord's reserved `_concord_` namespace are refused with an error that says so.
@Suite("Identifiers", .tags(.replica), .timeLimit(.hangGuard))
struct IdentifierTests {
    /// One generated table: names, layout, policy, merges, and the table its foreign key references.
    struct TableSpec: Sendable, CustomStringConvertible {
        var name: String
        var key: String
        var columns: [String]
        var merges: [ColumnMerge]
        var withoutRowID: Bool
        var policy: TablePolicy
        /// The column (index into `columns`) that references an earlier table, that table, and the action.
        var reference: (column: Int, parent: Int, action: String)?

        func sql(parents: [TableSpec]) -> String {
            var declared = ["\(quoteIdentifier(key)) TEXT PRIMARY KEY NOT NULL"]
            for (index, column) in columns.enumerated() {
                var declaration = quoteIdentifier(column) + (merges[index] == .counter ? " INTEGER" : "")
                if let reference, reference.column == index {
                    let parent = parents[reference.parent]
                    declaration +=
                        " REFERENCES \(quoteIdentifier(parent.name))(\(quoteIdentifier(parent.key))) ON DELETE \(reference.action)"
                }
                declared.append(declaration)
            }
            return
                "CREATE TABLE \(quoteIdentifier(name)) (\(declared.joined(separator: ", ")))\(withoutRowID ? " WITHOUT ROWID" : "");"
        }

        /// (A `[String: …]` cannot tell lookalike names apart either; the table is then refused anyway.)
        var mergeMap: [String: ColumnMerge] {
            Dictionary(zip(columns, merges).filter { $0.1 != .lww }, uniquingKeysWith: { first, _ in first })
        }

        var description: String {
            let shown = zip(columns, merges).map { "\(visible($0))\($1 == .lww ? "" : ":\($1)")" }
            let parent = reference.map { ", c\($0.column) -> table \($0.parent) ON DELETE \($0.action)" } ?? ""
            return "\(visible(name)) (key \(visible(key)); \(shown.joined(separator: ", "))) "
                + "\(policy.rawValue)\(withoutRowID ? ", WITHOUT ROWID" : "")\(parent)"
        }
    }

    /// One to three tables with generated names; columns of a column-policy table merge in any
    /// built-in way but union; a later table may reference an earlier one.
    static let schemas = Gen<[TableSpec]> { source in
        let names = Gen.sqliteIdentifiers(count: 1...3).generate(using: &source)
        var tables: [TableSpec] = []
        for (index, name) in names.enumerated() {
            let columnNames = Gen.sqliteIdentifiers(count: 2...5).generate(using: &source)
            let policy: TablePolicy = source.bool() ? .row : .column
            let merges = columnNames.dropFirst().map { _ -> ColumnMerge in
                policy == .row ? .lww : [.lww, .max, .min, .counter][source.int(in: 0...3)]
            }
            var reference: (column: Int, parent: Int, action: String)?
            if index > 0, source.bool(), let column = merges.firstIndex(where: { $0 == .lww }) {
                reference = (column, source.int(in: 0...index - 1), ["CASCADE", "SET NULL"][source.int(in: 0...1)])
            }
            tables.append(
                TableSpec(
                    name: name, key: columnNames[0], columns: Array(columnNames.dropFirst()), merges: merges,
                    withoutRowID: source.bool(), policy: policy, reference: reference))
        }
        return tables
    }

    static let keys: [SQLiteValue] = ["k1", "k2", "k3"]

    @Test("Generated names sync between replicas through both changeset forms", .tags(.property))
    func propertyGeneratedNames() throws {
        try Property.check(seed: 0x1D_0001, iterations: 60) { source in
            let generated = Self.schemas.generate(using: &source)
            for (index, table) in generated.enumerated() { source.note("table \(index): \(table)") }
            let clock = ManualClock(unixMilliseconds: epoch2026)
            let refused = Self.refusedByDesign(generated)
            let replicas = try (1...3).map { node in
                let replica = try Replica.inMemory(configuration: configuration(node: UInt8(node), clock: clock))
                for table in generated { try replica.database.execute(table.sql(parents: generated)) }
                for (index, table) in generated.enumerated() {
                    do {
                        try replica.enableSync(on: table.name, policy: table.policy, merges: table.mergeMap)
                        if refused.contains(index) {
                            throw PredicateFailed("enableSync accepted \(visible(table.name))")
                        }
                    } catch let error as ReplicaError where refused.contains(index) {
                        guard case .unsupportedTable = error else { throw PredicateFailed("wrong refusal: \(error)") }
                    } catch let failure as PredicateFailed {
                        throw failure
                    } catch {
                        throw PredicateFailed("enableSync(on: \(visible(table.name))) failed: \(error)")
                    }
                }
                return replica
            }
            // The accepted tables, their references renumbered (a table whose parent was refused is refused too).
            let kept = generated.indices.filter { !refused.contains($0) }
            let tables = kept.map { index in
                var table = generated[index]
                table.reference = table.reference.map { ($0.column, kept.firstIndex(of: $0.parent)!, $0.action) }
                return table
            }
            guard !tables.isEmpty else { return }
            for _ in 0..<source.int(in: 1...10) {
                clock.advance(by: Int64(source.int(in: 0...1)))
                try Self.write(tables, on: replicas[source.int(in: 0...1)], &source)
                if source.bool(probability: 0.25) { try Self.exchange(replicas[0], replicas[1], &source) }
            }
            try Self.exchange(replicas[0], replicas[1], &source)
            // C, which has written nothing, reads everything A holds through the JSON form.
            try deliver(from: replicas[0], to: replicas[2], as: .json)
            try Self.requireConverged(tables, replicas)
        }
    }

    /// The tables (by position) Concord refuses by design, with a message: an empty name, two column
    /// names (key included) that read as the same text though their Unicode bytes differ, a table
    /// name that reads as the same as an earlier accepted one; and any table referencing a refused one.
    static func refusedByDesign(_ tables: [TableSpec]) -> Set<Int> {
        var refused: Set<Int> = []
        var accepted: [String] = []
        for (index, table) in tables.enumerated() {
            let names = [table.key] + table.columns
            let lookalikes = names.indices.contains { i in names[..<i].contains { $0 == names[i] } }
            let parentRefused = table.reference.map { refused.contains($0.parent) } ?? false
            if table.name.isEmpty || names.contains(where: \.isEmpty) || lookalikes || parentRefused
                || accepted.contains(where: { $0 == table.name })
            {
                refused.insert(index)
            } else {
                accepted.append(table.name)
            }
        }
        return refused
    }

    /// One plain-SQL write to a random table: an insert, an update of one column, or a delete.
    static func write(_ tables: [TableSpec], on replica: Replica, _ source: inout ChoiceSource) throws {
        let table = tables[source.int(in: 0...tables.count - 1)]
        let key = keys[source.int(in: 0...keys.count - 1)]
        let (t, k) = (quoteIdentifier(table.name), quoteIdentifier(table.key))
        let exists = try !replica.database.query("SELECT 1 FROM \(t) WHERE \(k) = ?", [key]).isEmpty
        func value(_ column: Int) throws -> SQLiteValue {
            if let reference = table.reference, reference.column == column {
                let parent = tables[reference.parent]
                let present = try replica.database.query(
                    "SELECT \(quoteIdentifier(parent.key)) FROM \(quoteIdentifier(parent.name)) ORDER BY 1"
                ).map { $0[0] }
                return present.isEmpty || source.bool(probability: 0.2)
                    ? .null : present[source.int(in: 0...present.count - 1)]
            }
            if table.merges[column] == .counter { return .integer(Int64(source.int(in: -3...3))) }
            return Gen.sqliteValue.generate(using: &source)
        }
        var sql: String
        var values: [SQLiteValue]
        if !exists {
            values = [key] + (try table.columns.indices.map(value))
            let marks = Array(repeating: "?", count: values.count).joined(separator: ", ")
            sql =
                "INSERT INTO \(t) (\(([table.key] + table.columns).map(quoteIdentifier).joined(separator: ", "))) VALUES (\(marks))"
        } else if table.columns.isEmpty || source.int(in: 0...3) == 0 {
            (sql, values) = ("DELETE FROM \(t) WHERE \(k) = ?", [key])
        } else {
            let column = source.int(in: 0...table.columns.count - 1)
            let c = quoteIdentifier(table.columns[column])
            let assignment = table.merges[column] == .counter ? "\(c) = \(c) + ?" : "\(c) = ?"
            (sql, values) = ("UPDATE \(t) SET \(assignment) WHERE \(k) = ?", [try value(column), key])
        }
        source.note("node \(replica.nodeID.bytes[0]): \(visible(sql)) \(values.map(brief))")
        try replica.database.execute(sql, values)
    }

    /// A to B through the binary form and B to A through the JSON form, until neither learns anything.
    static func exchange(_ a: Replica, _ b: Replica, _ source: inout ChoiceSource) throws {
        source.note("exchange")
        for _ in 0..<6 {
            let forward = try deliver(from: a, to: b, as: .binary)
            let backward = try deliver(from: b, to: a, as: .json)
            if forward.applied == 0 && backward.applied == 0 { return }
        }
        throw PredicateFailed("A and B still had news for each other after six exchanges")
    }

    /// Same tables and registers on every replica (compared as bytes), and a clean `check()`.
    static func requireConverged(_ tables: [TableSpec], _ replicas: [Replica]) throws {
        for table in tables {
            let stored = try replicas.map {
                try storedRows(of: table.name, key: table.key, columns: table.columns, in: $0.database)
            }
            for (name, other) in zip(["B", "C (JSON)"], stored.dropFirst()) {
                if let difference = firstDifference(stored[0], other, columns: [table.key] + table.columns) {
                    throw PredicateFailed("table \(visible(table.name)): A and \(name) differ: \(difference)")
                }
            }
        }
        let dumps = try replicas.map { try $0.canonicalDump() }
        for (name, dump) in zip(["B", "C (JSON)"], dumps.dropFirst()) where !dump.utf8.elementsEqual(dumps[0].utf8) {
            throw PredicateFailed("A and \(name) hold different registers:\n\(dumpDifference(dumps[0], dump))")
        }
        for (name, replica) in zip(["A", "B", "C"], replicas) {
            let report = try replica.check()
            try Property.require(report.isConsistent, "check() on \(name) found:\n\(report)")
        }
    }

    /// A table in Concord's namespace, in any ASCII case (SQLite does not tell the cases apart),
    /// cannot sync, and the error names the table and the reserved prefix; nothing is written.
    @Test("Names in Concord's namespace are refused with a clear error", .tags(.property))
    func propertyReservedNames() throws {
        try Property.check(seed: 0x1D_0002, iterations: 40) { source in
            let name = Gen.concordReservedIdentifier.generate(using: &source)
            source.note("table \(visible(name))")
            let replica = try Replica.inMemory(
                configuration: configuration(node: 1, clock: ManualClock(unixMilliseconds: epoch2026)))
            do {
                try replica.database.execute("CREATE TABLE \(quoteIdentifier(name)) (id TEXT PRIMARY KEY NOT NULL, v)")
            } catch {
                source.note("(Concord's own metadata already has that name)")
                return
            }
            let schema = try replica.database.query("SELECT type, name, sql FROM sqlite_schema ORDER BY name")
            do {
                try replica.enableSync(on: name)
                throw PredicateFailed("enableSync accepted a table in Concord's namespace")
            } catch let error as ReplicaError {
                guard case .unsupportedTable(let table, _, _) = error else {
                    throw PredicateFailed("wrong error: \(error)")
                }
                try Property.require(table.utf8.elementsEqual(name.utf8), "the error names \(visible(table))")
                // The table's own name contains the prefix; the message must say it is reserved besides.
                let explanation = error.description.replacingOccurrences(of: name, with: "")
                try Property.require(
                    explanation.contains("_concord_") || explanation.contains("reserved for Concord"),
                    "the error does not say that names starting with _concord_ are reserved: \(error)")
            }
            try Property.require(
                try replica.database.query("SELECT type, name, sql FROM sqlite_schema ORDER BY name") == schema,
                "the refused enable changed the schema")
        }
    }

    /// The reserved prefix in another ASCII case names the same objects to SQLite, so it is reserved too.
    @Test("Names in Concord's namespace in another case are refused", arguments: ["_CONCORD_x", "_Concord_1_rows"])
    func reservedNamesInAnyCase(_ name: String) throws {
        let replica = try Replica.inMemory(
            configuration: configuration(node: 1, clock: ManualClock(unixMilliseconds: epoch2026)))
        try replica.database.execute("CREATE TABLE \(quoteIdentifier(name)) (id TEXT PRIMARY KEY NOT NULL, v)")
        #expect {
            try replica.enableSync(on: name)
        } throws: { error in
            guard let error = error as? ReplicaError, case .unsupportedTable = error else { return false }
            return error.description.replacingOccurrences(of: name, with: "").lowercased().contains("_concord_")
        }
    }

    /// A table of the app's own in Concord's namespace (which it does not sync) does not stop
    /// another table from syncing, or stops it with an error that names it — never an SQL error.
    @Test("A bystander table in Concord's namespace", .tags(.property))
    func propertyBystanderInConcordsNamespace() throws {
        try Property.check(seed: 0x1D_0003, iterations: 40) { source in
            let name = Gen.concordReservedIdentifier.generate(using: &source)
            source.note("bystander table \(visible(name))")
            let clock = ManualClock(unixMilliseconds: epoch2026)
            let replicas = try (1...2).map { node in
                try Replica.inMemory(configuration: configuration(node: UInt8(node), clock: clock))
            }
            for replica in replicas {
                do {
                    try replica.database.execute("CREATE TABLE \(quoteIdentifier(name)) (x)")
                } catch {
                    source.note("(Concord's own metadata already has that name)")
                    return
                }
                try replica.database.execute("CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, v)")
                do {
                    try replica.enableSync(on: "t")
                } catch let error as ReplicaError {
                    try Property.require(
                        error.description.contains(name), "the error does not name \(visible(name)): \(error)")
                    return
                } catch {
                    throw PredicateFailed("enabling t failed with an error that is not Concord's: \(error)")
                }
            }
            try replicas[0].database.execute("INSERT INTO t VALUES ('k', 1)")
            try Self.exchange(replicas[0], replicas[1], &source)
            try Property.require(try replicas[1].database.query("SELECT id, v FROM t") == [["k", 1]], "t did not sync")
            for replica in replicas { try Property.require(try replica.check().isConsistent, "check failed") }
        }
    }

    // MARK: Each bug the property found, on its own

    /// Two replicas of `schema`, tables enabled in order (with `merges`), `writes` on the first, then a sync
    /// through both forms; the replicas must end with the same tables and registers, and a clean `check()`.
    private func requireSyncs(
        _ schema: String, tables: [String], merges: [String: [String: ColumnMerge]] = [:],
        writes: [String]
    ) throws -> [Replica] {
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let replicas = try (1...2).map { node in
            let replica = try Replica.inMemory(configuration: configuration(node: UInt8(node), clock: clock))
            try replica.database.execute(schema)
            for table in tables { try replica.enableSync(on: table, merges: merges[table] ?? [:]) }
            return replica
        }
        for write in writes { try replicas[0].database.execute(write) }
        var source = ChoiceSource(replaying: [])
        try Self.exchange(replicas[0], replicas[1], &source)
        let dumps = try replicas.map { try $0.canonicalDump() }
        #expect(dumps[0].utf8.elementsEqual(dumps[1].utf8), "\(dumpDifference(dumps[0], dumps[1]))")
        for replica in replicas { #expect(try replica.check().isConsistent) }
        return replicas
    }

    /// SQLite accepts `""` as a name; a table using it must sync (or be refused when enabled, saying why).
    @Test(
        "An empty name",
        arguments: [
            #"CREATE TABLE "" (id TEXT PRIMARY KEY NOT NULL, v)"#,
            #"CREATE TABLE t ("" TEXT PRIMARY KEY NOT NULL, v)"#,
            #"CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, "")"#,
        ])
    func emptyName(_ schema: String) throws {
        // Changesets name every table and column, and the format has no empty name: refused when enabled, saying why.
        let table = schema.contains(#"TABLE """#) ? "" : "t"
        let replica = try Replica.inMemory()
        try replica.database.execute(schema)
        #expect {
            try replica.enableSync(on: table)
        } throws: { error in
            guard case ReplicaError.unsupportedTable(_, let reason, _) = error else { return false }
            return reason.contains("empty")
        }
        #expect(
            try replica.database.scalar("SELECT count(*) FROM sqlite_schema WHERE name GLOB '_concord_[0-9]*'")
                == .integer(0))
    }

    /// `é` written precomposed and decomposed are two tables to SQLite but one name to Swift, and so to
    /// the Swift apps that name them: the second is refused, saying so, and the first syncs on.
    @Test("Tables whose names differ only in Unicode normalization")
    func canonicallyEquivalentTables() throws {
        let (composed, decomposed) = (quoteIdentifier("\u{E9}"), quoteIdentifier("e\u{301}"))
        let replicas = try requireSyncs(
            """
            CREATE TABLE \(composed) (id TEXT PRIMARY KEY NOT NULL, v);
            CREATE TABLE \(decomposed) (id TEXT PRIMARY KEY NOT NULL, v);
            """, tables: ["\u{E9}"], writes: ["INSERT INTO \(composed) VALUES ('k', 1)"])
        #expect(try replicas[1].database.query("SELECT v FROM \(composed)") == [[1]])
        #expect {
            try replicas[0].enableSync(on: "e\u{301}")
        } throws: { error in
            guard case ReplicaError.unsupportedTable(_, let reason, _) = error else { return false }
            return reason.contains("Unicode bytes differ")
        }
    }

    /// Columns `é` and `e` + U+0301 of one table, with or without a merge on one: refused with a
    /// message naming both spellings' bytes, nothing left behind, and the plain SQL still works.
    @Test("Columns whose names differ only in Unicode normalization", arguments: [false, true])
    func canonicallyEquivalentColumns(withMerge: Bool) throws {
        let (composed, decomposed) = (quoteIdentifier("\u{E9}"), quoteIdentifier("e\u{301}"))
        let replica = try Replica.inMemory()
        try replica.database.execute("CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, \(composed), \(decomposed))")
        #expect {
            try replica.enableSync(on: "t", merges: withMerge ? ["e\u{301}": .max] : [:])
        } throws: { error in
            guard case ReplicaError.unsupportedTable(_, let reason, _) = error else { return false }
            return reason.contains("c3a9") && reason.contains("65cc81")
        }
        try replica.database.execute("INSERT INTO t VALUES ('k', 1, 2); UPDATE t SET \(decomposed) = 0")
        #expect(try replica.database.query("SELECT \(composed), \(decomposed) FROM t") == [[1, 0]])
    }

    /// SQLite folds only ASCII letters in names, so `É` and `é` are two tables; a foreign key to `É`
    /// must resolve to `É` on every replica, every run. Eight such pairs, each child referencing the
    /// upper-case parent, which lacks the child's parent row (the lower-case one has it): every child
    /// must be parked, everywhere.
    @Test("Foreign keys to tables whose names differ only in the case of a non-ASCII letter")
    func foreignKeysToNonASCIICasePairs() throws {
        let pairs: [(String, String)] = [
            ("é", "É"), ("ü", "Ü"), ("ñ", "Ñ"), ("ø", "Ø"), ("å", "Å"), ("ç", "Ç"), ("æ", "Æ"), ("ł", "Ł"),
        ]
        var schema = ""
        var tables: [String] = []
        var writes: [String] = []
        for (index, (lower, upper)) in pairs.enumerated() {
            let child = "child\(index)"
            schema += """
                CREATE TABLE \(quoteIdentifier(lower)) (id TEXT PRIMARY KEY NOT NULL);
                CREATE TABLE \(quoteIdentifier(upper)) (id TEXT PRIMARY KEY NOT NULL);
                CREATE TABLE \(child) (id TEXT PRIMARY KEY NOT NULL, p TEXT REFERENCES \(quoteIdentifier(upper))(id) ON DELETE CASCADE);

                """
            tables += [lower, upper, child]
            writes += ["INSERT INTO \(quoteIdentifier(lower)) VALUES ('P')", "INSERT INTO \(child) VALUES ('C', 'P')"]
        }
        let replicas = try requireSyncs(schema, tables: tables, writes: writes)
        for (name, replica) in zip(["A", "B"], replicas) {
            for index in pairs.indices {
                let shown = try replica.database.query("SELECT id FROM child\(index)")
                #expect(shown.isEmpty, "\(name) shows child\(index) C, whose parent \(pairs[index].1)/P does not exist")
            }
        }
    }
}
