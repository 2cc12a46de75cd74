import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// `status()` shows, per known peer, what it has not read of this replica and when it last read, and the
/// capture log's backlog.
@Suite("Status: what is unsent", .tags(.replica), .timeLimit(.hangGuard))
struct PeerStatusTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    private func replica(_ id: UInt8) throws -> Replica {
        let replica = try Replica.inMemory(configuration: configuration(node: id, clock: clock))
        try replica.database.execute(remindersSchema)
        try replica.enableSync(on: "reminders")
        return replica
    }

    @Test func aPeerThatSyncedShowsWhatItHasNotReadAndWhenItLastRead() throws {
        let a = try replica(1)
        let b = try replica(2)
        try a.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'milk')")
        clock.advance(by: 1_000)
        try Replica.sync([a, b])
        let synced = epoch2026 + 1_000
        let delivered = try a.version
        clock.advance(by: 1_000)
        try a.database.execute("INSERT INTO reminders (id, title) VALUES ('r2', 'tea'), ('r3', 'jam')")
        try a.database.execute("UPDATE reminders SET done = 1 WHERE id = 'r1'")

        let status = try a.status()
        #expect(status.captureBacklog == 3, "three writes waited in the capture log")
        #expect(status.captureHeld == 0)
        let peer = try #require(status.peers.first)
        #expect(status.peers.count == 1 && peer.node == node(2).description)
        #expect(peer.peerReadUpTo == delivered && peer.lastReadByPeer == synced)
        #expect(peer.unread == 3, "r1 changed again, r2 and r3 are new")
        let bVersion = try b.version
        #expect(peer.lastReadFromPeer == synced && peer.version == bVersion)
        #expect(try a.status().captureBacklog == 0, "the first status stamped them")

        clock.advance(by: 1_000)
        try Replica.sync([a, b])
        let after = try #require(try a.status().peers.first)
        #expect(after.unread == 0 && after.lastReadByPeer == epoch2026 + 3_000)
    }

    @Test func aPeerNothingWasRecordedForShowsUnknownAndDeliveriesNeverMoveBack() throws {
        let a = try replica(1)
        let b = try replica(2)
        try b.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'milk')")
        try a.apply(b.changes(since: 0))
        let peer = try #require(try a.status().peers.first)
        #expect(peer.peerReadUpTo == nil && peer.unread == nil && peer.lastReadByPeer == nil)
        #expect(peer.lastReadFromPeer == epoch2026)

        try a.recordDelivery(to: node(2), upTo: 10)
        try a.recordDelivery(to: node(2), upTo: 5)
        #expect(try a.status().peers.first?.peerReadUpTo == 10)
    }
}
