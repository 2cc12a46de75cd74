import ConcordTestSupport
import Foundation
import Testing

/// `concord simulate`'s coverage table, scenarios' `mustReach`, and time-boxed runs (`--duration`).
@Suite("concord simulate coverage and --duration", .tags(.cli, .simulation), .timeLimit(.hangGuard))
struct SimulationCoverageCLITests {
    @Test func theCoverageTableFollowsTheSummaryAndJSONCarriesIt() throws {
        let directory = TemporaryDirectory()
        let run = try concordOK("simulate", "--seeds", "1..2", "--steps", "30", in: directory)
        #expect(run.text.contains("\nevent                                             runs  occurrences\ncascade "))
        #expect(run.text.hasSuffix("hostile-accepted                                     0            0\n"))
        let json = try concordOK("simulate", "--seeds", "1..2", "--steps", "30", "--json", in: directory)
        let decoded = try JSONSerialization.jsonObject(with: json.output) as? [String: Any]
        let coverage = decoded?["coverage"] as? [[String: Any]]
        // One entry per row of the table, every event there is.
        let rows = run.text.components(separatedBy: "runs  occurrences\n").last?.split(separator: "\n").count
        #expect(coverage?.count == rows && (rows ?? 0) >= 24)
        #expect(coverage?.first?["event"] as? String == "cascade")
    }

    @Test func aScenarioWhoseRunsNeverReachAListedEventFails() throws {
        let directory = TemporaryDirectory()
        try #"{"name": "tiny", "devices": 2, "steps": 20, "seeds": "1..2", "mustReach": ["hostile-accepted"]}"#
            .write(toFile: directory.path("tiny.json"), atomically: true, encoding: .utf8)
        let run = try concord(["simulate", "tiny.json"], in: directory)
        #expect(run.status == 1)
        #expect(run.errors.hasPrefix("Error: tiny: no run of 2 reached hostile-accepted (listed in mustReach)"))
        let one = try concord(["simulate", "tiny.json", "--seed", "1"], in: directory)
        #expect(one.status == 0, "one seed is not a coverage question: \(one.errors)")
        try #"{"name": "bad", "mustReach": ["torn-writes"]}"#
            .write(toFile: directory.path("bad.json"), atomically: true, encoding: .utf8)
        let bad = try concord(["simulate", "bad.json"], in: directory)
        #expect(bad.status == 1)
        #expect(bad.errors.contains("unknown coverage event 'torn-writes'; the events are cascade, "))
    }

    @Test func aDurationRunsSeedsUntilTheTimeIsUpAndSaysHowFast() throws {
        let directory = TemporaryDirectory()
        let run = try concordOK(
            "simulate", "--duration", "1s", "--jobs", "1", "--seeds", "7..7", "--steps", "10", in: directory)
        #expect(run.text.contains("seeds run                                       7.."))
        #expect(run.text.contains("seeds per second"))
        #expect(run.text.contains("device operations per second"))
        #expect(run.text.contains("\nevent "))
    }

    @Test(arguments: [["--duration", "90"], ["--duration", "0m"], ["--duration", "1m", "--shard", "1/2"]])
    func badDurationsAreUsageErrors(arguments: [String]) throws {
        let run = try concord(["simulate"] + arguments, in: TemporaryDirectory())
        #expect(run.status == 64)
        #expect(run.errors.hasPrefix("Error: "))
        #expect(run.errors.contains("Usage: concord simulate"))
    }
}
