import ConcordCore
import ConcordTestSupport
import ConcordTesting
import Testing

@testable import Concord

/// A value a device's column would convert is shown converted there, and kept, relayed and merged as
/// its writer wrote it.
///
/// Devices of one user run different releases of an app, and a release may rebuild a table to change
/// a column's type (a zip code declared `INTEGER`, then `TEXT`). A device still on the old release
/// stored `'007'` as `7` and relayed that under the writer's stamp: the writer's own device then took
/// it for the same write with another value and showed `'7'`, and the `'007'` was gone everywhere
/// while `check` said ok.
@Suite(.tags(.replica))
struct ColumnTypeChangeTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    /// Replicas whose table `t` declares `n` with each of `types`, one replica per type.
    private func replicas(_ types: [String], merge: ColumnMerge = .lww) throws -> [Replica] {
        try inMemoryReplicas(types.count, clock: clock) { replica, index in
            let type = types[index]
            try replica.database.execute("CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, n \(type), w TEXT)")
            try replica.enableSync(on: "t", merges: merge == .lww ? [:] : ["n": merge])
        }
    }

    /// Rebuilds `t` with `n` declared `type`, as SQLite documents for schema changes.
    private func rebuild(_ replica: Replica, to type: String) throws {
        try replica.database.execute(
            """
            BEGIN;
            CREATE TABLE t_new (id TEXT PRIMARY KEY NOT NULL, n \(type), w TEXT);
            INSERT INTO t_new SELECT * FROM t;
            DROP TABLE t;
            ALTER TABLE t_new RENAME TO t;
            COMMIT;
            """)
    }

    private func shown(_ replica: Replica) throws -> [[SQLiteValue]] {
        try replica.database.query("SELECT id, n, w FROM t ORDER BY id")
    }

    private func expectConsistent(_ replicas: [Replica]) throws {
        for replica in replicas {
            let report = try replica.check()
            #expect(report.isConsistent, "\(report)")
        }
    }

    @Test func aValueAnOlderColumnConvertsIsRelayedAsWritten() throws {
        // A and C are on the release that made `n` TEXT; B is not.
        let (a, b, c) = try {
            let r = try replicas(["TEXT", "INTEGER", "TEXT"])
            return (r[0], r[1], r[2])
        }()
        try a.database.execute("INSERT INTO t VALUES ('z', '007', 'x')")
        clock.advance(by: 10)
        try Replica.sync([a, b])
        try Replica.sync([b, c])
        #expect(try shown(a) == [["z", "007", "x"]])
        #expect(try shown(b) == [["z", 7, "x"]])
        #expect(try shown(c) == [["z", "007", "x"]])
        try expectConsistent([a, b, c])
        // Merging the same write again changes nothing: B holds it as it was written.
        #expect(try b.apply(a.changes(since: 0)).applied == 0)
        #expect(try a.apply(b.changes(since: 0)).applied == 0)
    }

    @Test func theOlderDeviceShowsTheValueAsWrittenOnceItUpgrades() throws {
        let r = try replicas(["INTEGER", "INTEGER"])
        try r[0].database.execute("INSERT INTO t VALUES ('z', 1, 'x'), ('y', 2, 'x')")
        try Replica.sync(r)
        clock.advance(by: 10)
        try rebuild(r[0], to: "TEXT")
        clock.advance(by: 10)
        try r[0].database.execute("UPDATE t SET n = '007' WHERE id = 'z'")
        clock.advance(by: 10)
        try Replica.sync(r)
        #expect(try shown(r[1]) == [["y", 2, "x"], ["z", 7, "x"]])
        clock.advance(by: 10)
        try rebuild(r[1], to: "TEXT")
        clock.advance(by: 10)
        try Replica.sync(r)
        for replica in r { #expect(try shown(replica) == [["y", "2", "x"], ["z", "007", "x"]]) }
        try expectConsistent(r)
    }

    @Test func anEditOnTheOlderDeviceReplacesTheValueItKept() throws {
        let r = try replicas(["TEXT", "INTEGER"])
        try r[0].database.execute("INSERT INTO t VALUES ('z', '007', 'x')")
        try Replica.sync(r)
        clock.advance(by: 10)
        // An edit of another column keeps the value as written; an edit of `n` replaces it.
        try r[1].database.execute("UPDATE t SET w = 'edited' WHERE id = 'z'")
        clock.advance(by: 10)
        try Replica.sync(r)
        #expect(try shown(r[0]) == [["z", "007", "edited"]])
        try expectConsistent(r)
        try r[1].database.execute("UPDATE t SET n = 8 WHERE id = 'z'")
        clock.advance(by: 10)
        try Replica.sync(r)
        #expect(try shown(r[0]) == [["z", "8", "edited"]])
        #expect(try shown(r[1]) == [["z", 8, "edited"]])
        try expectConsistent(r)
    }

    @Test(arguments: [
        ("TEXT", SQLiteValue.integer(42), SQLiteValue.text("42")),
        ("REAL", .integer(7), .real(7)),
        ("INTEGER", .real(2.0), .integer(2)),
        ("NUMERIC", .text("1e2"), .integer(100)),
    ])
    func aNumberOrTextAnotherTypeConvertsIsRelayedAsWritten(
        type: String, written: SQLiteValue, converted: SQLiteValue
    ) throws {
        let r = try replicas(["", type, ""])
        try r[0].database.execute("INSERT INTO t VALUES ('z', ?, 'x')", [written])
        clock.advance(by: 10)
        try Replica.sync([r[0], r[1]])
        try Replica.sync([r[1], r[2]])
        #expect(try shown(r[1]) == [["z", converted, "x"]])
        #expect(try shown(r[2]) == [["z", written, "x"]])
        try expectConsistent(r)
    }

    /// A value-merged column joins the values as written; each device shows the join as its column holds it.
    @Test func aJoinIsOfTheValuesAsWritten() throws {
        let r = try replicas(["TEXT", "INTEGER"], merge: .max)
        try r[0].database.execute("INSERT INTO t VALUES ('z', '9', 'x')")
        try Replica.sync(r)
        clock.advance(by: 10)
        // By SQLite's order every TEXT is above every INTEGER: the join of 20 and '9' is '9'.
        try r[1].database.execute("UPDATE t SET n = 20 WHERE id = 'z'")
        clock.advance(by: 10)
        try Replica.sync(r)
        #expect(try shown(r[0]) == [["z", "9", "x"]])
        #expect(try shown(r[1]) == [["z", 9, "x"]])
        try expectConsistent(r)
    }

    /// A child names the parent its own column's value names, as SQLite's foreign-key check compares it.
    @Test func aChildNamesTheParentItsColumnShows() throws {
        let r = try inMemoryReplicas(["TEXT", "INTEGER"].count, clock: clock) { replica, index in
            let type = ["TEXT", "INTEGER"][index]
            try replica.database.execute(
                """
                PRAGMA foreign_keys = ON;
                CREATE TABLE p (id TEXT PRIMARY KEY NOT NULL);
                CREATE TABLE c (id TEXT PRIMARY KEY NOT NULL, pid \(type) REFERENCES p(id) ON DELETE CASCADE);
                """)
            try replica.enableSync(on: "p")
            try replica.enableSync(on: "c")
        }
        try r[0].database.execute("INSERT INTO p VALUES ('07'); INSERT INTO c VALUES ('c1', '07')")
        try Replica.sync(r)
        // To the INTEGER column, '07' is 7, which names the parent '7': none yet.
        #expect(try r[1].database.query("SELECT id FROM c") == [])
        try expectConsistent(r)
        try r[0].database.execute("INSERT INTO p VALUES ('7')")
        clock.advance(by: 10)
        try Replica.sync(r)
        #expect(try r[0].database.query("SELECT id, pid FROM c") == [["c1", "07"]])
        #expect(try r[1].database.query("SELECT id, pid FROM c") == [["c1", 7]])
        try expectConsistent(r)
    }
}

