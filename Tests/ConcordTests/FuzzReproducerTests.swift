import Concord
import ConcordSimulator
import ConcordTestSupport
import ConcordTesting
import Foundation
import Testing

/// Engine bugs `concord fuzz` found, replayed so they stay fixed (see `Fixtures/Fuzz/README.md`).
///
/// Each reproducer goes through every route the fuzzer uses, in both forms, against the fuzzer's base
/// replica, and must be refused with the file untouched or merged into a consistent replica.
@Suite("Fuzz reproducers", .tags(.replica, .fuzz), .timeLimit(.hangGuard))
struct FuzzReproducerTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures/Fuzz")

    @Test(arguments: [
        "union-not-canonical", "duplicate-key-related-table", "absent-column-register", "child-of-parked-parent",
        "causal-length-overflow",
    ])
    func reproducerIsRefusedCleanlyOrMergedConsistently(name: String) throws {
        let directory = TemporaryDirectory()
        let fuzzer = try ChangesetFuzzer(seed: 0, directory: directory.path("fuzz"))
        for format in ChangesetMutator.Format.allCases {
            let file = Self.fixtures.appendingPathComponent(name + (format == .json ? ".json" : ".bin"))
            let mutant = ChangesetMutator.Mutant(
                bytes: Array(try Data(contentsOf: file)), format: format, kinds: [], seed: -1)
            for route in ChangesetFuzzer.Route.allCases where format == .binary || route != .stream {
                _ = try fuzzer.run(ChangesetFuzzer.Input(index: nil, mutant: mutant, route: route))
            }
        }
    }

    /// `Fixtures/Fuzz/counter-update-then-delete.sh` through the library.
    @Test func aCounterIncrementAndADeleteFoldedTogetherLeaveTheCounterConsistent() throws {
        let replica = try Replica.inMemory(
            configuration: configuration(node: 1, clock: ManualClock(unixMilliseconds: epoch2026)))
        try replica.database.execute("CREATE TABLE c (id TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL DEFAULT 0)")
        try replica.enableSync(on: "c", merges: ["n": .counter])
        try replica.database.execute("INSERT INTO c (id, n) VALUES ('a', 1)")
        #expect(try replica.check().isConsistent)
        try replica.database.execute("UPDATE c SET n = n + 1 WHERE id = 'a'; DELETE FROM c WHERE id = 'a'")
        let report = try replica.check()
        #expect(report.isConsistent, "\(report)")
    }
}
