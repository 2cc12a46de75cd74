import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// A peer's node index that a rollback Concord does not see undid (found by a probe of the library API).
///
/// The replica keeps the `_concord_nodes` indexes it read in memory. An app that applied a peer's changes
/// inside a transaction of its own and rolled it back, or a backup restored over the open file, removed the
/// peer's index from the file but not from memory: the same changes applied again were stored under an
/// index the file no longer held, exported with their values as NULL, and a third replica showed NULL for
/// good, `check()` ok.
@Suite("Node indexes after a rollback Concord does not see", .tags(.replica), .timeLimit(.hangGuard))
struct NodeCacheRollbackTests {
    private struct AppRolledBack: Error {}

    /// The app's transaction around an apply and a check, rolled back; the same changes applied again.
    @Test func anApplyAfterTheAppRolledBackItsTransactionStoresTheNodeTheFileHolds() throws {
        let world = try World()
        #expect(throws: AppRolledBack.self) {
            try world.receiver.database.transaction {
                try world.receiver.apply(world.peer.changes(since: 0), from: world.peer.nodeID)
                _ = try world.receiver.check()
                throw AppRolledBack()
            }
        }
        try world.expectRelayedWhole()
    }

    /// A backup of the file restored over it, in place, while the replica stays open.
    @Test func anApplyAfterABackupWasRestoredInPlaceStoresTheNodeTheFileHolds() throws {
        let world = try World()
        try world.receiver.database.execute("INSERT INTO notes VALUES ('mine', 'from receiver')")
        try world.receiver.foldLocalWrites()
        let path = world.directory.path("receiver.db")
        let backup = try Data(contentsOf: URL(fileURLWithPath: path))
        try world.receiver.apply(world.peer.changes(since: 0), from: world.peer.nodeID)
        _ = try world.receiver.check()
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: backup)
        try handle.close()
        try world.expectRelayedWhole()
    }

    /// A peer with a note, a receiver, and a third replica that hears of the note only through the receiver.
    private struct World {
        let directory = TemporaryDirectory()
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let peer: Replica
        let receiver: Replica
        let third: Replica

        init() throws {
            let (directory, clock) = (directory, clock)
            func open(_ name: String, _ node: UInt8) throws -> Replica {
                let replica = try Replica(
                    path: directory.path(name), configuration: configuration(node: node, clock: clock))
                try replica.database.execute("CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, title TEXT)")
                try replica.enableSync(on: "notes")
                return replica
            }
            peer = try open("peer.db", 1)
            receiver = try open("receiver.db", 2)
            third = try open("third.db", 3)
            try peer.database.execute("INSERT INTO notes VALUES ('n1', 'from peer')")
        }

        /// Applies the peer's changes again, relays them, and expects both to show the peer's title.
        func expectRelayedWhole() throws {
            try receiver.apply(peer.changes(since: 0), from: peer.nodeID)
            try third.apply(receiver.changes(since: 0), from: receiver.nodeID)
            try Replica.sync([receiver, third])
            for replica in [receiver, third] {
                #expect(try replica.database.scalar("SELECT title FROM notes WHERE id = 'n1'") == "from peer")
                #expect(try replica.check().isConsistent)
            }
            #expect(try receiver.canonicalDump() == third.canonicalDump())
        }
    }
}