/// Whatever types devices declare for a column, and whatever values they write there, every device holds
/// the same registers, shows them as its own columns store them, and shows the same rows once all
/// declare the same types.
@Suite("Columns declared with other types on other devices", .tags(.replica, .property), .timeLimit(.hangGuard))
struct ColumnTypePropertyTests {
    /// Declared types covering every affinity, some as apps write them.
    static let types = ["", "INTEGER", "TEXT", "REAL", "NUMERIC", "BLOB", "VARCHAR(5)", "BOOLEAN", "DOUBLE"]

    /// Up to two changesets between devices drawn from `source`, each binary or JSON.
    static func deliverSome(among devices: [Replica], _ source: inout ChoiceSource) throws {
        for _ in 0..<source.int(in: 0...2) {
            let (from, to) = (source.int(in: 0...2), source.int(in: 0...2))
            if from != to { _ = try deliver(from: devices[from], to: devices[to], as: source.bool() ? .binary : .json) }
        }
    }

    /// Syncs `devices`, and fails unless each is consistent and holds the registers device 0 holds.
    static func syncAndExpectTheSameRegisters(_ devices: [Replica]) throws {
        try Replica.sync(devices)
        func registers(_ replica: Replica) throws -> [Substring] {
            try replica.canonicalDump().split(separator: "\n").filter { $0.hasPrefix("  reg ") }
        }
        for device in devices {
            let report = try device.check()
            guard report.isConsistent else { throw PredicateFailed("device \(device.nodeID): \(report)") }
            guard try registers(device) == registers(devices[0]) else {
                throw PredicateFailed(
                    "device \(device.nodeID) holds other registers than device 0:\n"
                        + (try registers(device).joined(separator: "\n")) + "\nagainst\n"
                        + (try registers(devices[0]).joined(separator: "\n")))
            }
        }
    }

