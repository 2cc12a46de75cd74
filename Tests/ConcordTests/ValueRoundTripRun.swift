import Concord
import ConcordTestSupport
import ConcordTesting

/// One column of a generated table: its declared type (and collation) and how it merges.
struct ColumnShape: Sendable, CustomStringConvertible {
    var type: String
    var merge: ColumnMerge
    var description: String { "\(type.isEmpty ? "untyped" : type) \(merge)" }
}

/// A generated table `t (id KEY, c0, c1, …)`: its layout, key type, policy and columns.
struct TableShape: Sendable, CustomStringConvertible {
    /// `rowid`, `without rowid` or `strict`.
    var layout: String
    var keyType: String
    var policy: TablePolicy
    var columns: [ColumnShape]

    var columnNames: [String] { columns.indices.map { "c\($0)" } }

    var schema: String {
        let declared = zip(columnNames, columns).map { "\($0) \($1.type)" }
        let options = ["rowid": "", "without rowid": " WITHOUT ROWID", "strict": " STRICT"][layout]!
        return "CREATE TABLE t (id \(keyType) PRIMARY KEY NOT NULL, \(declared.joined(separator: ", ")))\(options);"
    }

    var merges: [String: ColumnMerge] {
        Dictionary(uniqueKeysWithValues: zip(columnNames, columns.map(\.merge)).filter { $0.1 != .lww })
    }

    var description: String {
        "\(layout) table, key \(keyType.isEmpty ? "untyped" : keyType), \(policy.rawValue) policy, columns \(columns.map(\.description))"
    }

    /// Column types of ordinary tables: every affinity (`ANY` is NUMERIC there), and a NOCASE collation.
    static let plainTypes = ["", "BLOB", "TEXT", "TEXT COLLATE NOCASE", "INTEGER", "REAL", "NUMERIC", "ANY"]
    /// Column types of STRICT tables (`ANY` there keeps every value exactly as written).
    static let strictTypes = ["ANY", "ANY COLLATE NOCASE", "TEXT", "BLOB", "INTEGER", "REAL"]

    /// Tables under `policy` with one to five columns, each merging with one of `merges`, declared with one of the types.
    static func gen(
        policy: TablePolicy, merges: [ColumnMerge], plainTypes: [String] = plainTypes,
        strictTypes: [String] = strictTypes
    ) -> Gen<TableShape> {
        Gen { source in
            let layout = ["rowid", "without rowid", "strict"][source.int(in: 0...2)]
            let keyType = ["TEXT", "BLOB", ""][source.int(in: 0...(layout == "strict" ? 1 : 2))]
            let types = layout == "strict" ? strictTypes : plainTypes
            let column = Gen<ColumnShape> { source in
                let type = types[source.int(in: 0...types.count - 1)]
                let merge = merges[source.int(in: 0...merges.count - 1)]
                // max and min compare text by its bytes: enabling refuses them on a collated column.
                let collated = type.contains("COLLATE") && (merge == .max || merge == .min)
                return ColumnShape(type: type, merge: collated ? .lww : merge)
            }
            return TableShape(
                layout: layout, keyType: keyType, policy: policy,
                columns: column.array(length: 1...5).generate(using: &source))
        }
    }
}

/// What one row's registers should hold, and what A shows for it.
struct ModelRow {
    var alive = true
    /// The register values the model expects (for a `union` column, the last value written).
    var registers: [SQLiteValue]
    /// What A's table holds now: the last value written, until a fold shows the merged one.
    var shown: [SQLiteValue]
    /// Per `union` column, the elements of every value written since the insert (see ``ValueRoundTripRun/elements(of:)``).
    var elements: [[String]]
}

/// One case of a value round-trip property: a generated table on replicas A, B and C, generated writes
/// to A (and the same to a plain SQLite table), deliveries, and a model of what every replica must end with.
///
/// The model takes what plain SQLite stored for each write (a typed column converts what it is given)
/// and merges it the way the column's merge prescribes: `lww` and `counter` (a single writer's sum is what
/// it wrote) keep the last value, `max`/`min` the larger/smaller in SQLite's order with a tie going to the
/// later write, `union` every element ever written.
struct ValueRoundTripRun {
    let world: RoundTripWorld
    let shape: TableShape
    /// Values for `lww`, `max` and `min` columns; `counter` and `union` columns draw what they accept.
    let values: Gen<SQLiteValue>
    var rows: [(key: SQLiteValue, row: ModelRow)] = []

