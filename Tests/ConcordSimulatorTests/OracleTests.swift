import Concord
import ConcordTestSupport
import ConcordTesting
import Foundation
import Testing

@testable import ConcordSimulator

/// The simulator's oracle end to end: what the apps did, recorded on the app side into a `Ledger`,
/// ConcordTesting's `ReferenceModel` over it, and the checks that hold real replicas to the model.
/// It must agree with replicas that merged those writes, disagree when a write is missing from
/// what it is told, and catch an engine that gets a delete wrong even when every replica agrees.
@Suite("Oracle", .tags(.simulation), .timeLimit(.hangGuard))
struct OracleTests {
    final class Device {
        let replica: Replica
        let node: NodeID
        var newest: Stamp?
        var version: Int64 = 0
        var knowledge = Knowledge()

        init(_ folder: TemporaryDirectory, _ index: Int, clock: ManualClock) throws {
            node = NodeID(bytes: Array(repeating: UInt8(index + 1), count: 16))!
            let id = node
            replica = try Replica(
                path: folder.url.appendingPathComponent("d\(index).sqlite").path,
                configuration: .init(clock: clock, makeNodeID: { id }))
            try replica.database.execute(
                """
                CREATE TABLE people (id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL);
                CREATE TABLE projects (id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL, score INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE tasks (id TEXT PRIMARY KEY NOT NULL,
                    project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE RESTRICT,
                    owner TEXT REFERENCES people(id) ON DELETE SET NULL, title TEXT NOT NULL);
                CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL,
                    task_id TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE, body TEXT);
                """)
            try replica.enableSync(on: "people")
            try replica.enableSync(on: "projects", merges: ["score": .counter])
            try replica.enableSync(on: "tasks")
            try replica.enableSync(on: "notes")
            try replica.database.execute("PRAGMA foreign_keys = ON")
        }
    }

    /// Devices whose apps' writes are recorded the way the simulation records them.
    final class World {
        let folder = TemporaryDirectory()
        let clock = ManualClock(unixMilliseconds: Simulation.start)
        var devices: [Device] = []
        var ledger = AppLedger()
        var step = 0

        init(devices count: Int = 3) throws {
            devices = try (0..<count).map { try Device(folder, $0, clock: clock) }
        }

        /// Runs `sql` on device `index` and records what it did; returns the operations recorded.
        @discardableResult
        func write(_ index: Int, _ sql: String) throws -> [Ledger.Operation] {
            clock.advance(by: 10)
            let device = devices[index]
            let before = try TableSnapshot(of: device.replica)
            try device.replica.database.execute(sql)
            let statement = Statement(sql: sql, before: before, after: try TableSnapshot(of: device.replica))
            let touched = try OwnWrite.collect(
                from: device.replica, node: device.node, newest: &device.newest, version: &device.version)
            let tables = Dictionary(uniqueKeysWithValues: device.replica.tables.map { ($0.name, $0.schema) })
            defer { step += 1 }
            return ledger.record(
                statement, touched: touched, tables: tables, node: device.node,
                origin: .init(step: step, device: index), knowledge: &device.knowledge)
        }

        /// Every device exchanges with every other until nobody learns anything, and knows what all knew.
        func sync() throws {
            try Replica.sync(devices.map(\.replica))
            var everything = Knowledge()
            for device in devices { everything.learn(device.knowledge) }
            for device in devices { device.knowledge = everything }
        }

        func oracle() throws -> Oracle { try Oracle(schemaOf: devices[0].replica, ledger: ledger) }
    }

    /// Three devices write, conflict, delete, revive and sync.
    static func history(recordingTheLateTask: Bool = true) throws -> World {
        let world = try World()
        try world.write(0, "INSERT INTO people VALUES ('ann', 'Ann')")
        try world.write(0, "INSERT INTO projects (id, name) VALUES ('p', 'Garden')")
        try world.sync()
        try world.write(1, "UPDATE projects SET name = 'Yard', score = score + 2 WHERE id = 'p'")
        // Later: its name wins.
        try world.write(2, "UPDATE projects SET name = 'Lawn', score = score + 5 WHERE id = 'p'")
        try world.write(1, "INSERT INTO tasks VALUES ('t1', 'p', 'ann', 'mow')")
        try world.write(0, "DELETE FROM people WHERE id = 'ann'")  // t1 shows owner NULL
        try world.write(0, "DELETE FROM projects WHERE id = 'p'")  // device 0 has no tasks
        let late = "INSERT INTO tasks VALUES ('t2', 'p', NULL, 'rake')"  // after the delete: revives p
        if recordingTheLateTask {
            try world.write(2, late)
        } else {
            try world.devices[2].replica.database.execute(late)
        }
        try world.sync()
        return world
    }

