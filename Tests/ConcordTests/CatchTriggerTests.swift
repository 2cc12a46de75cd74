import ConcordTestSupport
import Testing

@_spi(Simulation) @testable import Concord

/// Where SQLite lacks the preupdate hook, TEMP triggers catch the rows an app trigger deletes while Concord
/// merges: armed only around the merge's steps, made again when the app's migrations change a table.
///
/// `AppTriggerDeletedValuesTests` checks the values kept, both ways; these check what only the triggers do.
@Suite(.tags(.replica))
struct CatchTriggerTests {
    private let clock = ManualClock(unixMilliseconds: epoch2026)

    /// Deleting one theme deletes its pair.
    private static let pairs = """
        CREATE TABLE themes (id TEXT PRIMARY KEY NOT NULL, background TEXT, foreground TEXT);
        CREATE TRIGGER pair_deleted AFTER DELETE ON themes BEGIN
            DELETE FROM themes WHERE id = 't' || (3 - substr(OLD.id, 2)); END;
        """

    private func replicas() throws -> [Replica] {
        try (1...2 as ClosedRange<UInt8>).map { id in
            var configuration = configuration(node: id, clock: clock)
            configuration.catchesWithPreupdateHook = false
            let replica = try Replica.inMemory(configuration: configuration)
            try replica.database.execute(Self.pairs)
            try replica.enableSync(on: "themes")
            return replica
        }
    }

    private func caught(_ replica: Replica) -> Int { replica.database.connection.silencer.catcher.caught.count }

    /// The first device deletes `t1` (its trigger takes its `t2`); the second, merging that, loses its own
    /// newer `t2` to its trigger, whose values every device keeps.
    private func deletePairs(_ replicas: [Replica], newer values: String) throws {
        try replicas[0].database.execute(
            "INSERT INTO themes (id, background, foreground) VALUES ('t1', 'plan', 'milk')")
        try Replica.sync(replicas)
        clock.advance(by: 10)
        try replicas[1].database.execute("INSERT INTO themes VALUES \(values)")
        clock.advance(by: 10)
        try replicas[0].database.execute("DELETE FROM themes WHERE id = 't1'")
        try Replica.sync(replicas)
    }

    @Test func theAppsOwnDeletesOnTheSharedConnectionAreNotCopied() throws {
        let replicas = try replicas()
        try deletePairs(replicas, newer: "('t2', 'plan', 'paint')")
        #expect(caught(replicas[1]) == 0, "the merge made the triggers, and took what they handed over")
        let triggers = "SELECT count(*) FROM temp.sqlite_schema WHERE type = 'trigger'"
        #expect(try replicas[1].database.scalar(triggers) == 1)
        try replicas[1].database.execute(
            "INSERT INTO themes VALUES ('t1', 'a', 'b'), ('t2', 'c', 'd'); DELETE FROM themes WHERE id = 't1'")
        #expect(try replicas[1].database.query("SELECT * FROM themes") == [])
        #expect(caught(replicas[1]) == 0, "disarmed outside merges")
        #expect(try replicas[1].check().isConsistent)
    }

    /// A trigger naming a column keeps SQLite from dropping it: a table that stops syncing keeps none, so
    /// the app's migration can drop a column on the replica's connection (it failed with "error in trigger
    /// _concord_1_catch after drop column").
    @Test func aTableNoLongerSyncedKeepsNoTriggerToStopADropColumn() throws {
        let replicas = try replicas()
        try deletePairs(replicas, newer: "('t2', 'plan', 'paint')")
        try replicas[1].disableSync(on: "themes")
        try replicas[1].database.execute("ALTER TABLE themes DROP COLUMN foreground")
        #expect(try replicas[1].database.scalar("SELECT count(*) FROM temp.sqlite_schema WHERE type = 'trigger'") == 0)
    }

    /// A BEFORE trigger that ignores the merge's delete of a row is noticed by the statement's change count,
    /// and the delete made again with triggers off: the catch triggers write nothing that would count. (They
    /// once copied rows into a TEMP table, and the count read that copy's.)
    @Test func aDeleteATriggerIgnoredIsStillNoticed() throws {
        let replicas = try replicas()
        try replicas[1].database.execute(
            """
            CREATE TABLE locks (id TEXT PRIMARY KEY); INSERT INTO locks VALUES ('t1');
            CREATE TRIGGER locked BEFORE DELETE ON themes WHEN EXISTS (SELECT 1 FROM locks WHERE id = OLD.id)
              BEGIN SELECT RAISE(IGNORE); END;
            """)
        try deletePairs(replicas, newer: "('t2', 'plan', 'paint')")
        for replica in replicas {
            // Made again with triggers off, the delete of t1 does not take t2 along.
            #expect(try replica.database.query("SELECT * FROM themes") == [["t2", "plan", "paint"]])
            let report = try replica.check()
            #expect(report.isConsistent, "\(report)")
        }
    }

    @Test func aTableTheAppChangedGetsTriggersThatCopyItsNewColumns() throws {
        let replicas = try replicas()
        for replica in replicas {
            try replica.database.execute("ALTER TABLE themes ADD COLUMN note TEXT")
            _ = try replica.foldLocalWrites()
        }
        try deletePairs(replicas, newer: "('t2', 'plan', 'paint', 'kept')")
        for replica in replicas {
            #expect(try replica.database.query("SELECT * FROM themes") == [])
            #expect(try replica.check().isConsistent)
            let t2 = try replica.registers(of: "themes", key: "t2")
            #expect(t2?.liveness.isAlive == false)
            #expect(t2?.columns.map { $0?.value } == ["plan", "paint", "kept"])
        }
        let trigger = try replicas[1].database.scalar(
            #"SELECT sql FROM temp.sqlite_schema WHERE name = '_concord_1_catch'"#)?.textValue
        #expect(trigger?.contains(#"OLD."note""#) == true, "\(trigger ?? "no trigger")")
    }
}
