import Concord
import ConcordTestSupport
import ConcordTesting
import Foundation
import Testing

@testable import ConcordSimulator

/// The wide app: hostile values and names, every merge, both policies and every kind of key, passing.
@Suite(.tags(.simulation, .slow), .timeLimit(.hangGuard))
struct WideScenarioTests {
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Simulations/wide.json").path

    @Test func theWideScenarioPassesAFewSeeds() throws {
        let scenario = try Scenario.load(path: Self.path)
        var merges: Set<String> = []
        for seed in 4...7 as ClosedRange<UInt64> {
            let result = try Simulation(scenario: scenario, seed: seed).run()
            #expect(result.passed, "seed \(seed): \(result.failure?.description ?? "did not converge")")
            #expect(result.writes > 20, "seed \(seed) wrote \(result.writes) times")
            merges.formUnion(result.conflicts.keys)
        }
        #expect(merges.count >= 3, "conflicts only under \(merges.sorted())")
    }

    /// The STRICT, WITHOUT ROWID table with generated columns gets rows, shown with the columns each
    /// device computes, on every device alike: the first seed from 4 on whose table holds rows at the end.
    @Test func theStrictTableWithGeneratedColumnsFillsAndConverges() throws {
        let scenario = try Scenario.load(path: Self.path)
        var filled = false
        for seed: UInt64 in 4..<12 where !filled {
            let simulation = Simulation(scenario: scenario, seed: seed)
            let directory = TemporaryDirectory()
            let result = try simulation.run(simulation.plan().plan, in: directory.url)
            #expect(result.passed, "seed \(seed): \(result.failure?.description ?? "did not converge")")
            let names = WorkloadNames(logical: Workload.wide.logicalNames, drawn: simulation.plan().plan.names ?? [])
            let table = quoteIdentifier(names.identifier("gauges"))
            let reading = quoteIdentifier(names.identifier("reading"))
            let twice = quoteIdentifier(names.identifier("twice"))
            var dumps: [[[SQLiteValue]]] = []
            for device in 0..<scenario.devices {
                let database = try Database(path: directory.url.appendingPathComponent("device-\(device).sqlite").path)
                dumps.append(try database.query("SELECT * FROM \(table) ORDER BY 3"))
                let wrong = try database.scalar(
                    "SELECT count(*) FROM \(table) WHERE \(twice) IS NOT (\(reading) * 2)")
                #expect(wrong == 0, "seed \(seed), device \(device): generated values differ from their expression")
            }
            #expect(dumps.allSatisfy { $0 == dumps[0] }, "seed \(seed)")
            filled = !dumps[0].isEmpty
        }
        #expect(filled, "no seed in 4..<12 left rows in the table")
    }

    /// The app vacuums and analyzes its file, undoes writes with its savepoints, writes in transactions (a child
    /// before its parent under a deferred key; one refused at `COMMIT` and rolled back) and several rows in one
    /// statement, between its other writes, and the runs still pass: the first seeds from 4 on that reach all.
    @Test func theAppVacuumsAnalyzesRollsBackToSavepointsAndWritesInTransactions() throws {
        let scenario = try Scenario.load(path: Self.path)
        var missing = [
            " wrote: VACUUM", " wrote: ANALYZE", " wrote: SAVEPOINT app; ", " wrote: BEGIN; PRAGMA defer_foreign_keys",
            " was refused: BEGIN; PRAGMA defer_foreign_keys", " wrote: BEGIN IMMEDIATE; ",
            " wrote: WITH RECURSIVE bulk_sequence_",
        ]
        var seed: UInt64 = 4
        while !missing.isEmpty && seed < 16 {
            let result = try Simulation(scenario: scenario, seed: seed, keepsTrace: true).run()
            #expect(result.passed, "seed \(seed): \(result.failure?.description ?? "did not converge")")
            let trace = result.trace ?? []
            missing.removeAll { statement in trace.contains { $0.contains(statement) } }
            seed += 1
        }
        #expect(missing.isEmpty, "seeds 4..<16 never ran \(missing)")
    }

