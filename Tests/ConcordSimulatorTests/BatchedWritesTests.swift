@_spi(Simulation) import Concord
import ConcordTestSupport
import ConcordTesting
import Testing

@testable import ConcordSimulator

/// Apps that run several statements before one fold: plans draw them only when a scenario asks, and the
/// fold's report of what it stamped is split by statement and checked against the registers.
@Suite(.tags(.simulation))
struct BatchedWritesTests {
    static var batched: Scenario {
        var scenario = Scenario(name: "batched", steps: 60)
        scenario.mix.batch = [2, 2]
        scenario.faults.midOperation = [0, 0]
        return scenario
    }

    @Test func aScenarioWithBatchesDrawsThemAndOthersDrawNone() {
        for seed in 1...5 as ClosedRange<UInt64> {
            let plain = Simulation(scenario: Scenario(name: "x", steps: 60), seed: seed).plan().plan.steps
            #expect(!plain.contains { if case .batch = $0.action { true } else { false } })
            let batched = Simulation(scenario: Self.batched, seed: seed).plan().plan.steps
            #expect(!batched.contains { if case .write = $0.action { true } else { false } })
            #expect(batched.allSatisfy { if case .batch(let sql) = $0.action { sql.count == 2 } else { true } })
        }
    }

    @Test func aBatchedRunPassesAndRunsEveryStatementOfEachBatch() throws {
        let simulation = Simulation(scenario: Self.batched, seed: 3)
        let batches = simulation.plan().plan.steps.filter { if case .batch = $0.action { true } else { false } }
        let result = try simulation.run()
        #expect(result.passed, "\(result.failure?.description ?? "did not converge")")
        #expect(batches.count > 5)
        #expect(result.writes + result.rejectedWrites == 2 * batches.count)
    }

    /// A power failure inside a batch keeps the statements before it (each committed) and settles the one
    /// it cut from the tables after the relaunch; one cutting the fold keeps what its landed part stamped.
    /// Without either, the ledger misses writes the device stamped, and runs fail.
    @Test func powerFailuresInsideBatchesLoseNoStatementThatCommitted() throws {
        var scenario = Self.batched
        scenario.mix.batch = [2, 5]
        scenario.faults.crash = [15, 15]
        scenario.faults.powerLoss = [100, 100]
        scenario.faults.midOperation = [100, 100]
        var reached = 0
        for seed in 1...6 as ClosedRange<UInt64> {
            let result = try Simulation(scenario: scenario, seed: seed).run()
            #expect(result.passed, "seed \(seed): \(result.failure?.description ?? "did not converge")")
            reached += result.coverage[.crashMidBatch]
        }
        #expect(reached > 0)
    }

    /// Three statements, one fold: each statement gets the rows its own log positions hold.
    @Test func theFoldsReportIsSplitByStatementAndCheckedAgainstTheRegisters() throws {
        let replica = try Replica.inMemory(
            configuration: configuration(node: 1, clock: ManualClock(unixMilliseconds: epoch2026)))
        try replica.database.execute("CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, v TEXT)")
        try replica.enableSync(on: "t")
        var written = WrittenStatements(device: 0, statements: [], logEnds: [try replica.captureLogEnd()])
        for sql in [
            "INSERT INTO t VALUES ('a', '1')", "INSERT INTO t VALUES ('b', '1')", "UPDATE t SET v = '2' WHERE id = 'a'",
        ] {
            let before = try TableSnapshot(of: replica)
            try replica.database.execute(sql)
            written.statements.append(Statement(sql: sql, before: before, after: try TableSnapshot(of: replica)))
            written.logEnds.append(try replica.captureLogEnd())
        }
        var folded: [FoldedWrite] = []
        replica.foldObserver = { folded.append($0) }
        var (newest, version): (Stamp?, Int64) = (nil, 0)
        let stamped = try OwnWrite.collect(from: replica, node: replica.nodeID, newest: &newest, version: &version)
        let parts = try written.split(folded, stamped: stamped)
        #expect(parts.map { $0.map(\.row.key) } == [["a"], ["b"], ["a"]])
        #expect(parts[0][0].stamp < parts[1][0].stamp && parts[1][0].stamp < parts[2][0].stamp)

        var short = written
        short.logEnds.removeLast()
        short.statements.removeLast()
        #expect(throws: WrittenStatements.Disagreement.self) { try short.split(folded, stamped: stamped) }
        let other = stamped.map { OwnWrite(row: $0.row, stamp: parts[0][0].stamp) }
        #expect(throws: WrittenStatements.Disagreement.self) { try written.split(folded, stamped: other) }
    }
}
