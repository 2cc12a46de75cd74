import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// Rows already in a table when sync is enabled keep their counter and union values, or enabling says
/// which row holds a value the merge cannot take, and changes nothing.
///
/// The guard triggers refuse such values as the app writes them, but rows written before sync was
/// enabled never passed them: a counter's existing value had no contribution behind it, so the first
/// sync showed every counter as 0 on both devices, and a union's text that was not a JSON array of
/// strings and integers became `[]`, each with `check` content afterwards.
@Suite("Values already present when sync is enabled", .tags(.replica), .timeLimit(.hangGuard))
struct ExistingValuesAtEnableTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)
    static let schema =
        "CREATE TABLE posts (id TEXT PRIMARY KEY NOT NULL, likes INTEGER NOT NULL DEFAULT 0, tags TEXT);"

    private func replica(node: UInt8, rows: String = "") throws -> Replica {
        let replica = try Replica.inMemory(configuration: configuration(node: node, clock: clock))
        try replica.database.execute(Self.schema + rows)
        return replica
    }

    /// A counter's existing value is the enabling device's contribution: it survives the first sync, and
    /// increments on both devices add to it.
    @Test func aCounterKeepsTheValueItHeldAndCountsOnFromIt() throws {
        let a = try replica(node: 1, rows: "INSERT INTO posts (id, likes) VALUES ('p1', 42), ('p2', 7), ('p3', 0);")
        let b = try replica(node: 2)
        for device in [a, b] { try device.enableSync(on: "posts", merges: ["likes": .counter]) }
        #expect(try a.check().isConsistent)
        _ = try Replica.sync([a, b])
        try a.database.execute("UPDATE posts SET likes = likes + 1 WHERE id = 'p1'")
        try b.database.execute("UPDATE posts SET likes = likes + 2 WHERE id = 'p1'")
        _ = try Replica.sync([a, b])
        for device in [a, b] {
            #expect(
                try device.database.query("SELECT id, likes FROM posts ORDER BY id")
                    == [["p1", 45], ["p2", 7], ["p3", 0]])
            #expect(try device.check().isConsistent)
        }
    }

    /// A value a counter or union column cannot merge refuses enabling, naming the table, column, row and
    /// value: the table does not sync and its rows are as they were.
    @Test(arguments: [
        ("likes", "counter", "UPDATE posts SET likes = 1.5 WHERE id = 'p2'", "'p2' holds 1.5"),
        ("tags", "union", "UPDATE posts SET tags = 'work, home' WHERE id = 'p1'", "'p1' holds 'work, home'"),
        ("tags", "union", "UPDATE posts SET tags = '[\"a\", 2.5]' WHERE id = 'p2'", "'p2' holds '[\"a\", 2.5]'"),
    ])
    func anUnmergeableValueRefusesEnablingAndChangesNothing(column: String, merge: String, edit: String, says: String)
        throws
    {
        let folder = TemporaryDirectory()
        let path = folder.url.appendingPathComponent("posts.sqlite").path
        do {
            let database = try Database(path: path, mode: .readWriteCreate)
            try database.execute(Self.schema + "INSERT INTO posts (id, tags) VALUES ('p1', '[\"x\"]'), ('p2', NULL);")
            try database.execute(edit)
        }
        let error = #expect(throws: ReplicaError.self) {
            let replica = try Replica(path: path, configuration: configuration(node: 1, clock: clock))
            try replica.enableSync(on: "posts", merges: [column: ColumnMerge(name: merge)])
        }
        let message = error?.description ?? ""
        #expect(message.contains("column '\(column)' of table 'posts'") && message.contains(says), "\(message)")
        let replica = try Replica(path: path, configuration: configuration(node: 1, clock: clock))
        #expect(replica.tables.isEmpty)
        #expect(
            try replica.database.scalar(
                "SELECT count(*) FROM sqlite_schema WHERE name LIKE '\\_concord\\_1\\_%' ESCAPE '\\'") == 0)
        let rows = try replica.database.query("SELECT count(*) FROM posts")
        #expect(rows == [[2]])
    }
}