    /// The app writes as today's clients do: names qualified by their schema, `RETURNING`, `UPDATE … FROM`,
    /// writes through a view's `INSTEAD OF` triggers, a `TEMP` trigger of its own connection that counts
    /// taps on another table, a conditional upsert and rows from a JSON array; the runs still pass: the
    /// first seeds from 4 on that reach all.
    @Test func theAppWritesThroughViewsTemporaryTriggersAndQualifiedNames() throws {
        let scenario = try Scenario.load(path: Self.path)
        var missing = [
            " wrote: INSERT INTO main.", " wrote: DELETE FROM main.", " wrote: UPDATE main.",
            " wrote: CREATE TEMP TRIGGER", " wrote: DROP TRIGGER IF EXISTS temp.", "view insert", "view update",
            "view delete", " wrote: WITH RECURSIVE items_(i, body)", "conditional upsert",
        ]
        var seed: UInt64 = 4
        while !missing.isEmpty && seed < 16 {
            let simulation = Simulation(scenario: scenario, seed: seed, keepsTrace: true)
            let result = try simulation.run()
            #expect(result.passed, "seed \(seed): \(result.failure?.description ?? "did not converge")")
            let names = WorkloadNames(logical: Workload.wide.logicalNames, drawn: simulation.plan().plan.names ?? [])
            let view = quoteIdentifier(names.identifier("place_labels"))
            let viewWrites = [
                "view insert": " wrote: INSERT INTO \(view) ", "view update": " wrote: UPDATE \(view) ",
                "view delete": " wrote: DELETE FROM \(view) ",
            ]
            let trace = result.trace ?? []
            missing.removeAll { event in
                if event == "conditional upsert" {
                    return trace.contains { $0.contains(" wrote: INSERT INTO ") && $0.contains(" WHERE excluded.") }
                }
                let text = viewWrites[event] ?? event
                return trace.contains { $0.contains(text) }
            }
            seed += 1
        }
        #expect(missing.isEmpty, "seeds 4..<16 never ran \(missing)")
    }

    @Test func theWideAppDeclaresEveryMergeAndBothPolicies() throws {
        let app = try Workload.wide.resolved()
        let merges = Set((app.tables ?? []).flatMap { ($0.merges ?? [:]).values })
        #expect(merges == ["max", "min", "counter", "union", "longest"])
        #expect(Set((app.tables ?? []).map { $0.policy ?? "column" }) == ["column", "row"])
    }

    @Test func longestIsAJoinOverTheWholeValueSpace() {
        let report = MergeLaws.check(Gen.anySQLiteValue(largeLengths: nil)) { Workload.longest.join($0, $1) }
        #expect(report.holds, "\(report)")
    }

    @Test func theOracleJoinsACustomMergeAsTheEngineDoes() throws {
        let clock = ManualClock(unixMilliseconds: 1_767_225_600_000)
        let replicas = try (1...2 as ClosedRange<UInt8>).map { id in
            let replica = try Replica.inMemory(
                configuration: .init(clock: clock, merges: Workload.mergeFunctions, makeNodeID: { node(id) }))
            try replica.database.execute("CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, v)")
            try replica.enableSync(on: "t", merges: ["v": .custom("longest")])
            return replica
        }
        try replicas[0].database.execute("INSERT INTO t VALUES ('k', 'abc')")
        try Replica.sync(replicas)
        clock.advance(by: 5)
        try replicas[1].database.execute("UPDATE t SET v = 'z' WHERE id = 'k'")
        try Replica.sync(replicas)
        #expect(try replicas[0].database.scalar("SELECT v FROM t") == "abc", "the longer value stays")
        var ledger = Ledger()
        let row = RowRef(table: "t", key: "k")
        let first = try #require(replicas[0].registers(of: "t", key: "k")?.liveness.stamp)
        ledger.record(node: node(1), stamp: first, row: row, kind: .insert, values: [0: "abc"], seen: [])
        let second = try #require(replicas[1].registers(of: "t", key: "k")?.columns[0]?.stamp)
        ledger.record(node: node(2), stamp: second, row: row, kind: .update, values: [0: "z"], seen: [0])
        let model = ReferenceModel(
            tables: replicas[0].tables.map(\.schema), foreignKeys: [], ledger: ledger,
            functions: Workload.functionsByName)
        #expect(model.registers[row] == (try replicas[0].registers(of: "t", key: "k")))
    }
}
