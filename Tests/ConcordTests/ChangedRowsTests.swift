import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// `changedRows(since:)` lists every row whose state changed after a version, whoever changed it.
@Suite("Rows changed since a version", .tags(.replica), .timeLimit(.hangGuard))
struct ChangedRowsTests {
    /// Replicas syncing lists and items, as the merge-report tests make them, and their clock.
    let replicas = MergeReportTests()
    var clock: ManualClock { replicas.clock }

    private func pair() throws -> (Replica, Replica) { try replicas.pair() }

    private func pass(_ from: Replica, _ to: Replica) throws {
        clock.advance(by: 1)
        _ = try to.apply(from.changes(since: to.peerVersion(from.nodeID)))
    }

    private func listed(_ changed: ChangedRows) -> [String] {
        changed.rows.map { "\($0.table)/\($0.key.textValue ?? "?")\($0.isShown ? "" : " (not shown)")" }
    }

    @Test func localWritesAreListedInTheOrderTheyLastChanged() throws {
        let (a, _) = try pair()
        try a.database.execute("INSERT INTO lists VALUES ('l2', 'work'), ('l1', 'home')")
        let first = try a.changedRows(since: 0)
        #expect(listed(first) == ["lists/l2", "lists/l1"])
        try a.database.execute("UPDATE lists SET name = 'office' WHERE id = 'l2'; DELETE FROM lists WHERE id = 'l1'")
        let second = try a.changedRows(since: first.upTo)
        #expect(listed(second) == ["lists/l2", "lists/l1 (not shown)"])
        #expect(try a.changedRows(since: second.upTo).rows.isEmpty, "nothing new, nothing listed")
    }

    @Test func rowsMergedFromAPeerAreListed() throws {
        let (a, b) = try pair()
        let before = try b.changedRows(since: 0).upTo
        try a.database.execute("INSERT INTO lists VALUES ('l1', 'home'); INSERT INTO items VALUES ('i1', 'l1', 'milk')")
        try pass(a, b)
        // In the order the apply wrote them, which is its own business.
        #expect(Set(listed(try b.changedRows(since: before))) == ["lists/l1", "items/i1"])
    }

    @Test func aChildHiddenBecauseItsParentWasDeletedElsewhereIsListed() throws {
        let (a, b) = try pair()
        try a.database.execute("INSERT INTO lists VALUES ('l1', 'home')")
        try pass(a, b)
        // b's own child, which a never saw: a's delete of the list hides it on b without touching it.
        try b.database.execute("INSERT INTO items VALUES ('i2', 'l1', 'tea')")
        let before = try b.changedRows(since: 0).upTo
        try a.database.execute("DELETE FROM lists WHERE id = 'l1'")
        try pass(a, b)
        #expect(listed(try b.changedRows(since: before)) == ["lists/l1 (not shown)", "items/i2 (not shown)"])
    }

    @Test func aChildShownOnceItsParentArrivesIsListed() throws {
        let (a, b) = try pair()
        try a.database.execute("INSERT INTO lists VALUES ('l1', 'home'); INSERT INTO items VALUES ('i1', 'l1', 'milk')")
        // The child arrives first and waits parked; then its parent comes, and the child shows.
        let all = try a.changes()
        _ = try b.apply(Changeset(header: all.header, rows: all.rows.filter { $0.table == "items" }))
        let parked = try b.changedRows(since: 0)
        #expect(listed(parked) == ["items/i1 (not shown)"])
        _ = try b.apply(all)
        #expect(listed(try b.changedRows(since: parked.upTo)) == ["lists/l1", "items/i1"])
    }

    /// A `SET NULL` child showing NULL while its parent was away shows the parent's key again once it comes
    /// back: its row changed for the app, on the device the parent came to and on the one that inserted it.
    @Test(arguments: [true, false])
    func aSetNullChildShowingItsParentAgainIsListed(parentArrives: Bool) throws {
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let d = try inMemoryReplicas(2, clock: clock) { replica, _ in
            try replica.database.execute(
                """
                CREATE TABLE p (id TEXT PRIMARY KEY NOT NULL);
                CREATE TABLE s (id TEXT PRIMARY KEY NOT NULL, pid TEXT REFERENCES p(id) ON DELETE SET NULL, v TEXT);
                """)
            try replica.enableSync(on: "p")
            try replica.enableSync(on: "s")
        }
        try d[0].database.execute("INSERT INTO p VALUES ('p1')")
        try Replica.sync(d)
        clock.advance(by: 1)
        try d[0].database.execute("DELETE FROM p")
        try d[1].database.execute("INSERT INTO s VALUES ('s2', 'p1', 'y')")
        try Replica.sync(d)
        let device = parentArrives ? d[1] : d[0]
        #expect(try device.database.query("SELECT id, pid FROM s") == [["s2", .null]])
        let before = try device.changedRows(since: 0).upTo
        clock.advance(by: 1)
        try d[0].database.execute("INSERT INTO p VALUES ('p1')")
        try Replica.sync(d)
        #expect(try device.database.query("SELECT id, pid FROM s") == [["s2", "p1"]])
        #expect(listed(try device.changedRows(since: before)) == ["p/p1", "s/s2"])
    }
}
