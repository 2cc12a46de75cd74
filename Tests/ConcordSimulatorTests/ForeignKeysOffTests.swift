import Concord
import ConcordTestSupport
import ConcordTesting
import Foundation
import Testing

@testable import ConcordSimulator

/// Apps that leave foreign keys off (SQLite's default), drawn per device: the draw shifts nothing else,
/// and the oracle derives the cascades Concord makes for them.
@Suite(.tags(.simulation))
struct ForeignKeysOffTests {
    static let schema = """
        CREATE TABLE lists (id TEXT PRIMARY KEY NOT NULL, name TEXT);
        CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, list TEXT REFERENCES lists(id) ON DELETE CASCADE);
        CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, item TEXT REFERENCES items(id) ON DELETE CASCADE);
        CREATE TABLE pins (id TEXT PRIMARY KEY NOT NULL, list TEXT REFERENCES lists(id) ON DELETE SET NULL);
        """

    /// Deleting a list with foreign keys off leaves its items and their notes in place for Concord to
    /// delete; the statement derives exactly the rows Concord's fold deletes.
    @Test func theOracleDerivesTheCascadesConcordMakes() throws {
        let replica = try Self.replicaWithForeignKeysOff(
            holding:
                """
                INSERT INTO lists VALUES ('l1', 'a'), ('l2', 'b');
                INSERT INTO items VALUES ('i1', 'l1'), ('i2', 'l2'), ('i3', 'l1');
                INSERT INTO notes VALUES ('n1', 'i1'), ('n2', 'i2');
                INSERT INTO pins VALUES ('p1', 'l1');
                """)
        _ = try replica.foldLocalWrites()
        let before = try TableSnapshot(of: replica)
        try replica.database.execute("DELETE FROM lists WHERE id = 'l1'")
        let after = try TableSnapshot(of: replica)
        let cascaded = Statement.cascades(
            before: before, after: after, foreignKeys: try OracleSchema(of: replica).foreignKeys)
        let expected: Set = [
            RowRef(table: "items", key: "i1"), RowRef(table: "items", key: "i3"), RowRef(table: "notes", key: "n1"),
        ]
        #expect(cascaded == expected)
        _ = try replica.foldLocalWrites()
        let folded = try TableSnapshot(of: replica)
        for row in expected {
            #expect(folded[row] == nil, "\(row) still shows")
            #expect(try replica.registers(of: row.table, key: row.key)?.liveness.isAlive == false)
        }
        #expect(folded[RowRef(table: "pins", key: "p1")] == [.null], "the pin shows NULL for its deleted list")
    }

    /// The fold stamps every row the statement cascaded to; a cascade it skipped is named, the first in
    /// table and key order, since the ledger alone (which records stamped rows) would not notice.
    @Test func aCascadeTheFoldDidNotStampIsNamed() throws {
        let replica = try Self.replicaWithForeignKeysOff(
            holding:
                "INSERT INTO lists VALUES ('l1', 'a'); INSERT INTO items VALUES ('i1', 'l1'), ('i3', 'l1');")
        var (newest, version): (Stamp?, Int64) = (nil, 0)
        _ = try OwnWrite.collect(from: replica, node: replica.nodeID, newest: &newest, version: &version)
        let before = try TableSnapshot(of: replica)
        try replica.database.execute("DELETE FROM lists WHERE id = 'l1'")
        var statement = Statement(
            sql: "DELETE FROM lists WHERE id = 'l1'", before: before, after: try TableSnapshot(of: replica))
        statement.cascaded = Statement.cascades(
            before: before, after: statement.after, foreignKeys: try OracleSchema(of: replica).foreignKeys)
        let touched = try OwnWrite.collect(from: replica, node: replica.nodeID, newest: &newest, version: &version)
        #expect(Set(touched.map(\.row)).isSuperset(of: statement.cascaded))
        #expect(statement.firstCascadeUnstamped(in: touched) == nil)
        let skipped = touched.filter { $0.row.table != "items" }
        #expect(statement.firstCascadeUnstamped(in: skipped) == RowRef(table: "items", key: "i1"))
    }

