import Concord
import ConcordTestSupport
import Foundation
import Testing

@testable import ConcordSimulator

/// The oracle computes the expected state from the ledger of writes alone:
/// it must agree with replicas that merged those writes, and disagree when a
/// write is missing from what it is told.
@Suite("Reference model", .tags(.simulation), .timeLimit(.hangGuard))
struct ReferenceModelTests {
    final class Device {
        let replica: Replica
        let node: NodeID
        var newest: Stamp?
        var version: Int64 = 0

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
                """)
            try replica.enableSync(on: "people")
            try replica.enableSync(on: "projects", merges: ["score": .counter])
            try replica.enableSync(on: "tasks")
            try replica.database.execute("PRAGMA foreign_keys = ON")
        }
    }

    /// Three devices write, conflict, delete, revive and sync; every write goes into the ledger.
    static func history() throws -> (devices: [Device], ledger: WriteLedger, folder: TemporaryDirectory) {
        let folder = TemporaryDirectory()
        let clock = ManualClock(unixMilliseconds: Simulation.start)
        let devices = try (0..<3).map { try Device(folder, $0, clock: clock) }
        var ledger = WriteLedger()
        var step = 0
        func write(_ index: Int, _ sql: String) throws {
            clock.advance(by: 10)
            try devices[index].replica.database.execute(sql)
            _ = try ledger.collect(
                from: devices[index].replica, node: devices[index].node,
                newest: &devices[index].newest, version: &devices[index].version, step: step)
            step += 1
        }
        try write(0, "INSERT INTO people VALUES ('ann', 'Ann')")
        try write(0, "INSERT INTO projects (id, name) VALUES ('p', 'Garden')")
        try Replica.sync(devices.map(\.replica))
        try write(1, "UPDATE projects SET name = 'Yard', score = score + 2 WHERE id = 'p'")
        try write(2, "UPDATE projects SET name = 'Lawn', score = score + 5 WHERE id = 'p'")  // later: its name wins
        try write(1, "INSERT INTO tasks VALUES ('t1', 'p', 'ann', 'mow')")
        try write(0, "DELETE FROM people WHERE id = 'ann'")  // t1 shows owner NULL
        try write(0, "DELETE FROM projects WHERE id = 'p'")  // device 0 has no tasks
        try write(2, "INSERT INTO tasks VALUES ('t2', 'p', NULL, 'rake')")  // after the delete: revives p
        try Replica.sync(devices.map(\.replica))
        return (devices, ledger, folder)
    }

    static func table(_ replica: Replica, _ name: String, columns: String) throws -> [SQLiteValue: [SQLiteValue]] {
        Dictionary(
            uniqueKeysWithValues: try replica.database.query("SELECT \(columns) FROM \(name) ORDER BY 1").map {
                ($0[0], $0)
            })
    }

    @Test func theModelAgreesWithReplicasThatMergedTheSameWrites() throws {
        let (devices, ledger, _) = try Self.history()
        let model = try ReferenceModel(schemaOf: devices[0].replica, ledger: ledger)
        for (name, columns) in [
            ("people", "id, name"), ("projects", "id, name, score"), ("tasks", "id, project_id, owner, title"),
        ] {
            #expect(
                model.visibleRows(of: name) == (try Self.table(devices[0].replica, name, columns: columns)), "\(name)")
        }
        // Revived by t2, the project shows its latest name; its count belongs to the deleted life, which starts at 0.
        #expect(model.visibleRows(of: "projects")[.text("p")] == [.text("p"), .text("Lawn"), .integer(0)])
        #expect(
            model.visibleRows(of: "tasks")[.text("t1")]?[2] == .null, "the owner shows NULL, the register keeps 'ann'")
        #expect(model.rows[ReferenceModel.RowID(table: "tasks", key: .text("t1"))]?.values[1] == .text("ann"))
    }

    @Test func theModelDisagreesWhenAWriteIsMissing() throws {
        let (devices, ledger, _) = try Self.history()
        var partial = WriteLedger()
        partial.entries = ledger.entries.filter { !($0.table == "tasks" && $0.key == .text("t2")) }
        let model = try ReferenceModel(schemaOf: devices[0].replica, ledger: partial)
        // Without the task written after the delete, nothing revives the project.
        #expect(model.visibleRows(of: "projects").isEmpty)
        #expect(try Self.table(devices[0].replica, "projects", columns: "id").count == 1)
    }
}