    @Test func theOracleAgreesWithReplicasThatMergedTheSameWrites() throws {
        let world = try Self.history()
        let oracle = try world.oracle()
        for device in world.devices {
            #expect(try oracle.tableDifference(on: device.replica) == nil)
            #expect(try oracle.registerDifference(on: device.replica) == nil)
            let accounted = try oracle.accountForWrites(on: device.replica)
            #expect(accounted.loss == nil)
            #expect(accounted.fates.values.reduce(0, +) == world.ledger.ledger.operations.count)
        }
        // Revived by t2, the project shows its latest name; its count belongs to the deleted life, which starts at 0.
        #expect(oracle.model.shownColumns(of: RowRef(table: "projects", key: "p")) == ["Lawn", 0])
        let t1 = RowRef(table: "tasks", key: "t1")
        #expect(oracle.model.shownColumns(of: t1)?[1] == .null, "the owner shows NULL")
        #expect(oracle.model.registers[t1]?.columns[1]?.value == "ann", "the register keeps 'ann'")
    }

    @Test func theOracleDisagreesWhenAWriteIsMissing() throws {
        let world = try Self.history(recordingTheLateTask: false)
        // Without the task written after the delete, nothing revives the project; the replicas show it.
        let difference = try world.oracle().tableDifference(on: world.devices[0].replica)
        #expect(difference?.hasPrefix("projects/p: the devices show") == true, "\(difference ?? "no difference")")
    }

    /// Kinds come from the statement and its foreign-key actions, values from what it left in the table
    /// (a counter's change), and `seen` from what the device knew of the row.
    @Test func writesAreRecordedAsTheAppMadeThem() throws {
        let world = try World(devices: 2)
        let person = try world.write(0, "INSERT INTO people VALUES ('ann', 'Ann')")
        let project = try world.write(0, "INSERT INTO projects (id, name) VALUES ('p', 'Garden')")
        #expect(project.map(\.kind) == [.insert] && project[0].values == [0: "Garden", 1: 0])
        let task = try world.write(0, "INSERT INTO tasks VALUES ('t1', 'p', 'ann', 'mow')")
        try world.write(0, "INSERT INTO notes VALUES ('n1', 't1', 'sharpen the blade')")
        let counted = try world.write(0, "UPDATE projects SET score = score + 2, name = 'Garden' WHERE id = 'p'")
        #expect(counted.map(\.kind) == [.update] && counted[0].values == [1: 2], "the change, and no unchanged name")
        // SET NULL: the task is updated, and the person deleted.
        let gone = try world.write(0, "DELETE FROM people WHERE id = 'ann'")
        #expect(Set(gone.map { "\($0.row) \($0.kind)" }) == ["people/ann delete", "tasks/t1 update"])
        #expect(gone.first { $0.row.table == "tasks" }?.values == [1: .null])
        #expect(gone.first { $0.row.table == "people" }?.seen == Set(person.map(\.id)))
        // CASCADE: the note is deleted with its task; the task's delete saw its insert and the SET NULL.
        let cascade = try world.write(0, "DELETE FROM tasks WHERE id = 't1'")
        #expect(Set(cascade.map { "\($0.row) \($0.kind)" }) == ["tasks/t1 delete", "notes/n1 delete"])
        let setNull = gone.first { $0.row.table == "tasks" }!.id
        #expect(cascade.first { $0.row.table == "tasks" }?.seen == [task[0].id, setNull])
        // Device 1 learns the project with the changes that carry it, and its write sees what device 0 knew.
        try world.sync()
        let remote = try world.write(1, "UPDATE projects SET name = 'Yard' WHERE id = 'p'")
        #expect(remote[0].seen == [project[0].id, counted[0].id])
    }

    /// An engine whose delete leaves the row alive (here: it stores the delete as the next odd causal
    /// length) is caught, though every replica that took its changes agrees with it. The simulator's old
    /// oracle read each write's causal length from the engine's own captured records, which say "alive",
    /// so it expected what the engine did; the ledger says the app deleted the row.
    @Test func theOracleCatchesADeleteThatLeavesTheRowAlive() throws {
        let world = try World(devices: 2)
        try world.write(0, "INSERT INTO people VALUES ('ann', 'Ann')")
        try world.write(0, "DELETE FROM people WHERE id = 'ann'")
        // What the buggy engine of device 0 would have captured and exported for its delete.
        var changes = try world.devices[0].replica.changes(since: 0)
        let index = try #require(changes.rows.firstIndex { $0.table == "people" })
        changes.rows[index].registers.liveness.causalLength = 3
        #expect(changes.rows[index].registers.liveness.isAlive, "the engine's own record says alive")
        let buggy = world.devices[1].replica
        _ = try buggy.apply(changes)
        #expect(try buggy.database.query("SELECT id FROM people") == [["ann"]])
        let oracle = try world.oracle()
        let shown = try oracle.tableDifference(on: buggy)
        #expect(shown?.hasPrefix("people/ann: the devices show") == true, "\(shown ?? "no difference")")
        let held = try oracle.registerDifference(on: buggy)
        #expect(
            held?.contains("causal length 3") == true && held?.contains("expects causal length 2") == true,
            "\(held ?? "none")")
        // The replica that really deleted the row agrees with the model.
        #expect(try oracle.tableDifference(on: world.devices[0].replica) == nil)
        #expect(try oracle.registerDifference(on: world.devices[0].replica) == nil)
    }
}
