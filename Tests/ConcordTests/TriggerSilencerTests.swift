import ConcordTestSupport
import Testing

@testable import Concord

/// A table whose trigger `loud_t` logs every insert, and a connection that may silence it.
private func loggedTable() throws -> Database {
    let database = try Database.inMemory()
    try database.execute(
        """
        CREATE TABLE t (a);
        CREATE TABLE log (a);
        CREATE TRIGGER loud_t AFTER INSERT ON t BEGIN INSERT INTO log VALUES (NEW.a); END;
        CREATE TRIGGER other_t AFTER INSERT ON t WHEN NEW.a = 'raise' BEGIN SELECT RAISE(ABORT, 'kept'); END;
        """)
    database.connection.silencer.silences = { trigger, _ in trigger == "loud_t" }
    return database
}

private func logged(_ database: Database) throws -> [SQLiteValue] {
    try database.query("SELECT a FROM log ORDER BY rowid").map { $0[0] }
}

@Suite("Silencing capture triggers", .tags(.replica), .timeLimit(.hangGuard))
struct TriggerSilencerTests {
    @Test func aStatementLeavesTheSilencedTriggersWritesOutOnlyWhileSilencing() throws {
        let database = try loggedTable()
        let insert = try database.cached("INSERT INTO t VALUES (?)")
        try insert.run(["before"])
        try database.connection.silencer.silencing { try insert.run(["during"]) }
        try insert.run(["after"])
        #expect(try logged(database) == ["before", "after"])
        #expect(try database.query("SELECT a FROM t ORDER BY rowid").map { $0[0] } == ["before", "during", "after"])
    }

    @Test func anotherTriggerStillFiresWhileSilencing() throws {
        let database = try loggedTable()
        #expect(throws: SQLiteError.self) {
            try database.connection.silencer.silencing { try database.execute("INSERT INTO t VALUES ('raise')") }
        }
        #expect(try database.query("SELECT count(*) FROM t") == [[.integer(0)]])
    }

    @Test func aStatementExpiredWhileSilencingIsCompiledAgainSilenced() throws {
        let directory = TemporaryDirectory()
        let database = try Database(path: directory.path("a.sqlite"))
        try database.execute(
            """
            CREATE TABLE t (a);
            CREATE TABLE log (a);
            CREATE TRIGGER loud_t AFTER INSERT ON t BEGIN INSERT INTO log VALUES (NEW.a); END;
            """)
        database.connection.silencer.silences = { trigger, _ in trigger == "loud_t" }
        let insert = try database.cached("INSERT INTO t VALUES (?)")
        try insert.run(["one"])
        // Another connection changes the schema: the statement expires and SQLite compiles it again in its step.
        try Database(path: directory.path("a.sqlite")).execute("CREATE TABLE unrelated (x)")
        try database.connection.silencer.silencing { try insert.run(["two"]) }
        try insert.run(["three"])
        #expect(try logged(database) == ["one", "three"])
    }

    @Test func anApplyChangesNoSchemaAndCapturesNothing() throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let a = try makeReplica(directory, "a.sqlite", node: 1, clock: clock)
        let b = try makeReplica(directory, "b.sqlite", node: 2, clock: clock)
        try a.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'milk'), ('r2', 'eggs')")
        try b.foldLocalWrites()
        let schemaVersion = try b.database.scalar("PRAGMA schema_version")
        try b.apply(try a.changes())
        #expect(try b.database.scalar("PRAGMA schema_version") == schemaVersion)
        #expect(try b.database.scalar("SELECT count(*) FROM _concord_log") == .integer(0))
        #expect(
            try b.database.query("SELECT id, title FROM reminders ORDER BY id") == [["r1", "milk"], ["r2", "eggs"]])
        // The app's own writes through the same connection are still captured after the merge.
        try b.database.execute("UPDATE reminders SET title = 'oat milk' WHERE id = 'r1'")
        #expect(try b.database.scalar("SELECT count(*) FROM _concord_log") == .integer(1))
        #expect(try b.check().isConsistent)
    }

    @Test func onlyConcordsCaptureTriggersAreSilenced() {
        #expect(Metadata.isCaptureTrigger("_concord_1_insert"))
        #expect(Metadata.isCaptureTrigger("_concord_42_delete"))
        #expect(!Metadata.isCaptureTrigger("_concord_1_check_insert"))
        #expect(!Metadata.isCaptureTrigger("_concord_1_key"))
        #expect(!Metadata.isCaptureTrigger("_concord__insert"))
        #expect(!Metadata.isCaptureTrigger("_concord_x_update"))
        #expect(!Metadata.isCaptureTrigger("app_insert"))
    }

    /// A table `kids` a trigger of the app deletes from when a row of `t` is inserted, watched by the silencer.
    private func deletingTrigger() throws -> Database {
        let database = try loggedTable()
        try database.execute(
            """
            CREATE TABLE kids (a);
            CREATE TRIGGER clear_kids AFTER INSERT ON t WHEN NEW.a = 'clear' BEGIN DELETE FROM kids; END;
            """)
        database.connection.silencer.watchesDeletes = { trigger, table in trigger == "clear_kids" && table == "kids" }
        return database
    }

    @Test func aWatchedDeleteIsNotedOnlyWhenItsStatementRunsWhileSilencing() throws {
        let database = try deletingTrigger()
        let silencer = database.connection.silencer
        let insert = try database.cached("INSERT INTO t VALUES (?)")
        try insert.run(["clear"])
        #expect(silencer.takeDeletedWhileSilencing().isEmpty, "captured: nothing to look for")
        let compiledOnly = try silencer.silencing { try database.prepare("INSERT INTO t VALUES ('x')") }
        #expect(silencer.takeDeletedWhileSilencing().isEmpty, "compiled but not run")
        _ = compiledOnly
        try silencer.silencing { try insert.run(["other"]) }
        #expect(silencer.takeDeletedWhileSilencing() == ["kids"], "a run of a statement whose code deletes")
        #expect(silencer.takeDeletedWhileSilencing().isEmpty, "taken once")
        try silencer.silencing { try database.execute("INSERT INTO t VALUES ('clear')") }
        #expect(silencer.takeDeletedWhileSilencing() == ["kids"], "run through execute")
    }
}
