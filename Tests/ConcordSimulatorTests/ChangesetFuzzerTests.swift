import Concord
import ConcordSimulator
import ConcordTestSupport
import ConcordTesting
import Testing

/// The fuzzer in-process: hostile inputs refused cleanly or merged consistently, the same counts from the same seed.
@Suite(.tags(.simulation, .fuzz), .timeLimit(.hangGuard))
struct ChangesetFuzzerTests {
    @Test func aFewHundredHostileInputsAreRefusedCleanlyOrMergedConsistently() throws {
        let directory = TemporaryDirectory()
        let fuzzer = try ChangesetFuzzer(seed: 1, directory: directory.path("fuzz"))
        let summary = try fuzzer.run(
            inputs: 0..<150,
            onFinding: { finding in
                Issue.record("\(finding)")
            })
        #expect(summary.inputs == 150)
        #expect(summary.accepted + summary.refused + summary.findings == 150)
        #expect(summary.refusals.values.reduce(0, +) == summary.refused)
        // Both ends of the promise are exercised, through every route and both forms.
        #expect(summary.accepted > 15 && summary.acceptedChanging > 10)
        #expect(summary.refused > 75)
        #expect(summary.refusals.keys.contains { $0.hasPrefix("changeset.") })
        #expect(summary.refusals.keys.contains { $0.hasPrefix("replica.") })
        #expect(Set(summary.routes.keys) == ["memory", "file", "stream"])
        #expect(Set(summary.formats.keys) == ["binary", "json"])
    }

    @Test func theSameSeedGivesTheSameInputsAndCounts() throws {
        let directory = TemporaryDirectory()
        let first = try ChangesetFuzzer(seed: 9, directory: directory.path("first"))
        let second = try ChangesetFuzzer(seed: 9, directory: directory.path("second"))
        #expect(first.baseBytes == second.baseBytes)
        #expect((0..<60).map { first.input(at: $0) } == (0..<60).map { second.input(at: $0) })
        #expect(try first.run(inputs: 0..<60) == second.run(inputs: 0..<60))
        let other = try ChangesetFuzzer(seed: 10, directory: directory.path("other"))
        #expect((0..<60).map { first.input(at: $0) } != (0..<60).map { other.input(at: $0) })
    }

    @Test func routesTakeTurns() {
        #expect(
            (0..<6).map { ChangesetFuzzer.route(for: .binary, index: $0) } == [
                .memory, .file, .stream, .memory, .file, .stream,
            ])
        #expect((0..<4).map { ChangesetFuzzer.route(for: .json, index: $0) } == [.memory, .file, .memory, .file])
    }

    @Test func refusalsAreCountedByErrorAndRule() {
        #expect(FuzzOutcome.reason(of: ChangesetError.truncated(offset: 3, field: "x")) == "changeset.truncated")
        #expect(
            FuzzOutcome.reason(of: ChangesetError.malformed(offset: 0, field: "x", reason: .varintTooLong))
                == "changeset.malformed.varintTooLong")
        #expect(
            FuzzOutcome.reason(of: ChangesetError.malformed(offset: 0, field: "x", reason: .unknownValueTag(9)))
                == "changeset.malformed.unknownValueTag")
        #expect(FuzzOutcome.reason(of: ReplicaError.tableNotSynced(table: "t")) == "replica.tableNotSynced")
        #expect(FuzzOutcome.reason(of: SQLiteError(code: 19, message: "constraint")) == "sqlite.19")
    }
}
