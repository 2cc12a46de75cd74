import ConcordTestSupport
import ConcordTesting
import Testing

@testable import Concord

/// A user-defined merge: the longer text wins, ties by SQLite's order.
private let longest = MergeFunction(name: "longest") { a, b in
    let (x, y) = (a.textValue?.utf8.count ?? -1, b.textValue?.utf8.count ?? -1)
    if x != y { return x > y ? a : b }
    return a < b ? b : a
}

@Suite("User-defined merges", .tags(.replica), .timeLimit(.hangGuard))
struct CustomMergeTests {
    private func replica(
        _ directory: TemporaryDirectory, _ name: String, node id: UInt8, clock: ManualClock,
        merges: [MergeFunction] = [longest]
    ) throws -> Replica {
        let replica = try Replica(
            path: directory.path(name),
            configuration: .init(
                clock: clock, merges: merges, makeNodeID: { node(id) }))
        try replica.database.execute("CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, title TEXT)")
        try replica.enableSync(on: "notes", merges: ["title": .custom("longest")])
        return replica
    }

    @Test func theLawCheckerAcceptsTheMerge() {
        let report = MergeLaws.check(Gen.sqliteText) { longest.join($0, $1) }
        #expect(report.holds, "\(report)")
    }

    @Test func concurrentWritesJoinAndLocalWritesJoinTheirRegister() throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let a = try replica(directory, "a.db", node: 1, clock: clock)
        let b = try replica(directory, "b.db", node: 2, clock: clock)
        try a.database.execute("INSERT INTO notes VALUES ('n1', 'short')")
        try Replica.sync([a, b])
        try a.database.execute("UPDATE notes SET title = 'a much longer title' WHERE id = 'n1'")
        clock.advance(by: 10)
        try b.database.execute("UPDATE notes SET title = 'mid length' WHERE id = 'n1'")
        try Replica.sync([a, b])
        for replica in [a, b] {
            #expect(try replica.database.scalar("SELECT title FROM notes") == "a much longer title")
            #expect(try replica.check().isConsistent)
        }
        // A shorter local write is joined with what the register holds when Concord folds it.
        try b.database.execute("UPDATE notes SET title = 'x' WHERE id = 'n1'")
        try b.foldLocalWrites()
        #expect(try b.database.scalar("SELECT title FROM notes") == "a much longer title")
    }

    @Test func aReplicaWithoutTheMergeRegisteredRefusesToGuess() throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let a = try replica(directory, "a.db", node: 1, clock: clock)
        try a.database.execute("INSERT INTO notes VALUES ('n1', 'short')")
        let bare = try Replica(path: directory.path("a.db"), configuration: .init(clock: clock))
        #expect(throws: ReplicaError.unregisteredMerge(table: "notes", column: "title", name: "longest")) {
            try bare.foldLocalWrites()
        }
        let other = try Replica.inMemory(configuration: .init(clock: clock))
        try other.database.execute("CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, title TEXT)")
        #expect(throws: ReplicaError.unregisteredMerge(table: "notes", column: "title", name: "longest")) {
            try other.enableSync(on: "notes", merges: ["title": .custom("longest")])
        }
    }

    /// A replica opened without the merge its waiting write needs cannot send its changes: the sync says so
    /// of that replica, where it once said the other, which has the merge, refused them.
    @Test func aSyncNamesTheReplicaThatCannotFoldForWantOfAMerge() throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock(unixMilliseconds: epoch2026)
        _ = try replica(directory, "a.db", node: 1, clock: clock)
        let b = try replica(directory, "b.db", node: 2, clock: clock)
        let bare = try Replica(path: directory.path("a.db"), configuration: .init(clock: clock))
        try bare.database.execute("INSERT INTO notes VALUES ('n1', 'short')")
        let incomplete = #expect(throws: SyncIncomplete.self) { try Replica.sync([bare, b]) }
        let refusal = try #require(incomplete?.report.refusals.first)
        #expect(refusal.source == 0 && refusal.atSource)
        #expect("\(refusal)".hasPrefix("replica 0 could not send its changes (to replica 1): "), "\(refusal)")
    }
}
