import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// Two file-backed replicas sharing one manual clock, both holding reminder `r1`.
private struct Pair {
    let directory = TemporaryDirectory()
    let clock = ManualClock(unixMilliseconds: epoch2026)
    let a: Replica
    let b: Replica

    init(policy: TablePolicy = .column) throws {
        a = try makeReplica(directory, "a.sqlite", node: 1, clock: clock, policy: policy)
        b = try makeReplica(directory, "b.sqlite", node: 2, clock: clock, policy: policy)
        try a.database.execute("INSERT INTO reminders (id, title, done, notes) VALUES ('r1', 'milk', 0, 'two')")
        try syncBoth(a, b)
        clock.advance(by: 1_000)
    }

    func row(_ replica: Replica) throws -> [SQLiteValue]? {
        try replica.database.query("SELECT title, done, notes FROM reminders WHERE id = 'r1'").first
    }

    /// Syncs and checks both sides agree, are consistent, and show `expected`.
    func expectConverged(_ expected: [SQLiteValue]?, _ comment: Comment? = nil) throws {
        try syncBoth(a, b)
        #expect(try row(a) == expected, comment)
        #expect(try row(b) == expected, comment)
        #expect(try a.canonicalDump() == b.canonicalDump(), comment)
        #expect(try a.check().isConsistent)
        #expect(try b.check().isConsistent)
    }
}

@Suite("Syncing two replicas", .tags(.replica), .timeLimit(.hangGuard))
struct ReplicaSyncTests {
    /// A sync stops at its round limit rather than run while apps keep writing (a `concord sync` with three
    /// busy apps ran for minutes); what the replicas held when it began is exchanged in the first round.
    @Test func aSyncStopsAtItsRoundLimitHavingExchangedWhatItFound() throws {
        let pair = try Pair()
        try pair.a.database.execute("UPDATE reminders SET title = 'oat milk' WHERE id = 'r1'")
        let stopped = try Replica.sync([pair.a, pair.b], maxRounds: 1)
        #expect(stopped.rounds == 1 && !stopped.settled)
        #expect(try pair.row(pair.b)?.first == "oat milk")
        let settled = try Replica.sync([pair.a, pair.b])
        #expect(settled.settled && settled.rounds < Replica.defaultMaxSyncRounds)
    }

    @Test func concurrentEditsOfDifferentColumnsBothSurvive() throws {
        let pair = try Pair()
        try pair.a.database.execute("UPDATE reminders SET title = 'oat milk' WHERE id = 'r1'")
        try pair.b.database.execute("UPDATE reminders SET done = 1 WHERE id = 'r1'")
        try pair.expectConverged(["oat milk", 1, "two"])
    }

    @Test(arguments: [true, false])
    func theLaterWriteOfOneColumnWinsWhicheverSideSyncsFirst(aFirst: Bool) throws {
        let pair = try Pair()
        try pair.b.database.execute("UPDATE reminders SET title = 'earlier' WHERE id = 'r1'")
        pair.clock.advance(by: 5)
        try pair.a.database.execute("UPDATE reminders SET title = 'later' WHERE id = 'r1'")
        if aFirst { try pair.b.apply(pair.a.changes()) } else { try pair.a.apply(pair.b.changes()) }
        try pair.expectConverged(["later", 0, "two"])
    }

    @Test func equalClockReadingsAreSettledByNodeIdTheSameWayEverywhere() throws {
        let pair = try Pair()
        try pair.a.database.execute("UPDATE reminders SET title = 'from node 1' WHERE id = 'r1'")
        try pair.b.database.execute("UPDATE reminders SET title = 'from node 2' WHERE id = 'r1'")
        // Same clock, same counter: the higher node id (2) wins on both sides.
        try pair.expectConverged(["from node 2", 0, "two"])
    }

    @Test func aDeleteBeatsAConcurrentUpdate() throws {
        let pair = try Pair()
        try pair.a.database.execute("DELETE FROM reminders WHERE id = 'r1'")
        pair.clock.advance(by: 10)
        try pair.b.database.execute("UPDATE reminders SET title = 'renamed after' WHERE id = 'r1'")
        try pair.expectConverged(nil)
        // The update is kept in the registers, not lost: a re-insert elsewhere would not see it,
        // but the register holds the highest write to that column.
        #expect(try pair.a.canonicalDump().contains("title='renamed after'"))
    }