    /// Syncs `devices`, and fails unless each is consistent and its dump (rows and registers) is device 0's.
    static func syncAndExpectTheSameRows(_ devices: [Replica]) throws {
        try Replica.sync(devices)
        for device in devices {
            let report = try device.check()
            guard try device.canonicalDump() == devices[0].canonicalDump(), report.isConsistent else {
                throw PredicateFailed(
                    "device \(device.nodeID) differs after all declared the same types:\n"
                        + (try device.canonicalDump()) + "against device 0:\n" + (try devices[0].canonicalDump())
                        + report.description)
            }
        }
    }

    @Test func propertyDevicesThatDeclareOtherTypesHoldTheSameRegisters() throws {
        try Property.check(seed: 0x7E_C0DE, iterations: 80) { source in
            let columnCount = source.int(in: 1...3)
            // Names an app may choose: quotes, keywords, names that extend each other or look like Concord's.
            // (The empty name is refused where sync is enabled: changesets name every table and column.)
            let names = Gen.sqliteIdentifiers(count: (columnCount + 2)...(columnCount + 2)).generate(using: &source)
                .enumerated().map { $1.isEmpty ? "e\($0)" : $1 }
            let (table, key, columns) = (names[0], names[1], Array(names[2...]))
            let types = (0..<3).map { _ in
                (0..<columnCount).map { _ in Self.types[source.int(in: 0...Self.types.count - 1)] }
            }
            let policy: TablePolicy = source.bool(probability: 0.25) ? .row : .column
            // Under the column policy, a column may join its values (by SQLite's order of values).
            let joins: [Int: ColumnMerge] =
                policy == .row
                ? [:]
                : Dictionary(
                    uniqueKeysWithValues: columns.indices.compactMap { column in
                        [nil, nil, ColumnMerge.max, .min][source.int(in: 0...3)].map { (column, $0) }
                    })
            let merges = Dictionary(uniqueKeysWithValues: joins.map { (columns[$0], $1) })
            source.note(
                "table \(visible(table)) key \(visible(key)) columns \(columns.map(visible)), types per device "
                    + "\(types), \(policy.rawValue) policy, merges \(joins.sorted { $0.key < $1.key })")
            let quotedTable = quoteIdentifier(table)
            func create(_ types: [String], named name: String = table) -> String {
                "CREATE TABLE \(quoteIdentifier(name)) (\(quoteIdentifier(key)) TEXT PRIMARY KEY NOT NULL"
                    + zip(columns, types).map { ", \(quoteIdentifier($0)) \($1)" }.joined() + ")"
            }
            let clock = ManualClock(unixMilliseconds: epoch2026)
            let devices: [Replica]
            do {
                devices = try inMemoryReplicas(3, clock: clock) { replica, index in
                    try replica.database.execute(create(types[index]))
                    try replica.enableSync(on: table, policy: policy, merges: merges)
                }
            } catch ReplicaError.unsupportedTable {
                // Names Concord refuses to sync ('é' spelled two ways); that refusal has tests of its own.
                return
            }
            let values = Gen.anySQLiteValue(largeLengths: nil)
            for _ in 0..<source.int(in: 1...10) {
                clock.advance(by: Int64(source.int(in: 0...2)))
                let writer = devices[source.int(in: 0...2)]
                let row = SQLiteValue.text(SQLiteText("k\(source.int(in: 1...3))"))
                let kind = source.int(in: 0...5)
                if kind == 0 {
                    try writer.database.execute("DELETE FROM \(quotedTable) WHERE \(quoteIdentifier(key)) = ?", [row])
                } else if kind <= 2 {
                    let written = [row] + columns.map { _ in values.generate(using: &source) }
                    try writer.database.execute(
                        "INSERT OR REPLACE INTO \(quotedTable) VALUES ("
                            + written.map { _ in "?" }.joined(separator: ", ") + ")", written)
                } else {
                    let column = columns[source.int(in: 0...columnCount - 1)]
                    try writer.database.execute(
                        "UPDATE \(quotedTable) SET \(quoteIdentifier(column)) = ? WHERE \(quoteIdentifier(key)) = ?",
                        [values.generate(using: &source), row])
                }
                try Self.deliverSome(among: devices, &source)
            }
            try Self.syncAndExpectTheSameRegisters(devices)
            // The others rebuild their table with device 0's types: then all show the same. Not where a
            // rebuild converts the values of a column that joins them: the copy is recorded as the
            // rebuilding device's write (see `Replica.reconcile`), whose join with what the column held
            // cannot be made, as that is gone with the old table (a known limit, in Migrations.md).
            let converted = joins.keys.contains { column in
                types.dropFirst().contains {
                    ColumnAffinity(declaredType: $0[column]) != ColumnAffinity(declaredType: types[0][column])
                }
            }
            if converted { return }
            clock.advance(by: 1_000)
            for device in devices.dropFirst() {
                // Rebuilt with its triggers in place, or while sync on the table is off (the way through a
                // migration Concord refuses).
                let disabled = source.bool(probability: 0.3)
                if disabled { try device.disableSync(on: table) }
                try device.database.execute(
                    create(types[0], named: "_rebuilt") + "; INSERT INTO \"_rebuilt\" SELECT * FROM \(quotedTable); "
                        + "DROP TABLE \(quotedTable); ALTER TABLE \"_rebuilt\" RENAME TO \(quotedTable)")
                if disabled { try device.enableSync(on: table, policy: policy, merges: merges) }
            }
            try Self.syncAndExpectTheSameRows(devices)
        }
    }
}

