import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// An app inserting again a counter row it does not see — alive here, hidden behind a parent another
/// device deleted — changes the count from nothing, as it saw nothing there: the taps the row's life
/// holds stay.
///
/// The fold took the inserted value for the whole count, as it does for an `INSERT OR REPLACE` of a row
/// the app holds, and dropped a tap (refused-parent seed 49: the card showed 0 on every device where the
/// reference model, counting from what the app saw, says 1).
@Suite("Counter rows inserted again while hidden", .tags(.replica), .timeLimit(.hangGuard))
struct CounterReinsertedHiddenRowTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    @Test func aCardInsertedAgainUnderAnotherBoardKeepsItsTaps() throws {
        let devices = try inMemoryReplicas(2, clock: clock) { device, _ in
            try device.database.execute(
                """
                PRAGMA foreign_keys = ON;
                CREATE TABLE boards (id TEXT PRIMARY KEY NOT NULL, name TEXT);
                CREATE TABLE cards (id TEXT PRIMARY KEY NOT NULL,
                    board_id TEXT REFERENCES boards(id) ON DELETE CASCADE, n INTEGER NOT NULL DEFAULT 0);
                """)
            try device.enableSync(on: "boards")
            try device.enableSync(on: "cards", merges: ["n": .counter])
        }
        let (phone, laptop) = (devices[0], devices[1])
        try phone.database.execute("INSERT INTO boards VALUES ('b1', 'home'), ('b2', 'work')")
        try Replica.sync(devices)
        try phone.database.execute("INSERT INTO cards (id, board_id) VALUES ('c1', 'b1')")
        try phone.database.execute("UPDATE cards SET n = n + 1 WHERE id = 'c1'")
        // The laptop deletes the board before it hears of the card: the card is hidden with its board.
        try laptop.database.execute("DELETE FROM boards WHERE id = 'b1'")
        try Replica.sync(devices)
        try #require(try phone.database.query("SELECT count(*) FROM cards") == [[0]])

        try phone.database.execute("INSERT OR IGNORE INTO cards (id, board_id) VALUES ('c1', 'b2')")
        try Replica.sync(devices)
        for device in devices {
            #expect(try device.database.query("SELECT id, board_id, n FROM cards") == [["c1", "b2", 1]])
            #expect(try device.check().problems == [])
        }
    }
}