    @Test func aReinsertAfterADeleteIsAliveEverywhere() throws {
        let pair = try Pair()
        try pair.a.database.execute("DELETE FROM reminders WHERE id = 'r1'")
        try pair.expectConverged(nil)
        pair.clock.advance(by: 10)
        try pair.b.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'back')")
        try pair.expectConverged(["back", 0, .null])
        #expect(try pair.a.changes().rows.first?.registers.liveness.causalLength == 3)
    }

    @Test func rowPolicyTakesTheWholeRowFromTheLaterWriter() throws {
        let pair = try Pair(policy: .row)
        try pair.a.database.execute("UPDATE reminders SET title = 'oat milk' WHERE id = 'r1'")
        pair.clock.advance(by: 5)
        try pair.b.database.execute("UPDATE reminders SET done = 1 WHERE id = 'r1'")
        try pair.expectConverged(["milk", 1, "two"])
    }

    @Test func applyingTwiceOrApplyingOwnChangesChangesNothing() throws {
        let pair = try Pair()
        try pair.a.database.execute("UPDATE reminders SET title = 'x' WHERE id = 'r1'")
        let changes = try pair.a.changes()
        #expect(try pair.b.apply(changes).applied == 1)
        let path = pair.directory.path("b.sqlite")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(try pair.b.apply(changes) == ApplyReport(applied: 0, ignored: 1))
        #expect(try pair.b.apply(pair.b.changes()).applied == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func aChangesetFromAClockTooFarAheadIsRefusedWhole() throws {
        let pair = try Pair()
        let ahead = ManualClock(unixMilliseconds: epoch2026 + 3_600_000)
        let c = try makeReplica(pair.directory, "c.sqlite", node: 3, clock: ahead)
        try c.database.execute("INSERT INTO reminders (id, title) VALUES ('r9', 'from the future')")
        let path = pair.directory.path("a.sqlite")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect {
            try pair.a.apply(c.changes())
        } throws: { error in
            guard let drift = error as? ClockDriftError else { return false }
            return drift.node == node(3) && drift.drift > 3_000_000
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func aChangesetWithAnotherPolicyIsRefused() throws {
        let pair = try Pair()
        let other = try Replica.inMemory()
        try other.database.execute(remindersSchema)
        try other.enableSync(on: "reminders", policy: .row)
        #expect(throws: ReplicaError.policyMismatch(table: "reminders", local: "column policy", remote: "row policy")) {
            try pair.a.apply(other.changes())
        }
    }

    /// One replica declaring a table otherwise refuses, and is refused by, the others: only those
    /// directions; the rest still exchange (one such replica used to stop the whole sync).
    @Test func aReplicaDeclaringATableOtherwiseIsRefusedAndTheOthersSync() throws {
        let pair = try Pair()
        let c = try makeReplica(pair.directory, "c.sqlite", node: 3, clock: pair.clock, policy: .row)
        try c.database.execute("INSERT INTO reminders (id, title) VALUES ('r9', 'row policy')")
        try pair.b.database.execute("INSERT INTO reminders (id, title) VALUES ('r2', 'bread')")
        #expect {
            try Replica.sync([pair.a, pair.b, c])
        } throws: { error in
            guard let incomplete = error as? SyncIncomplete else { return false }
            let directions = incomplete.report.refusals.map { [$0.source, $0.target] }
            return directions == [[0, 2], [1, 2], [2, 0], [2, 1]]
                && incomplete.report.refusals.allSatisfy { $0.reason.contains("declares") }
        }
        #expect(try pair.a.database.query("SELECT id FROM reminders ORDER BY id") == [["r1"], ["r2"]])
        #expect(try c.database.query("SELECT id FROM reminders ORDER BY id") == [["r9"]])
    }

    /// Any other error stops the sync, naming the exchange it stopped in; what went before stays merged.
    @Test func anErrorOtherThanARefusalNamesTheExchange() throws {
        let pair = try Pair()
        let c = try makeReplica(pair.directory, "c.sqlite", node: 3, clock: pair.clock)
        try pair.a.database.execute("INSERT INTO reminders (id, title) VALUES ('r2', 'bread')")
        try c.database.execute("PRAGMA query_only = ON")
        #expect {
            try Replica.sync([pair.a, pair.b, c])
        } throws: { error in
            guard let stopped = error as? SyncStopped else { return false }
            return stopped.source == 0 && stopped.target == 2 && stopped.report.applied == 1
                && "\(stopped)".hasPrefix("sync stopped while replica 0's changes went to replica 2: SQLite error 8")
        }
        #expect(try pair.b.database.query("SELECT id FROM reminders ORDER BY id") == [["r1"], ["r2"]])
    }

    /// A changeset whose header names another device than the one the transport says sent it merges, but
    /// moves no read position: forged "from" a, it would make c skip what a wrote before, for good.
    @Test func aHeaderNamingAnotherSenderMovesNoReadPosition() throws {
        let pair = try Pair()
        let c = try makeReplica(pair.directory, "c.sqlite", node: 3, clock: pair.clock)
        try pair.a.database.execute("INSERT INTO reminders (id, title) VALUES ('r2', 'only on a')")
        try pair.b.database.execute("INSERT INTO reminders (id, title) VALUES ('r3', 'from b')")
        var forged = try pair.b.changes()
        forged.source = pair.a.nodeID
        forged.upTo = min(forged.upTo, try pair.a.version)
        #expect(try c.apply(forged, from: pair.b.nodeID).applied > 0)
        #expect(try c.peerVersion(pair.a.nodeID) == 0)
        try c.apply(pair.a.changes(since: c.peerVersion(pair.a.nodeID)), from: pair.a.nodeID)
        #expect(try c.database.query("SELECT id FROM reminders ORDER BY id") == [["r1"], ["r2"], ["r3"]])
        // Without the sender, the header is taken at its word.
        let d = try makeReplica(pair.directory, "d.sqlite", node: 4, clock: pair.clock)
        try d.apply(forged)
        #expect(try d.peerVersion(pair.a.nodeID) == forged.upTo)
    }

    @Test func peersResumeFromTheVersionTheyLastRead() throws {
        let pair = try Pair()
        try pair.a.database.execute("INSERT INTO reminders (id, title) VALUES ('r2', 'bread')")
        let known = try pair.b.peerVersion(pair.a.nodeID)
        let delta = try pair.a.changes(since: known)
        #expect(delta.rows.map(\.key) == ["r2"])
        try pair.b.apply(delta)
        #expect(try pair.b.peerVersion(pair.a.nodeID) == delta.upTo)
        #expect(try pair.a.changes(since: pair.b.peerVersion(pair.a.nodeID)).rows.isEmpty)
    }
}