extension ColumnTypePropertyTests {
    /// Values a child's column converts to the same parent key, and keys they may name.
    static let references: [SQLiteValue] = [.integer(7), "7", "07", .real(7), "7.0", .integer(8), "8", "x", .null]
    static let parentKeys: [SQLiteValue] = ["7", "07", "7.0", "8", "x"]

    /// A foreign key whose column each device declares with its own type: every device names the parent
    /// its own column's value names, holds the same registers, and shows the same rows once all declare
    /// the same type, whatever the key's action and whether the app enforces foreign keys.
    @Test func propertyAReferenceDeclaredWithOtherTypesNamesTheParentItsColumnShows() throws {
        try Property.check(seed: 0xF0_7E55, iterations: 60) { source in
            let types = (0..<3).map { _ in Self.types[source.int(in: 0...Self.types.count - 1)] }
            let action = ["CASCADE", "SET NULL", "RESTRICT", "NO ACTION"][source.int(in: 0...3)]
            let enforced = (0..<3).map { _ in source.bool() }
            source.note("reference types per device \(types), ON DELETE \(action), enforced \(enforced)")
            func create(_ type: String, child name: String = "c") -> String {
                "CREATE TABLE \(name) (id TEXT PRIMARY KEY NOT NULL, pid \(type) REFERENCES p(id) ON DELETE \(action), "
                    + "w TEXT)"
            }
            let clock = ManualClock(unixMilliseconds: epoch2026)
            let devices = try inMemoryReplicas(3, clock: clock) { replica, index in
                try replica.database.execute(
                    "PRAGMA foreign_keys = \(enforced[index] ? "ON" : "OFF"); "
                        + "CREATE TABLE p (id TEXT PRIMARY KEY NOT NULL, name TEXT); " + create(types[index]))
                try replica.enableSync(on: "p")
                try replica.enableSync(on: "c")
            }
            func pick(_ values: [SQLiteValue]) -> SQLiteValue { values[source.int(in: 0...values.count - 1)] }
            func writeSome(_ count: ClosedRange<Int>) throws {
                for _ in 0..<source.int(in: count) {
                    clock.advance(by: Int64(source.int(in: 0...2)))
                    let writer = devices[source.int(in: 0...2)]
                    let child = SQLiteValue.text(SQLiteText("c\(source.int(in: 1...3))"))
                    let (sql, values): (String, [SQLiteValue]) =
                        switch source.int(in: 0...5) {
                        case 0: ("INSERT OR REPLACE INTO p VALUES (?, 'n')", [pick(Self.parentKeys)])
                        case 1: ("DELETE FROM p WHERE id = ?", [pick(Self.parentKeys)])
                        case 2: ("INSERT OR REPLACE INTO c VALUES (?, ?, 'w')", [child, pick(Self.references)])
                        case 3: ("UPDATE c SET pid = ? WHERE id = ?", [pick(Self.references), child])
                        case 4: ("UPDATE c SET w = 'edited' WHERE id = ?", [child])
                        default: ("DELETE FROM c WHERE id = ?", [child])
                        }
                    do {
                        try writer.database.execute(sql, values)
                    } catch let error as SQLiteError where error.resultCode.primary == .constraint {
                        // The app's own foreign keys refused it: nothing was written.
                    }
                    try Self.deliverSome(among: devices, &source)
                }
            }
            try writeSome(1...12)
            try Self.syncAndExpectTheSameRegisters(devices)
            clock.advance(by: 1_000)
            for (index, device) in devices.enumerated().dropFirst() {
                try device.database.execute(
                    "PRAGMA foreign_keys = OFF; BEGIN; " + create(types[0], child: "c_new")
                        + "; INSERT INTO c_new SELECT * FROM c; DROP TABLE c; ALTER TABLE c_new RENAME TO c; COMMIT; "
                        + "PRAGMA foreign_keys = \(enforced[index] ? "ON" : "OFF")")
            }
            // Parents come and go after the rebuilds too: a reference a rebuild copied comes back with them.
            try writeSome(0...6)
            try Self.syncAndExpectTheSameRows(devices)
        }
    }
}

