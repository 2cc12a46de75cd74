import ConcordTestSupport
import Foundation
import Testing

/// The simulation commands: `concord simulate` (with options or scenario files) and `concord replay`.
@Suite("concord simulate", .tags(.cli, .simulation), .timeLimit(.hangGuard))
struct SimulateCLITests {
    @Test func aSmallSweepConvergesAndReportsJSON() throws {
        let run = try concordOK("simulate", "--seeds", "1..3", "--steps", "60", "--json", in: TemporaryDirectory())
        let decoded = try JSONSerialization.jsonObject(with: run.output) as? [String: Any]
        let results = decoded?["results"] as? [[String: Any]]
        #expect(results?.count == 3)
        #expect(results?.allSatisfy { $0["converged"] as? Bool == true } == true)
    }

    /// Three machines running `--shard K/3` run each seed once between them, each exactly as a whole run would.
    @Test func shardsSplitTheSeedsAndRunThemAsAWholeRunWould() throws {
        let directory = TemporaryDirectory()
        func seedsAndHashes(_ extra: [String]) throws -> [String] {
            let run = try concordOK(["simulate", "--seeds", "1..5", "--steps", "30", "--json"] + extra, in: directory)
            let results =
                (try JSONSerialization.jsonObject(with: run.output) as? [String: Any])?["results"] as? [[String: Any]]
            return (results ?? []).map { "\($0["seed"] ?? "?") \($0["traceHash"] ?? "?")" }
        }
        let whole = try seedsAndHashes([])
        let shards = try (1...3).map { try seedsAndHashes(["--shard", "\($0)/3"]) }
        #expect(shards.map(\.count) == [2, 2, 1])
        #expect(shards.flatMap { $0 }.sorted() == whole.sorted())
        let refused = try concord(["simulate", "--shard", "4/3"], in: directory)
        #expect(refused.status == 64)
        #expect(refused.errors.contains("shard 4 does not exist: with 3 shards, pick one from 1 to 3"))
    }

    @Test func theSameSeedPrintsTheSameTrace() throws {
        let directory = TemporaryDirectory()
        let hashes = try (0..<2).map { _ in
            let run = try concordOK("simulate", "--seed", "9", "--steps", "80", "--json", in: directory)
            let results =
                (try JSONSerialization.jsonObject(with: run.output) as? [String: Any])?["results"] as? [[String: Any]]
            return results?.first?["traceHash"] as? String
        }
        #expect(hashes[0] != nil && hashes[0] == hashes[1])
    }
}

@Suite("concord replay", .tags(.cli, .simulation), .timeLimit(.hangGuard))
struct ReplayCLITests {
    static let regression = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(
            "Simulations/regressions/local-delete-kept-counter-value.json"
        ).path

    @Test func aReproducerReplaysItsPlanWithTheFullTrace() throws {
        let directory = TemporaryDirectory()
        let original = try String(contentsOfFile: Self.regression, encoding: .utf8)
        try original.write(toFile: directory.path("r.json"), atomically: true, encoding: .utf8)
        let run = try concordOK("replay", "r.json", "--shrink", in: directory)
        #expect(run.text.hasPrefix("step 0: +0 ms device 2 writes: INSERT INTO counters"))
        #expect(run.text.contains("device 2 wrote: DELETE FROM counters WHERE id = 'c3'"))
        #expect(
            run.text.hasSuffix(
                "counter-app seed 3 passes now (it failed with: safety failure at step 2: device 2: "
                    + "counters 'c3'.taps: counter holds -1 but its contributions add up to 0)\n"))
        // A passing plan has nothing to shrink: the file stays as it was.
        #expect(try String(contentsOfFile: directory.path("r.json"), encoding: .utf8) == original)
        let again = try concordOK("replay", "r.json", in: directory)
        #expect(again.text == run.text, "a replay is deterministic")
    }

    @Test func keepFilesWritesEachDevicesDatabaseToOpenAfterTheRun() throws {
        let directory = TemporaryDirectory()
        let run = try concordOK("replay", Self.regression, "--keep-files", "files", in: directory)
        #expect(run.text.contains("device databases written to files\n"))
        for device in 0..<3 {
            let path = directory.path("files/device-\(device).sqlite")
            let status = try concordOK("status", path, "--json", in: directory)
            #expect(status.text.contains("\"counters\""), "device \(device)'s file is a replica syncing counters")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path("files/device-3.sqlite")))
    }

    @Test func aFileThatIsNotAReproducerIsRefused() throws {
        let directory = TemporaryDirectory()
        try "{}".write(toFile: directory.path("bad.json"), atomically: true, encoding: .utf8)
        let run = try concord(["replay", "bad.json"], in: directory)
        #expect(run.status == 1 && run.errors.contains("'bad.json' is not a simulation reproducer"))
        #expect(run.errors.contains("is missing \"scenario\""))
    }
}

@Suite("concord simulate with scenario files", .tags(.cli, .simulation), .timeLimit(.hangGuard))
struct ScenarioCLITests {
    @Test func aScenarioFileRunsItsSeedsAndOptionsOverrideIt() throws {
        let directory = TemporaryDirectory()
        try #"{"name": "tiny", "devices": 2, "steps": 30, "seeds": "1..2", "workload": {"app": "counter"}}"#
            .write(toFile: directory.path("tiny.json"), atomically: true, encoding: .utf8)
        let run = try concordOK("simulate", "tiny.json", "--topology", "cloud", in: directory)
        #expect(run.text.hasPrefix("scenarios (runs passed)                         tiny 2/2\n"))
        #expect(run.text.contains("runs x steps                                    2 runs, 60 steps"))
        #expect(!run.text.contains("cloud uploads / fetches / pushes lost           0 / 0"))
    }

    @Test func aBadScenarioFileSaysWhatIsWrong() throws {
        let directory = TemporaryDirectory()
        try #"{"name": "x", "faults": {"crash": [9, 2]}}"#.write(
            toFile: directory.path("x.json"), atomically: true, encoding: .utf8)
        let run = try concord(["simulate", "x.json"], in: directory)
        #expect(run.status == 1)
        #expect(
            run.errors
                == "Error: scenario 'x.json': faults.crash is [9, 2]; give it as [low, high] with 0 <= low <= high\n")
    }
}
