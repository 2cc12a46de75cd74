import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// An apply says which shown rows it inserted, updated, deleted, hid, showed again or parked.
@Suite("What an apply changed", .tags(.replica), .timeLimit(.hangGuard))
struct MergeReportTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    static let schema = """
        CREATE TABLE lists (id TEXT PRIMARY KEY NOT NULL, name TEXT);
        CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, list TEXT REFERENCES lists(id) ON DELETE CASCADE, what TEXT);
        """

    /// Two in-memory replicas syncing `lists` and `items` (``schema``), on this suite's clock.
    func pair() throws -> (Replica, Replica) {
        let replicas = try [1, 2].map { node in
            let replica = try Replica.inMemory(configuration: configuration(node: UInt8(node), clock: clock))
            try replica.database.execute(Self.schema)
            try replica.enableSync(on: "lists")
            try replica.enableSync(on: "items")
            return replica
        }
        return (replicas[0], replicas[1])
    }

    private func pass(_ from: Replica, _ to: Replica) throws -> MergeReport {
        clock.advance(by: 1)
        return try to.apply(from.changes(since: to.peerVersion(from.nodeID))).changes
    }

    @Test func insertsUpdatesAndDeletesAreListedByTableAndKey() throws {
        let (a, b) = try pair()
        try a.database.execute("INSERT INTO lists VALUES ('l2', 'work'), ('l1', 'home')")
        var changes = try pass(a, b)
        #expect(changes["lists"]?.keys(.inserted) == ["l1", "l2"])
        #expect(changes.summary == "2 inserted in lists")
        try a.database.execute("UPDATE lists SET name = 'house' WHERE id = 'l1'; DELETE FROM lists WHERE id = 'l2'")
        changes = try pass(a, b)
        #expect(changes["lists"]?.keys(.updated) == ["l1"])
        #expect(changes["lists"]?.keys(.deleted) == ["l2"])
        #expect(try pass(a, b).isEmpty, "nothing new, nothing listed")
        // A re-insert after a delete shows the row again as inserted.
        try a.database.execute("INSERT INTO lists VALUES ('l2', 'again')")
        #expect(try pass(a, b)["lists"]?.keys(.inserted) == ["l2"])
    }

    @Test func aParentDeletedElsewhereDeletesTheChildrenItSawAndHidesTheOnesItDidNot() throws {
        let (a, b) = try pair()
        try a.database.execute("INSERT INTO lists VALUES ('l1', 'home'); INSERT INTO items VALUES ('i1', 'l1', 'milk')")
        _ = try pass(a, b)
        try b.database.execute("INSERT INTO items VALUES ('i2', 'l1', 'tea')")
        try a.database.execute("DELETE FROM lists WHERE id = 'l1'")
        let changes = try pass(a, b)
        #expect(changes["lists"]?.keys(.deleted) == ["l1"])
        #expect(changes["items"]?.keys(.deleted) == ["i1"])
        #expect(changes["items"]?.keys(.hidden) == ["i2"])
    }

    @Test func aChildBeforeItsParentIsParkedThenShownAgain() throws {
        let (a, b) = try pair()
        try a.database.execute("INSERT INTO lists VALUES ('l1', 'home')")
        let parent = try a.changes(since: 0)
        try a.database.execute("INSERT INTO items VALUES ('i1', 'l1', 'milk')")
        let both = try a.changes(since: 0)
        let child = Changeset(
            source: both.source, since: parent.upTo, upTo: both.upTo, tables: both.tables,
            rows: both.rows.filter { $0.table == "items" })
        #expect(try b.apply(child).changes["items"]?.keys(.parked) == ["i1"])
        let changes = try b.apply(parent).changes
        #expect(changes["lists"]?.keys(.inserted) == ["l1"])
        #expect(changes["items"]?.keys(.shownAgain) == ["i1"])
    }

    @Test func aLaterReportFollowsAnEarlierOne() throws {
        let (a, b) = try pair()
        try a.database.execute("INSERT INTO lists VALUES ('l1', 'home'), ('l2', 'work')")
        let first = try pass(a, b)
        try a.database.execute("UPDATE lists SET name = 'x' WHERE id = 'l1'; DELETE FROM lists WHERE id = 'l2'")
        let combined = first.followed(by: try pass(a, b))
        #expect(combined["lists"]?.keys(.inserted) == ["l1"], "inserted then updated is still inserted")
        #expect(combined.count(.deleted) == 0, "inserted then deleted never showed")
        #expect(combined.tables.map(\.name) == ["lists"])
    }

    @Test func itEncodesAsJSONWithKeysAsText() throws {
        let (a, b) = try pair()
        try a.database.execute("INSERT INTO lists VALUES ('l1', 'home')")
        let report = try b.apply(a.changes(since: 0))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(report), as: UTF8.self)
        #expect(
            json
                == #"{"applied":1,"changes":{"tables":[{"inserted":["l1"],"table":"lists"}]},"heldBack":0,"ignored":0}"#
        )
    }

    /// An apply that changes more rows than a report holds says so instead of keeping every key: a streamed
    /// import of millions of rows keeps its memory bounded.
    @Test func aReportOfMoreRowsThanItHoldsSaysItIsIncomplete() throws {
        var recorder = MergeRecorder()
        for index in 0...MergeRecorder.limit {
            recorder.note(
                "reminders", .text("r\(index)"), wasShown: false, wasAlive: false, valuesChanged: true, now: .shown)
        }
        let report = MergeReport(recorder)
        #expect(!report.isComplete && report.tables.isEmpty && !report.isEmpty)
        #expect(report.summary.hasPrefix("more than 100000 shown rows changed"))
        let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        #expect(json.contains(#""complete":false"#), "\(json)")
        #expect(!MergeReport().followed(by: report).isComplete)
        // At the limit itself every row is listed.
        var full = MergeRecorder()
        for index in 0..<MergeRecorder.limit {
            full.note(
                "reminders", .text("r\(index)"), wasShown: false, wasAlive: false, valuesChanged: true, now: .shown)
        }
        #expect(MergeReport(full).isComplete && MergeReport(full).count(.inserted) == MergeRecorder.limit)
    }
}
