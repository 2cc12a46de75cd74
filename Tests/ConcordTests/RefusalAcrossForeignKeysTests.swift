import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// A refused table stops the synced tables foreign keys tie to it as well: no row shows without the rows its
/// keys name, and undoing the change resumes both with every write made meanwhile.
@Suite("Refusals across foreign keys", .tags(.replica), .timeLimit(.hangGuard))
struct RefusalAcrossForeignKeysTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)
    static let schema = """
        CREATE TABLE boards (id TEXT PRIMARY KEY NOT NULL, name TEXT);
        CREATE TABLE cards (id TEXT PRIMARY KEY NOT NULL,
            board_id TEXT REFERENCES boards(id) ON DELETE CASCADE, title TEXT);
        CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, body TEXT);
        """

    /// Two replicas enforcing foreign keys, both holding board `b1` and its card `c1`.
    private func pair() throws -> (Replica, Replica) {
        let a = try Replica.inMemory(configuration: configuration(node: 1, clock: clock))
        let b = try Replica.inMemory(configuration: configuration(node: 2, clock: clock))
        for replica in [a, b] {
            try replica.database.execute(Self.schema)
            try replica.database.execute("PRAGMA foreign_keys = ON")
            for table in ["boards", "cards", "notes"] { try replica.enableSync(on: table) }
        }
        try a.database.execute("INSERT INTO boards VALUES ('b1', 'home')")
        try a.database.execute("INSERT INTO cards VALUES ('c1', 'b1', 'milk')")
        try Replica.sync([a, b])
        return (a, b)
    }

    private func rows(_ replica: Replica, _ table: String) throws -> [[SQLiteValue]] {
        try replica.database.query("SELECT * FROM \(table) ORDER BY id")
    }

    /// A child table refused (a UNIQUE index Concord cannot merge) holds back a peer's delete of the parent:
    /// merged alone, it left the card in its table naming a board that was gone, which `check` reported.
    @Test func aRefusedChildHoldsBackTheDeleteOfItsParent() throws {
        let (a, b) = try pair()
        try a.database.execute("CREATE UNIQUE INDEX cards_title ON cards (title)")
        try b.database.execute("DELETE FROM boards WHERE id = 'b1'")
        try b.database.execute("INSERT INTO notes VALUES ('n1', 'unrelated')")
        try Replica.sync([a, b])

        #expect(a.schemaRefusals.count == 2)
        #expect(a.schemaRefusals.first == .tiedToRefusedTable(table: "boards", refused: "cards"))
        #expect(try a.check().problems == [])
        #expect(try rows(a, "boards") == [["b1", "home"]])
        #expect(try rows(a, "cards") == [["c1", "b1", "milk"]])
        #expect(try rows(a, "notes") == [["n1", "unrelated"]], "a table no key ties to keeps syncing")

        try a.database.execute("DROP INDEX cards_title")
        try Replica.sync([a, b])
        #expect(a.schemaRefusals.isEmpty)
        #expect(try rows(a, "boards") == [] && rows(a, "cards") == [])
        #expect(try a.check().problems == [])
    }

    /// A parent table refused holds back a peer's new children and moves, and the writes made on both sides
    /// while it waited sync once the change is undone.
    @Test func aRefusedParentHoldsBackItsChildren() throws {
        let (a, b) = try pair()
        try a.database.execute("CREATE UNIQUE INDEX boards_name ON boards (name)")
        try b.database.execute("INSERT INTO boards VALUES ('b2', 'work')")
        try b.database.execute("INSERT INTO cards VALUES ('c2', 'b2', 'call')")
        try b.database.execute("UPDATE cards SET board_id = 'b2' WHERE id = 'c1'")
        try a.database.execute("UPDATE cards SET title = 'oat milk' WHERE id = 'c1'")
        try Replica.sync([a, b])

        #expect(a.schemaRefusals.map(\.description).contains { $0.contains("table 'cards' is tied by foreign keys") })
        #expect(try a.check().problems == [])
        #expect(try rows(a, "cards") == [["c1", "b1", "oat milk"]])
        #expect(
            try rows(b, "cards") == [["c1", "b2", "milk"], ["c2", "b2", "call"]],
            "a's edit waits while its tables are refused")

        try a.database.execute("DROP INDEX boards_name")
        try Replica.sync([a, b])
        #expect(a.schemaRefusals.isEmpty)
        for replica in [a, b] {
            #expect(try rows(replica, "boards") == [["b1", "home"], ["b2", "work"]])
            #expect(try rows(replica, "cards") == [["c1", "b2", "oat milk"], ["c2", "b2", "call"]])
            #expect(try replica.check().problems == [])
        }
    }
}