    init(shape: TableShape, values: Gen<SQLiteValue>) throws {
        self.shape = shape
        self.values = values
        world = try RoundTripWorld(
            schema: shape.schema, table: "t", key: "id", columns: shape.columnNames,
            policy: shape.policy, merges: shape.merges)
    }

    /// What a column of `merge` is written with: any value, integers for a counter (NULL is
    /// checked on its own, see `ValueRoundTripTests.counterKeepsNULL`), JSON arrays of strings and
    /// integers (and NULL) for a union.
    func values(for merge: ColumnMerge) -> Gen<SQLiteValue> {
        switch merge {
        case .counter: .anySQLiteInteger
        case .union: Gen.frequency([(weight: 1, gen: .constant(.null)), (weight: 8, gen: .unionArray)])
        default: values
        }
    }

    /// Inserts a new row with generated values.
    mutating func insert(_ source: inout ChoiceSource) throws {
        let key = SQLiteValue.text("r\(rows.count)")
        let written = shape.columns.map { values(for: $0.merge).generate(using: &source) }
        source.note("INSERT \(key): " + written.map(brief).joined(separator: ", "))
        let marks = Array(repeating: "?", count: written.count + 1).joined(separator: ", ")
        guard
            try world.write(
                "INSERT INTO t (id, \(shape.columnNames.joined(separator: ", "))) VALUES (\(marks))",
                [key] + written, &source),
            let stored = try world.plainRow(key)
        else { return }
        let unionElements = try zip(shape.columns, stored).map { try $0.merge == .union ? self.elements(of: $1) : [] }
        rows.append((key, ModelRow(registers: stored, shown: stored, elements: unionElements)))
    }

    /// Updates some columns of a live row: counters sometimes by increment, `lww`/`max`/`min` columns
    /// half the time to a look-alike of what A shows, so that only bytes or type change.
    mutating func update(_ source: inout ChoiceSource) throws {
        let alive = rows.indices.filter { rows[$0].row.alive }
        guard !alive.isEmpty else { return try insert(&source) }
        let index = alive[source.int(in: 0...alive.count - 1)]
        var assignments: [String] = []
        var written: [SQLiteValue] = []
        var changed: [Int] = []
        for column in shape.columns.indices where changed.isEmpty || source.bool() {
            let merge = shape.columns[column].merge
            let shown = rows[index].row.shown[column]
            changed.append(column)
            if merge == .counter, case .integer(let held) = shown, source.bool() {
                let delta = Gen.anySQLiteInteger.generate(using: &source)
                if !held.addingReportingOverflow(delta.integerValue ?? 0).overflow {
                    assignments.append("c\(column) = c\(column) + ?")
                    written.append(delta)
                    continue
                }
            }
            let value =
                [.counter, .union].contains(merge) || source.bool()
                ? values(for: merge).generate(using: &source)
                : Gen.sqliteLookalike(of: shown).generate(using: &source)
            assignments.append("c\(column) = ?")
            written.append(value)
        }
        let key = rows[index].key
        source.note("UPDATE \(key): " + zip(assignments, written).map { "\($0) \(brief($1))" }.joined(separator: ", "))
        guard
            try world.write(
                "UPDATE t SET \(assignments.joined(separator: ", ")) WHERE id = ?", written + [key], &source),
            let stored = try world.plainRow(key)
        else { return }
        for column in changed where stored[column] != rows[index].row.shown[column] {
            rows[index].row.registers[column] = try join(
                shape.columns[column].merge,
                held: rows[index].row.registers[column], written: stored[column])
            rows[index].row.shown[column] = stored[column]
            if shape.columns[column].merge == .union {
                let merged = Set(rows[index].row.elements[column]).union(try elements(of: stored[column]))
                rows[index].row.elements[column] = merged.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            }
        }
    }

    /// Deletes a live row.
    mutating func delete(_ source: inout ChoiceSource) throws {
        let alive = rows.indices.filter { rows[$0].row.alive }
        guard !alive.isEmpty else { return try insert(&source) }
        let index = alive[source.int(in: 0...alive.count - 1)]
        source.note("DELETE \(rows[index].key)")
        if try world.write("DELETE FROM t WHERE id = ?", [rows[index].key], &source) {
            rows[index].row.alive = false
            // A counter shows what the row's current life contributed: nothing, once it is deleted.
            for (column, shape) in shape.columns.enumerated() where shape.merge == .counter {
                rows[index].row.registers[column] = .integer(0)
            }
        }
    }

