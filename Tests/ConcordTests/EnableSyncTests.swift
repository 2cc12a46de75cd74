import ConcordTestSupport
import Testing

@testable import Concord

@Suite("Enabling sync", .tags(.replica))
struct EnableSyncTests {
    private func refusal(_ schema: String, table: String = "t") throws -> ReplicaError? {
        let replica = try Replica.inMemory()
        try replica.database.execute(schema)
        do {
            try replica.enableSync(on: table)
            return nil
        } catch let error as ReplicaError {
            return error
        }
    }

    @Test(arguments: [
        ("CREATE TABLE t (id INTEGER PRIMARY KEY, x)", "INTEGER"),
        ("CREATE TABLE t (a TEXT, b TEXT, PRIMARY KEY (a, b))", "spans 2 columns"),
        ("CREATE TABLE t (x TEXT)", "no PRIMARY KEY"),
        ("CREATE TABLE t (id TEXT PRIMARY KEY, email TEXT UNIQUE)", "UNIQUE"),
        ("CREATE TABLE t (id TEXT PRIMARY KEY, email TEXT); CREATE UNIQUE INDEX te ON t(email)", "UNIQUE"),
        ("CREATE TABLE t (id REAL PRIMARY KEY)", "not TEXT or BLOB"),
        ("CREATE TABLE base (id TEXT PRIMARY KEY); CREATE VIEW t AS SELECT * FROM base", "view"),
    ])
    func unmergeableTablesAreRefusedWithReasonAndFix(schema: String, reason: String) throws {
        let error = try #require(try refusal(schema))
        guard case .unsupportedTable(let table, let why, let fix) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(table == "t")
        #expect(why.contains(reason), "\(why)")
        #expect(!fix.isEmpty)
        #expect(error.description.hasPrefix("cannot sync table 't': "))
    }

    /// A generated column does not sync, so Concord cannot follow a key it holds: refused, not ignored
    /// (ignored, a child arriving after its parent's delete broke the key on every device, `sync` exit 0).
    @Test(arguments: ["VIRTUAL", "STORED"])
    func aForeignKeyOnAGeneratedColumnIsRefused(kind: String) throws {
        let replica = try Replica.inMemory()
        try replica.database.execute(
            """
            CREATE TABLE p (id TEXT PRIMARY KEY NOT NULL);
            CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, data TEXT,
                pid TEXT GENERATED ALWAYS AS (json_extract(data, '$.p')) \(kind) REFERENCES p(id));
            """)
        try replica.enableSync(on: "p")
        #expect(
            throws: ReplicaError.unsupportedTable(
                table: "t", reason: "its generated column pid references p, which Concord cannot follow",
                fix: "reference p from an ordinary column")
        ) { try replica.enableSync(on: "t") }
        #expect(replica.tables.map(\.name) == ["p"])
    }

    /// A table wider than Concord can read registers for in one query is refused by enable, and a column
    /// that takes a synced table past it stops that table (enabled, it failed every fold after).
    @Test func aTableTooWideToSyncIsRefusedAndAColumnTakingOnePastItStopsIt() throws {
        let replica = try Replica.inMemory()
        let limit = TableInspector.maxColumns(in: replica.database)
        #expect(limit == 663, "at SQLite's default column limit")
        let columns = { (count: Int) in (0..<count).map { "c\($0) TEXT" }.joined(separator: ", ") }
        try replica.database.execute(
            "CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, \(columns(limit + 1)));"
                + "CREATE TABLE w (id TEXT PRIMARY KEY NOT NULL, \(columns(limit)))")
        #expect(
            throws: ReplicaError.unsupportedTable(
                table: "t", reason: TableInspector.tooManyColumnsReason(limit + 1, in: replica.database),
                fix: TableInspector.tooManyColumnsFix)
        ) { try replica.enableSync(on: "t") }
        try replica.enableSync(on: "w")
        try replica.database.execute("ALTER TABLE w ADD COLUMN extra TEXT; INSERT INTO w (id, c0) VALUES ('r1', 'v')")
        try replica.foldLocalWrites()
        #expect(replica.schemaRefusals.count == 1)
        let refusal = "\(replica.schemaRefusals[0])"
        #expect(refusal.contains("664 columns besides its key"))
        // Disabling first and enabling again, the way round other destructive changes, is refused as well.
        #expect(refusal.contains("drop the columns added") && !refusal.contains("disable DB"))
    }

    /// Two processes enabling the same table at once: the second had looked before the first registered
    /// it, and failed on a UNIQUE constraint of Concord's own, though enabling again does nothing. It now
    /// decides under the write lock, and enables again.
    @Test func aTableAnotherConnectionEnabledMeanwhileIsEnabledAgain() throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let first = try makeReplica(directory, "shared.db", node: 1, clock: clock)
        try first.database.execute("CREATE TABLE tags (id TEXT PRIMARY KEY NOT NULL, name TEXT)")
        let second = try Replica(path: directory.path("shared.db"), configuration: configuration(node: 1, clock: clock))
        try first.enableSync(on: "tags")
        try second.enableSync(on: "tags")
        try second.database.execute("INSERT INTO tags VALUES ('t1', 'work')")
        #expect(try second.changes().rows.map(\.table) == ["tags"])
        #expect(try second.check().isConsistent)
    }

    @Test func aMissingTableIsNamed() throws {
        #expect(try refusal("CREATE TABLE other (id TEXT PRIMARY KEY)") == .tableNotFound("t"))
    }

    @Test func textAndBlobKeysAndGeneratedColumnsAreAccepted() throws {
        let replica = try Replica.inMemory()
        try replica.database.execute(
            """
            CREATE TABLE notes (id BLOB PRIMARY KEY, body TEXT, length INTEGER GENERATED ALWAYS AS (length(body)));
            CREATE TABLE tags (id TEXT PRIMARY KEY NOT NULL, name TEXT) WITHOUT ROWID;
            """)
        try replica.enableSync(on: "notes")
        try replica.enableSync(on: "tags", policy: .row)
        #expect(replica.tables.map(\.name) == ["notes", "tags"])
        #expect(replica.tables[0].columns == ["body"], "generated columns are never synced")
    }

    @Test func enablingIsIdempotentAndExistingRowsBecomeFirstWrites() throws {
        let replica = try Replica.inMemory(
            configuration: configuration(node: 1, clock: ManualClock(unixMilliseconds: epoch2026)))
        try replica.database.execute(remindersSchema)
        try replica.database.execute("INSERT INTO reminders (id, title) VALUES ('b', 'two'), ('a', 'one')")
        try replica.enableSync(on: "reminders")
        try replica.enableSync(on: "reminders")
        let changes = try replica.changes()
        #expect(changes.rows.map(\.key) == ["a", "b"])
        #expect(changes.rows.allSatisfy { $0.registers.liveness.causalLength == 1 })
        // Each row got a version of its own, the last two this replica issued.
        let version = try replica.version
        #expect(try replica.changedRows(since: version - 2).rows.count == 2)
        #expect(try replica.changedRows(since: version - 1).rows.map(\.key) == ["b"])
        #expect(throws: ReplicaError.self) { try replica.enableSync(on: "reminders", policy: .row) }
        #expect(try replica.check().isConsistent)
    }
}
