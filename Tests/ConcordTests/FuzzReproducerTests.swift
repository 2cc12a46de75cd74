import Concord
import ConcordTestSupport
import ConcordTesting
import Foundation
import Testing

/// Engine bugs `concord fuzz` found, replayed as known issues (see `Fixtures/Fuzz/README.md`).
///
/// Each reproducer goes through every route the fuzzer uses, in both forms, against the fuzzer's base
/// replica. While the bug is there the fuzzer's finding is a known issue; once the engine is fixed the
/// test reports that the known issue no longer occurs: then drop the `withKnownIssue` so the
/// reproducer guards against the bug coming back. (`causal-length-overflow` traps, which would end
/// the test process; replay it with `concord fuzz --replay`.)
@Suite struct FuzzReproducerTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/Fuzz")

    @Test(arguments: ["union-not-canonical", "duplicate-key-related-table", "absent-column-register", "child-of-parked-parent"])
    func reproducerIsRefusedCleanlyOrMergedConsistently(name: String) throws {
        let directory = TemporaryDirectory()
        let fuzzer = try ChangesetFuzzer(seed: 0, directory: directory.path("fuzz"))
        for format in ChangesetMutator.Format.allCases {
            let file = Self.fixtures.appendingPathComponent(name + (format == .json ? ".json" : ".bin"))
            let mutant = ChangesetMutator.Mutant(bytes: Array(try Data(contentsOf: file)), format: format, kinds: [], seed: -1)
            for route in ChangesetFuzzer.Route.allCases where format == .binary || route != .stream {
                withKnownIssue("engine bug \(name), see Fixtures/Fuzz/README.md") {
                    _ = try fuzzer.run(ChangesetFuzzer.Input(index: nil, mutant: mutant, route: route))
                }
            }
        }
    }

    /// `Fixtures/Fuzz/counter-update-then-delete.sh` through the library.
    @Test func aCounterIncrementAndADeleteFoldedTogetherLeaveTheCounterConsistent() throws {
        let replica = try Replica.inMemory(configuration: configuration(node: 1, clock: ManualClock(unixMilliseconds: epoch2026)))
        try replica.database.execute("CREATE TABLE c (id TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL DEFAULT 0)")
        try replica.enableSync(on: "c", merges: ["n": .counter])
        try replica.database.execute("INSERT INTO c (id, n) VALUES ('a', 1)")
        #expect(try replica.check().isConsistent)
        try replica.database.execute("UPDATE c SET n = n + 1 WHERE id = 'a'; DELETE FROM c WHERE id = 'a'")
        let report = try replica.check()
        withKnownIssue("engine bug counter-update-then-delete, see Fixtures/Fuzz/README.md") {
            #expect(report.isConsistent, "\(report)")
        }
    }
}