    /// Delivers A's changes to B and C; the fold on A shows the merged values.
    mutating func deliver(_ source: inout ChoiceSource) throws {
        source.note("deliver A -> B (binary), A -> C (JSON)")
        try world.deliver()
        for index in rows.indices { rows[index].row.shown = rows[index].row.registers }
    }

    /// A local write of `written` to a register holding `held`, as the model sees it.
    func join(_ merge: ColumnMerge, held: SQLiteValue, written: SQLiteValue) throws -> SQLiteValue {
        switch merge {
        case .max: try sqliteOrder(written, held, in: world.plain) >= 0 ? written : held
        case .min: try sqliteOrder(written, held, in: world.plain) <= 0 ? written : held
        default: written
        }
    }

    /// The elements of a JSON array as SQLite's `json_each` reads them — `text:` and the hex of each
    /// string's bytes, or the type and text of each number — sorted, without duplicates; none for
    /// NULL and for anything that is not an array.
    func elements(of value: SQLiteValue) throws -> [String] {
        guard case .text = value,
            try world.plain.scalar("SELECT CASE WHEN json_valid(?1) THEN json_type(?1) = 'array' ELSE 0 END", [value])
                == .integer(1)
        else { return [] }
        let sql =
            "SELECT DISTINCT type || ':' || CASE WHEN type = 'text' THEN hex(atom) ELSE CAST(atom AS TEXT) END AS e "
            + "FROM json_each(?) ORDER BY e"
        return try world.plain.query(sql, [value]).compactMap { $0[0].textValue }
    }

    /// A, B and C agree with each other and with the model, and pass `check()`.
    func verify() throws {
        try world.requireConverged()
        let expected = rows.filter(\.row.alive).sorted { $0.key < $1.key }
        let shown = try storedRows(of: "t", key: "id", columns: shape.columnNames, in: world.a.database)
        try Property.require(
            shown.map { $0[0].value } == expected.map(\.key),
            "A shows rows \(shown.map { brief($0[0].value) }), the model \(expected.map { brief($0.key) })")
        for (row, model) in zip(shown, expected) {
            try require(model, holds: row.dropFirst().map(\.value), where: "A shows")
        }
        for model in rows {
            for (name, registers) in zip(["A", "B", "C"], try world.registers(model.key)) {
                guard let registers else { throw PredicateFailed("\(name) has no registers for \(brief(model.key))") }
                try Property.require(
                    registers.liveness.isAlive == model.row.alive,
                    "\(name) holds \(brief(model.key)) \(registers.liveness.isAlive ? "alive" : "deleted"), "
                        + "the model \(model.row.alive ? "alive" : "deleted")")
                try require(model, holds: registers.columns.map { $0?.value ?? .null }, where: "\(name)'s register")
            }
        }
    }

    /// Requires `values` of row `model.key` to be the model's: the values themselves, or for a `union` the same elements.
    private func require(_ model: (key: SQLiteValue, row: ModelRow), holds values: [SQLiteValue], where place: String)
        throws
    {
        for (column, value) in values.enumerated() {
            let found = "\(place) \(brief(model.key)).c\(column) = \(brief(value))"
            if shape.columns[column].merge == .union {
                let elements = try elements(of: value)
                try Property.require(
                    elements == model.row.elements[column],
                    "\(found), elements \(elements), but the values written have \(model.row.elements[column])")
            } else {
                try Property.require(
                    value == model.row.registers[column],
                    "\(found), the model expects \(brief(model.row.registers[column]))")
            }
        }
    }

    /// Runs `iterations` cases: inserts, updates and deletes, with deliveries in between and at the end.
    static func check(shape: Gen<TableShape>, values: Gen<SQLiteValue>, seed: UInt64, iterations: Int) throws {
        try Property.check(seed: seed, iterations: iterations) { source in
            let drawn = shape.generate(using: &source)
            source.note("table: \(drawn)")
            var run = try ValueRoundTripRun(shape: drawn, values: values)
            for _ in 0..<source.int(in: 1...8) {
                switch source.int(in: 0...4) {
                case 0, 1: try run.insert(&source)
                case 2, 3: try run.update(&source)
                default: try run.delete(&source)
                }
                if source.bool(probability: 0.3) { try run.deliver(&source) }
            }
            try run.deliver(&source)
            try run.verify()
        }
    }
}