    /// A child inserted again, then its parent deleted, before one fold: the cascade Concord makes keeps
    /// what the new life holds, not the hidden copy its previous delete left.
    @Test func aCascadeKeepsTheValuesOfAChildInsertedAgainInTheSameFold() throws {
        let replica = try Self.replicaWithForeignKeysOff(
            holding:
                "INSERT INTO lists VALUES ('l1', 'a'), ('l2', 'b'); INSERT INTO items VALUES ('i1', 'l1');")
        _ = try replica.foldLocalWrites()
        try replica.database.execute("DELETE FROM items WHERE id = 'i1'")
        _ = try replica.foldLocalWrites()
        try replica.database.execute("INSERT INTO items VALUES ('i1', 'l2'); DELETE FROM lists WHERE id = 'l2';")
        _ = try replica.foldLocalWrites()
        let item = try #require(try replica.registers(of: "items", key: "i1"))
        #expect(item.liveness.isAlive == false)
        #expect(item.columns[0]?.value == "l2", "the deleted item's list is its last life's")
        #expect(try replica.check().isConsistent)
    }

    /// A row showing a stand-in (its `SET NULL` parent gone) and deleted in the same fold as its parent's
    /// re-insert keeps the reference it held, which the re-insert would have shown again; one whose
    /// reference the app changed in that fold, then set to NULL, keeps the NULL (a NULL written over the
    /// stand-in alone changes nothing, in one fold or several).
    @Test(arguments: [false, true])
    func aDeletedRowKeepsTheReferenceItsStandInHid(appWritesNull: Bool) throws {
        let replica = try Self.replicaWithForeignKeysOff(
            holding: "INSERT INTO lists VALUES ('l1', 'a'); INSERT INTO pins VALUES ('p1', 'l1');")
        _ = try replica.foldLocalWrites()
        try replica.database.execute("DELETE FROM lists WHERE id = 'l1'")
        _ = try replica.foldLocalWrites()
        #expect(try replica.database.scalar("SELECT list FROM pins WHERE id = 'p1'") == .null, "a stand-in")
        try replica.database.execute(
            "INSERT INTO lists VALUES ('l1', 'again');"
                + (appWritesNull
                    ? "UPDATE pins SET list = 'l2' WHERE id = 'p1'; UPDATE pins SET list = NULL WHERE id = 'p1';" : "")
                + "DELETE FROM pins WHERE id = 'p1';")
        _ = try replica.foldLocalWrites()
        let pin = try #require(try replica.registers(of: "pins", key: "p1"))
        #expect(pin.liveness.isAlive == false)
        #expect(pin.columns[0]?.value == (appWritesNull ? .null : "l1"))
        #expect(try replica.check().isConsistent)
    }

    /// A replica of ``schema`` whose connection leaves foreign keys off, holding `rows` (SQL).
    static func replicaWithForeignKeysOff(holding rows: String) throws -> Replica {
        let replica = try Replica.inMemory()
        try replica.database.execute(schema)
        for table in ["lists", "items", "notes", "pins"] { try replica.enableSync(on: table) }
        try replica.database.execute("PRAGMA foreign_keys = OFF")
        try replica.database.execute(rows)
        return replica
    }

    @Test func drawingEnforcementShiftsNoPlan() {
        var off = Scenario(name: "x", steps: 60)
        off.faults.foreignKeysOff = [50, 50]
        for seed in 1...5 as ClosedRange<UInt64> {
            #expect(
                Simulation(scenario: off, seed: seed).plan().plan
                    == Simulation(scenario: Scenario(name: "x", steps: 60), seed: seed).plan().plan)
        }
    }

    @Test func someDevicesLeaveForeignKeysOffAtTheRate() {
        let draws = (1...200 as ClosedRange<UInt64>).flatMap { seed in
            (0..<3).map { Durability.foreignKeys(rate: 50, seed: seed, device: $0) }
        }
        let off = draws.filter { !$0 }.count
        #expect((200...400).contains(off), "\(off) of 600 devices left foreign keys off")
        #expect(Durability.foreignKeys(rate: 0, seed: 1, device: 0))
        #expect(Durability.foreignKeysOffRate([0, 0], seed: 1) == 0)
    }

    @Test func aRunWithForeignKeysOffPassesAndSaysSo() throws {
        var scenario = Scenario(name: "off", steps: 120)
        scenario.faults.foreignKeysOff = [100, 100]
        let result = try Simulation(scenario: scenario, seed: 3, keepsTrace: true).run()
        #expect(result.passed, "\(result.failure?.description ?? "did not converge")")
        #expect(result.trace?.contains { $0.hasSuffix("device 0's app leaves foreign keys off") } == true)
    }
}
