import ConcordTestSupport
import Testing

@testable import Concord

/// Foreign-key chains thousands of rows deep — replies to replies, a document kept as linked lines — written
/// child first, synced, and deleted from the top, on a background thread's stack.
///
/// Before, deciding where a row belongs and cascading a delete took a stack frame per row of the chain: a
/// fold of 30,000 such rows ended the process (every fold after it too), and far fewer did on the smaller
/// stacks apps sync on. A parked chain took minutes, each row walking to the top looking for a cycle, and a
/// deleted chain seconds, each row scanning every hidden copy for its children.
@Suite(.tags(.replica), .timeLimit(.hangGuard))
struct DeepChainTests {
    private static let depth = 5_000

    private static func replicas() throws -> [Replica] {
        try inMemoryReplicas(2, clock: ManualClock(unixMilliseconds: epoch2026)) { replica, _ in
            try replica.database.execute(
                "CREATE TABLE lines (id TEXT PRIMARY KEY NOT NULL, "
                    + "previous TEXT REFERENCES lines(id) ON DELETE CASCADE, body TEXT)")
            try replica.enableSync(on: "lines")
        }
    }

    /// The chain, the deepest line first, without its first line: every line parked.
    private static func writeChildFirst(_ replica: Replica) throws {
        try replica.database.transaction {
            for index in stride(from: depth, through: 1, by: -1) {
                try replica.database.execute(
                    "INSERT INTO lines VALUES (?, ?, 'x')", [.text("l\(index)"), .text("l\(index - 1)")])
            }
        }
    }

    private static func count(_ replica: Replica) throws -> SQLiteValue? {
        try replica.database.scalar("SELECT count(*) FROM lines")
    }

    @Test func aChainWrittenChildFirstFoldsSyncsAndCascadesOnASmallStack() throws {
        let counts = try onSmallStack(bytes: 256 * 1024) {
            let replicas = try Self.replicas()
            try Self.writeChildFirst(replicas[0])
            try Replica.sync(replicas)
            var counts = [try Self.count(replicas[0]), try Self.count(replicas[1])]
            try replicas[0].database.execute("INSERT INTO lines VALUES ('l0', NULL, 'top')")
            try Replica.sync(replicas)
            counts += [try Self.count(replicas[0]), try Self.count(replicas[1])]
            // The app keeps foreign keys off: Concord cascades the delete down the chain.
            try replicas[1].database.execute("DELETE FROM lines WHERE id = 'l0'")
            try Replica.sync(replicas)
            counts += [try Self.count(replicas[0]), try Self.count(replicas[1])]
            for replica in replicas { try #require(try replica.check().isConsistent) }
            return counts
        }
        let all = SQLiteValue.integer(Int64(Self.depth + 1))
        #expect(counts == [0, 0, all, all, 0, 0])
    }
}
