import ConcordTestSupport
import Testing

@_spi(Simulation) @testable import Concord

/// A row an app trigger deletes while Concord merges keeps its values, as the app's own deletes do.
///
/// SQLite cannot leave such a delete out, and a shown row's values live only in its table. Before, the
/// values left with the row and its registers kept their stamps over NULL. A peer holding the same writes
/// then tied NULL against the values at one stamp, and the tie could settle on NULL everywhere: with
/// clocks apart, an older insert of the row brought it back showing NULL on every device (the counter
/// app's themes, which come in pairs a trigger deletes together, found it in the simulator).
///
/// Each test runs twice: with SQLite's preupdate hook reading the rows, and with the TEMP triggers that
/// read them where the library lacks the hook (before, such libraries lost the values: the tests failed
/// on SQLite 3.46.1 built without the hook, `Scripts/other-sqlite.sh`).
@Suite(.tags(.replica))
struct AppTriggerDeletedValuesTests {
    /// Each device's own clock, so one can run ahead.
    private let clocks = [ManualClock(unixMilliseconds: epoch2026), ManualClock(unixMilliseconds: epoch2026)]

    private func advance(by milliseconds: Int64) { for clock in clocks { clock.advance(by: milliseconds) } }

    /// How the replicas read the rows triggers delete: with the hook (where the library has it), or not.
    static let catchers = DeletedRowCatcher.isAvailable ? [true, false] : [false]

    private func replicas(_ schema: String, sync table: String, policy: TablePolicy, hook: Bool) throws -> [Replica] {
        try (1...2 as ClosedRange<UInt8>).map { id in
            var configuration = configuration(node: id, clock: clocks[Int(id) - 1])
            configuration.catchesWithPreupdateHook = hook
            let replica = try Replica.inMemory(configuration: configuration)
            try replica.database.execute(schema)
            try replica.enableSync(on: table, policy: policy)
            return replica
        }
    }

    /// Deleting one theme deletes its pair, from the table its statement deletes from.
    private static let pairs = """
        CREATE TABLE themes (id TEXT PRIMARY KEY NOT NULL, background TEXT, foreground TEXT);
        CREATE TRIGGER pair_deleted AFTER DELETE ON themes BEGIN
            DELETE FROM themes WHERE id = 't' || (3 - substr(OLD.id, 2)); END;
        """

    /// Both devices insert `t2`, the second later; the first deletes `t1`, and with it its `t2`. Merging
    /// that, the second device's trigger takes its own `t2`, whose newer values the merged delete keeps.
    /// Before, they were lost there and NULL went out under their stamps.
    @Test(arguments: [TablePolicy.row, .column], catchers)
    func aRowATriggerTookKeepsTheNewerValuesItHeld(policy: TablePolicy, hook: Bool) throws {
        let replicas = try replicas(Self.pairs, sync: "themes", policy: policy, hook: hook)
        try replicas[0].database.execute("INSERT INTO themes VALUES ('t1', 'plan', 'milk')")
        try Replica.sync(replicas)
        advance(by: 10)
        try replicas[0].database.execute("INSERT INTO themes VALUES ('t2', 'milk', 'plan')")
        advance(by: 10)
        try replicas[1].database.execute("INSERT INTO themes VALUES ('t2', 'plan', 'paint')")
        try replicas[0].database.execute("DELETE FROM themes WHERE id = 't1'")
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(try replica.database.query("SELECT * FROM themes") == [])
            #expect(try replica.check().isConsistent)
            let t2 = try replica.registers(of: "themes", key: "t2")
            #expect(t2?.liveness.isAlive == false)
            #expect(t2?.columns.map { $0?.value } == ["plan", "paint"])
        }
        #expect(try replicas[0].registers(of: "themes", key: "t2") == replicas[1].registers(of: "themes", key: "t2"))
    }

    /// The same, with the first device inserting `t2` again at once, under stamps older than the second
    /// device's (whose clock runs ahead): the second device's values win the columns wherever the row ends.
    /// Before, that device lost them to its trigger and every device ended with NULLs.
    @Test(arguments: catchers) func aRowATriggerTookKeepsItsValuesThroughAnOlderInsert(hook: Bool) throws {
        let replicas = try replicas(Self.pairs, sync: "themes", policy: .row, hook: hook)
        try replicas[0].database.execute("INSERT INTO themes VALUES ('t1', 'plan', 'milk')")
        try Replica.sync(replicas)
        clocks[1].advance(by: 60_000)
        try replicas[1].database.execute("INSERT INTO themes VALUES ('t2', 'plan', 'paint')")
        advance(by: 10)
        try replicas[0].database.execute(
            """
            INSERT INTO themes VALUES ('t2', 'milk', 'plan'); DELETE FROM themes WHERE id = 't1';
            INSERT INTO themes VALUES ('t2', 'call', 'call')
            """)
        try Replica.sync(replicas)
        let shown = try replicas[0].database.query("SELECT * FROM themes")
        #expect(shown.allSatisfy { $0 == ["t2", "plan", "paint"] }, "\(shown)")
        for replica in replicas {
            #expect(try replica.database.query("SELECT * FROM themes") == shown)
            #expect(try replica.check().isConsistent)
            #expect(try replica.registers(of: "themes", key: "t2")?.columns.map { $0?.value } == ["plan", "paint"])
        }
    }

    /// A row only the trigger deletes (added on this device after the other archived its list) is this
    /// device's delete, and keeps what it held.
    @Test(arguments: catchers) func aRowOnlyTheTriggerDeletesIsThisDevicesDeleteWithItsValues(hook: Bool) throws {
        let schema = """
            CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, list TEXT, title TEXT);
            CREATE TRIGGER sweep AFTER DELETE ON items WHEN OLD.list IS NULL
              BEGIN DELETE FROM items WHERE list = OLD.id; END;
            """
        let replicas = try replicas(schema, sync: "items", policy: .column, hook: hook)
        try replicas[0].database.execute("INSERT INTO items VALUES ('l', NULL, 'groceries')")
        try Replica.sync(replicas)
        advance(by: 10)
        try replicas[0].database.execute("DELETE FROM items WHERE id = 'l'")
        advance(by: 10)
        try replicas[1].database.execute("INSERT INTO items VALUES ('j', 'l', 'eggs')")
        _ = try replicas[1].foldLocalWrites()
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(try replica.database.query("SELECT * FROM items") == [])
            #expect(try replica.check().isConsistent)
            let j = try replica.registers(of: "items", key: "j")
            #expect(j?.liveness.isAlive == false)
            #expect(j?.liveness.stamp?.node == replicas[1].nodeID)
            #expect(j?.columns.map { $0?.value } == ["l", "eggs"])
        }
    }
}
