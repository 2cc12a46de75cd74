import ConcordTestSupport
import Foundation
import Testing

@_spi(Simulation) @testable import Concord

/// Disable, migrate, enable again (the way through a migration Concord refuses) goes on where sync stopped.
///
/// Enabled again, every row was a first write of a first life: a delete made right after came undone from
/// a peer holding a later life, a row the migration deleted came back, a row inserted again over an old
/// delete stayed hidden on the peers, and a counter counted the other devices' share twice.
@Suite(.tags(.replica), .timeLimit(.hangGuard))
struct DisableEnableAgainTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    private static let schema =
        "CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, body TEXT, old TEXT, taps INTEGER NOT NULL DEFAULT 0)"

    private func pair() throws -> [Replica] {
        try (1...2 as ClosedRange<UInt8>).map { id in
            let replica = try Replica.inMemory(configuration: configuration(node: id, clock: clock))
            try replica.database.execute(Self.schema)
            try replica.enableSync(on: "notes", merges: ["taps": .counter])
            return replica
        }
    }

    /// Drops column `old` on `replica`, a change Concord refuses while the table syncs.
    private func migrate(_ replica: Replica, _ sql: String = "") throws {
        try replica.disableSync(on: "notes")
        try replica.database.execute("ALTER TABLE notes DROP COLUMN old;" + sql)
        try replica.enableSync(on: "notes", merges: ["taps": .counter])
    }

    private func sync(_ replicas: [Replica]) throws {
        clock.advance(by: 10)
        try Replica.sync(replicas)
    }

    private func notes(_ replica: Replica) throws -> [[SQLiteValue]] {
        try replica.database.query("SELECT id, body, taps FROM notes ORDER BY id")
    }

    private func expectConverged(_ replicas: [Replica], _ expected: [[SQLiteValue]]) throws {
        for replica in replicas {
            #expect(try notes(replica) == expected)
            let report = try replica.check()
            #expect(report.isConsistent, "\(report)")
        }
    }

    @Test func aDeleteRightAfterEnablingAgainWinsOverTheRowsEarlierLives() throws {
        let replicas = try pair()
        try replicas[0].database.execute("INSERT INTO notes (id, body) VALUES ('n1', 'a'), ('n2', 'b')")
        try sync(replicas)
        try replicas[1].database.execute("DELETE FROM notes WHERE id = 'n1'")
        try sync(replicas)
        try replicas[1].database.execute("INSERT INTO notes (id, body) VALUES ('n1', 'again')")
        try sync(replicas)
        try migrate(replicas[0], "DELETE FROM notes WHERE id = 'n2'")
        try replicas[0].database.execute("DELETE FROM notes WHERE id = 'n1'")
        try sync(replicas)
        try expectConverged(replicas, [])
        #expect(try replicas[1].registers(of: "notes", key: "n1")?.liveness.causalLength == 4)
    }

    @Test func aRowInsertedAgainDuringTheMigrationOverAnOldDeleteShowsEverywhere() throws {
        let replicas = try pair()
        try replicas[0].database.execute("INSERT INTO notes (id, body) VALUES ('n1', 'a')")
        try sync(replicas)
        try replicas[0].database.execute("DELETE FROM notes WHERE id = 'n1'")
        try sync(replicas)
        try migrate(replicas[0], "INSERT INTO notes (id, body) VALUES ('n1', 'back'), ('n3', 'new')")
        try sync(replicas)
        try expectConverged(replicas, [["n1", "back", 0], ["n3", "new", 0]])
        #expect(try replicas[1].registers(of: "notes", key: "n1")?.liveness.causalLength == 3)
    }

    @Test func aCounterCountsEachDevicesShareOnce() throws {
        let replicas = try pair()
        try replicas[0].database.execute("INSERT INTO notes (id, body) VALUES ('n1', 'a')")
        try sync(replicas)
        try replicas[0].database.execute("UPDATE notes SET taps = taps + 4 WHERE id = 'n1'")
        try replicas[1].database.execute("UPDATE notes SET taps = taps + 6 WHERE id = 'n1'")
        try sync(replicas)
        try migrate(replicas[0], "UPDATE notes SET taps = taps + 1 WHERE id = 'n1'")
        try replicas[1].database.execute("UPDATE notes SET taps = taps + 2 WHERE id = 'n1'")
        try sync(replicas)
        try expectConverged(replicas, [["n1", "a", 13]])
    }

    /// Values the migration left as they were keep their stamps: another device's edit made while sync was off
    /// here wins over them, and the migration's own change wins over what came before it.
    @Test func anEditAnotherDeviceMadeWhileSyncWasOffHereWins() throws {
        let replicas = try pair()
        try replicas[0].database.execute("INSERT INTO notes (id, body, old) VALUES ('n1', 'a', 'x'), ('n2', 'b', 'y')")
        try sync(replicas)
        try replicas[0].disableSync(on: "notes")
        clock.advance(by: 10)
        try replicas[1].database.execute("UPDATE notes SET body = 'edited meanwhile' WHERE id IN ('n1', 'n2')")
        try sync(replicas)
        clock.advance(by: 10)
        try replicas[0].database.execute(
            "ALTER TABLE notes DROP COLUMN old; UPDATE notes SET body = 'migrated' WHERE id = 'n2'")
        try replicas[0].enableSync(on: "notes", merges: ["taps": .counter])
        try sync(replicas)
        try expectConverged(replicas, [["n1", "edited meanwhile", 0], ["n2", "migrated", 0]])
    }

    /// A row parked here (it arrived without its parent) is not in the table, so the migration did not
    /// delete it: enabling again leaves it alive on every device.
    @Test func aParkedRowIsNotTakenForOneTheMigrationDeleted() throws {
        let replicas = try (1...2 as ClosedRange<UInt8>).map { id in
            let replica = try Replica.inMemory(configuration: configuration(node: id, clock: clock))
            try replica.database.execute(
                "CREATE TABLE lists (id TEXT PRIMARY KEY NOT NULL, name TEXT); "
                    + "CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, list TEXT REFERENCES lists(id), title TEXT, old TEXT)"
            )
            try replica.enableSync(on: "lists")
            try replica.enableSync(on: "items")
            return replica
        }
        try replicas[1].database.execute(
            "INSERT INTO lists VALUES ('l1', 'home'); INSERT INTO items VALUES ('i1', 'l1', 'milk', NULL)")
        // Only the item reaches the first device (and it takes itself for up to date with the second).
        var items = try replicas[1].changes(since: 0)
        items.rows = items.rows.filter { $0.table == "items" }
        try replicas[0].apply(items)
        #expect(try replicas[0].parkedReasons()[RowRef(table: "items", key: "i1")] != nil, "i1 waits for its list")
        try replicas[0].disableSync(on: "items")
        try replicas[0].database.execute("ALTER TABLE items DROP COLUMN old")
        try replicas[0].enableSync(on: "items")
        try sync(replicas)
        for replica in replicas {
            #expect(try replica.registers(of: "items", key: "i1")?.liveness.isAlive == true)
            let report = try replica.check()
            #expect(report.isConsistent, "\(report)")
        }
        #expect(try replicas[1].database.query("SELECT id, title FROM items") == [["i1", "milk"]])
        // Its list arrives at last: it shows.
        var lists = try replicas[1].changes(since: 0)
        lists.rows = lists.rows.filter { $0.table == "lists" }
        try replicas[0].apply(lists)
        #expect(try replicas[0].database.query("SELECT id, title FROM items") == [["i1", "milk"]])
        #expect(try replicas[0].check().isConsistent)
    }

    /// A row the migration deleted while another device deleted it and inserted it again: the later life
    /// wins, with the values that device wrote (the delete here writes no value).
    @Test func anotherDevicesNewLifeWinsOverADeleteMadeWhileSyncWasOff() throws {
        let replicas = try pair()
        try replicas[0].database.execute("INSERT INTO notes (id, body, taps) VALUES ('n3', 'z', 0)")
        try sync(replicas)
        try replicas[0].disableSync(on: "notes")
        try replicas[0].database.execute("DELETE FROM notes WHERE id = 'n3'")
        try replicas[1].database.execute(
            "DELETE FROM notes WHERE id = 'n3'; INSERT INTO notes (id, body, taps) VALUES ('n3', 'Z3', 7)")
        clock.advance(by: 10)
        try replicas[0].database.execute("ALTER TABLE notes DROP COLUMN old")
        try replicas[0].enableSync(on: "notes", merges: ["taps": .counter])
        try sync(replicas)
        try expectConverged(replicas, [["n3", "Z3", 7]])
    }

    /// Every device declares an integer column a counter through disable and enable: its value becomes the
    /// contribution of the device that wrote it, the same on each, so it counts once (10 showed 20).
    @Test func aColumnEveryDeviceMakesACounterKeepsItsValue() throws {
        let replicas = try (1...2 as ClosedRange<UInt8>).map { id in
            let replica = try Replica.inMemory(configuration: configuration(node: id, clock: clock))
            try replica.database.execute("CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL DEFAULT 0)")
            try replica.enableSync(on: "t")
            return replica
        }
        try replicas[0].database.execute("INSERT INTO t VALUES ('a', 10), ('b', 4)")
        try sync(replicas)
        try replicas[1].database.execute("UPDATE t SET n = 50 WHERE id = 'a'")
        try sync(replicas)
        for replica in replicas {
            try replica.disableSync(on: "t")
            try replica.enableSync(on: "t", merges: ["n": .counter])
        }
        try sync(replicas)
        try replicas[0].database.execute("UPDATE t SET n = n + 1 WHERE id = 'a'")
        try replicas[1].database.execute("UPDATE t SET n = n + 2")
        try sync(replicas)
        for replica in replicas {
            #expect(try replica.database.query("SELECT id, n FROM t ORDER BY id") == [["a", 53], ["b", 6]])
            let report = try replica.check()
            #expect(report.isConsistent, "\(report)")
        }
    }

    @Test func enablingAgainKeepsNothingBehindAndATableNeverDisabledStartsAtTheFirstLife() throws {
        let replicas = try pair()
        try replicas[0].database.execute("INSERT INTO notes (id, body) VALUES ('n1', 'a')")
        try sync(replicas)
        try replicas[0].disableSync(on: "notes")
        #expect(try replicas[0].database.scalar("SELECT count(*) FROM _concord_retired") == .integer(1))
        try replicas[0].database.execute("ALTER TABLE notes DROP COLUMN old")
        try replicas[0].enableSync(on: "notes", merges: ["taps": .counter])
        for kept in [RetiredRows.rows, RetiredRows.values, RetiredRows.counts] {
            #expect(try replicas[0].database.scalar("SELECT count(*) FROM \(kept)") == .integer(0), "\(kept)")
        }
        let fresh = try Replica.inMemory(configuration: configuration(node: 3, clock: clock))
        try fresh.database.execute(
            "CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, body TEXT); INSERT INTO notes VALUES ('n9', 'x')")
        try fresh.enableSync(on: "notes")
        #expect(try fresh.registers(of: "notes", key: "n9")?.liveness.causalLength == 1)
    }
}
