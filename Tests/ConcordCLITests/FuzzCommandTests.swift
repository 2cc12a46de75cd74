import ConcordTestSupport
import Foundation
import Testing

/// `concord fuzz`: counts as JSON, and a supervisor that catches a worker that traps or hangs.
@Suite("concord fuzz", .tags(.cli, .fuzz, .slow), .timeLimit(.hangGuard))
struct FuzzCommandTests {
    private func json(_ run: ToolRun) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: run.output) as? [String: Any], "\(run.text)")
    }

    @Test func twoHundredInputsPrintTheirCountsAsJSON() throws {
        let directory = TemporaryDirectory()
        let run = try concordOK("fuzz", "--inputs", "200", "--seed", "1", "--json", in: directory)
        let counts = try json(run)
        #expect(counts["inputs"] as? Int == 200)
        #expect(counts["seed"] as? Int == 1)
        #expect(counts["complete"] as? Bool == true)
        #expect(counts["findings"] as? Int == 0)
        #expect((counts["failures"] as? [Any])?.isEmpty == true)
        let accepted = try #require(counts["accepted"] as? Int)
        let refused = try #require(counts["refused"] as? Int)
        #expect(accepted > 0 && refused > 0 && accepted + refused == 200)
        let refusals = try #require(counts["refusals"] as? [String: Int])
        #expect(refusals.values.reduce(0, +) == refused)
        #expect((counts["inputsPerSecond"] as? Double ?? 0) > 0)
        // The counts depend on the seed and the inputs only, not on how many workers ran them.
        let alone = try json(
            try concordOK("fuzz", "--inputs", "200", "--seed", "1", "--json", "--jobs", "1", in: directory))
        for key in ["accepted", "acceptedChanging", "refused", "findings"] {
            #expect(alone[key] as? Int == counts[key] as? Int, "\(key)")
        }
        #expect(alone["refusals"] as? [String: Int] == refusals)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty, "no reproducer on success")
    }

    @Test func aWorkerThatTrapsIsCaughtAndItsInputSaved() throws {
        let directory = TemporaryDirectory()
        let run = try concord(
            ["fuzz", "--inputs", "30", "--seed", "1", "--jobs", "1"],
            environment: ["CONCORD_TEST_FUZZ_TRAP_AT_INPUT": "12"], in: directory)
        #expect(run.status == 1, "\(run.errors)")
        #expect(run.errors.contains("killed by signal"), "\(run.errors)")
        #expect(run.errors.contains("while running input 12"))
        #expect(run.errors.contains("trapping on purpose"), "the worker's own message is shown")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
        let reproducer = try #require(files.first { $0.hasPrefix("concord-fuzz-1-12.") && !$0.hasSuffix(".sqlite") })
        #expect(files.contains("concord-fuzz-1-12.sqlite"))
        #expect(run.errors.contains("concord import scratch.db \(reproducer)"))
        #expect(run.errors.contains("concord fuzz --replay \(reproducer)"))
        // The saved input is input 12 itself, which (the trap being staged) passes when replayed.
        let replay = try concordOK("fuzz", "--replay", reproducer, in: directory)
        #expect(replay.text.contains("memory: "), "\(replay.text)")
        #expect(!replay.text.contains("FINDING"))
    }

    @Test func keepGoingRestartsAWorkerAfterATrapAndCountsEveryInput() throws {
        let directory = TemporaryDirectory()
        let run = try concord(
            ["fuzz", "--inputs", "30", "--seed", "1", "--jobs", "1", "--keep-going", "--json"],
            environment: ["CONCORD_TEST_FUZZ_TRAP_AT_INPUT": "12"], in: directory)
        #expect(run.status == 1, "\(run.errors)")
        let counts = try json(run)
        #expect(counts["inputs"] as? Int == 30)
        #expect(counts["complete"] as? Bool == true)
        let failures = try #require(counts["failures"] as? [[String: Any]])
        #expect(failures.map { $0["kind"] as? String } == ["trap"])
        #expect(failures.first?["index"] as? Int == 12)
    }

    @Test func aWorkerThatHangsIsStopped() throws {
        let directory = TemporaryDirectory()
        let run = try concord(
            ["fuzz", "--inputs", "10", "--seed", "1", "--jobs", "1", "--timeout", "1"],
            environment: ["CONCORD_TEST_FUZZ_HANG_AT_INPUT": "4"], in: directory)
        #expect(run.status == 1, "\(run.errors)")
        #expect(run.errors.contains("input 4 ran for more than 1.0 s"), "\(run.errors)")
        #expect(FileManager.default.fileExists(atPath: directory.path("concord-fuzz-1-4.sqlite")))
    }

    @Test(arguments: [["--inputs", "-1"], ["--timeout", "0"], ["--jobs", "0"], ["--seed", "x"]])
    func badOptionsAreUsageErrors(arguments: [String]) throws {
        let run = try concord(["fuzz"] + arguments, in: TemporaryDirectory())
        #expect(run.status == 64, "\(arguments): \(run.errors)")
        #expect(run.errors.contains("Usage: concord fuzz"), "\(run.errors)")
    }
}
