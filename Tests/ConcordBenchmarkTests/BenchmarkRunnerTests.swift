import ConcordTestSupport
import Foundation
import Testing

@testable import ConcordBenchmark

@Suite("Benchmark runner", .tags(.benchmark), .timeLimit(.hangGuard))
struct BenchmarkRunnerTests {
    @Test func aSmallRunReportsEveryPhaseInOrder() throws {
        var steps: [String] = []
        let scaling = try BenchmarkRunner(sizes: [200], runs: 1, largeRuns: 1, seed: 1).run { steps.append($0) }
        let report = try #require(scaling.reports.first)
        #expect(scaling.reports.count == 1 && report.rows == 200 && report.runs == 1)
        #expect(report.phases.map(\.kind) == BenchmarkPhaseKind.allCases)
        for phase in report.phases {
            #expect(phase.plain > 0 && phase.concord > 0, "\(phase.name) measured nothing")
        }
        #expect(report.phase(.pointReads)?.operations == BenchmarkTrial.readPasses * 200)
        #expect(report.recentExport.changes > 0 && report.recentExport.changes <= 100)
        #expect(report.importProbe == nil, "no executable, no probe")
        #expect(steps.first == "200 rows: generating")
        #expect(steps.contains("200 rows, run 1/1: apply"))
        #expect(steps.contains("200 rows, run 1/1: apply conflicts"), "the conflict-heavy phase runs")
    }

    @Test func theImportProbeRunsTheExecutableItIsGiven() throws {
        var runner = BenchmarkRunner(sizes: [300], runs: 1, largeRuns: 1, seed: 2)
        runner.importProbeExecutable = concordExecutable.path
        let probe = try #require(try runner.run().reports.first?.importProbe)
        #expect(probe.changes == 300)
        #expect(probe.childReport == "applied 300, ignored 0")
        #expect(probe.peakBytes > 0 && probe.withinLimit)
    }

    @Test func aMissingExecutableIsAnError() throws {
        var runner = BenchmarkRunner(sizes: [50], runs: 1, largeRuns: 1, seed: 1)
        runner.importProbeExecutable = "/nonexistent/concord"
        #expect(throws: (any Error).self) { try runner.run() }
    }

    @Test func largeSizesRunLargeRunsTimes() {
        let runner = BenchmarkRunner(sizes: [10, 2_000_000], runs: 3, largeRuns: 1, seed: 1)
        #expect(runner.runs(at: 10) == 3)
        #expect(runner.runs(at: BenchmarkScaling.largeSize) == 1)
    }

    @Test func theWorkloadIsTheSameForTheSameSeed() throws {
        let a = BenchmarkWorkload(count: 20, seed: 7)
        let b = BenchmarkWorkload(count: 20, seed: 7)
        #expect(a.rows == b.rows)
        #expect(a.rows != BenchmarkWorkload(count: 20, seed: 8).rows)
        let key = try #require(a.rows[0][0].textValue)
        #expect(key.count == 36 && key.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12])
    }

    @Test func medians() {
        #expect(Stopwatch.median([3, 1, 2]) == 2)
        #expect(Stopwatch.median([4, 1, 3, 2]) == 2.5)
        #expect(Stopwatch.median([]) == 0)
    }

    @Test func phasesEncodeTheirRatioAndCosts() throws {
        let phase = BenchmarkPhase(kind: .insert, plain: 0.5, concord: 1.0, operations: 1_000)
        #expect(phase.ratio == 2 && phase.withinTarget)
        #expect(phase.perOperation.concord == 1_000)
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(phase)) as? [String: Any]
        #expect(json?["name"] as? String == "insert" && json?["unit"] as? String == "seconds")
        #expect(json?["target"] as? Double == 2)
    }
}