/// An apply's report tells a row whose stand-in came or went from one that keeps a converted value.
@Suite(.tags(.replica))
struct ColumnTypeChangeReportTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    @Test func aStandInThatComesIsAnUpdateAndAConvertedValueAloneIsNot() throws {
        let r = try inMemoryReplicas(["TEXT", "INTEGER"].count, clock: clock) { replica, index in
            let type = ["TEXT", "INTEGER"][index]
            try replica.database.execute(
                """
                CREATE TABLE p (id TEXT PRIMARY KEY NOT NULL);
                CREATE TABLE c (id TEXT PRIMARY KEY NOT NULL, pid TEXT REFERENCES p(id) ON DELETE SET NULL, n \(type));
                """)
            try replica.enableSync(on: "p")
            try replica.enableSync(on: "c")
        }
        func pass() throws -> MergeReport {
            clock.advance(by: 1)
            return try r[1].apply(r[0].changes(since: r[1].peerVersion(r[0].nodeID))).changes
        }
        try r[0].database.execute("INSERT INTO p VALUES ('p1'), ('p2'); INSERT INTO c VALUES ('c1', 'p1', '007')")
        #expect(try pass()["c"]?.keys(.inserted) == ["c1"])
        // Another parent's delete moves nothing here.
        try r[0].database.execute("DELETE FROM p WHERE id = 'p2'")
        #expect(try pass()["c"] == nil)
        // Its parent's delete shows NULL in its place: an update, seen on the device where it keeps '007'.
        try r[0].database.execute("DELETE FROM p WHERE id = 'p1'")
        // (Deleted with foreign keys off: the child still names it, and Concord shows the stand-in.)
        #expect(try pass()["c"]?.keys(.updated) == ["c1"])
        #expect(try r[1].database.query("SELECT id, pid, n FROM c") == [["c1", .null, 7]])
        #expect(try r[1].check().isConsistent)
    }
}

/// Disabling sync for a migration and enabling it again keeps a converted value as written.
@Suite(.tags(.replica))
struct ColumnTypeChangeDisableTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    @Test(arguments: [false, true])
    func aValueKeptWhileSyncWasOffIsTheValueAsWritten(rebuildsToText: Bool) throws {
        let r = try inMemoryReplicas(["TEXT", "INTEGER"].count, clock: clock) { replica, index in
            let type = ["TEXT", "INTEGER"][index]
            try replica.database.execute("CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, n \(type), w TEXT)")
            try replica.enableSync(on: "t")
        }
        try r[0].database.execute("INSERT INTO t VALUES ('z', '007', 'x')")
        try Replica.sync(r)
        clock.advance(by: 1_000)
        try r[1].disableSync(on: "t")
        if rebuildsToText {
            try r[1].database.execute(
                """
                CREATE TABLE t_new (id TEXT PRIMARY KEY NOT NULL, n TEXT, w TEXT);
                INSERT INTO t_new SELECT * FROM t; DROP TABLE t; ALTER TABLE t_new RENAME TO t;
                """)
        }
        try r[1].enableSync(on: "t")
        clock.advance(by: 10)
        try Replica.sync(r)
        #expect(try r[0].database.query("SELECT id, n, w FROM t") == [["z", "007", "x"]])
        #expect(try r[1].database.query("SELECT id, n, w FROM t") == [["z", rebuildsToText ? "007" : 7, "x"]])
        for replica in r {
            let report = try replica.check()
            #expect(report.isConsistent, "\(report)")
        }
        #expect(try r[0].conflicts().isEmpty, "nothing was written while sync was off")
    }
}
