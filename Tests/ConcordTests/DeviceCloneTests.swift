import Concord
import ConcordTestSupport
import Foundation
import Testing

@testable import ConcordSimulator

/// A device cloned block by block (a disk image, a VM snapshot booted twice) keeps its database file's
/// device and inode, so the copy goes unnoticed by its identity and both files write under one node id.
///
/// DESIGN.md promises that a clone's writes still reach every peer. The file cannot tell, so its peers do:
/// a replica that hears of stamps or versions of its own node it never issued takes a new node id
/// (see `Replica.adoptNewNodeIDIfRolledBack`), and versions drawn from the clock and the file's history
/// differ between the two. Each case is one order of writes and syncs (the bits of `order`): clocks that
/// move between rounds or stand still (the two clones then stamp the same instants), both clones syncing
/// each round or one of them only at the end, and the clones syncing with each other before the peer.
@Suite struct DeviceCloneTests {
    @Test(arguments: 0..<16)
    func aCloneThatKeepsTheFilesIdentityLosesNoWrite(order: Int) throws {
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let directory = TemporaryDirectory()
        func open(_ name: String, node id: UInt8) throws -> Replica {
            var configuration = configuration(node: id, clock: clock)
            let ids = NodeIDSequence(first: node(id))
            configuration.makeNodeID = { ids.next() }
            configuration.fileIdentity = { _ in "cloned-disk:7" }
            return try Replica(path: directory.path(name), configuration: configuration)
        }
        let (a, b) = (try open("a.db", node: 1), try open("b.db", node: 2))
        for replica in [a, b] {
            try replica.database.execute("CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, v TEXT)")
            try replica.enableSync(on: "t")
        }
        try a.database.execute("INSERT INTO t VALUES ('base', 'x')")
        try Replica.sync([a, b])
        try FileManager.default.copyItem(atPath: directory.path("a.db"), toPath: directory.path("c.db"))
        let c = try open("c.db", node: 3)
        #expect(c.nodeID == a.nodeID, "the clone was noticed by its identity: this test no longer tests a clone")
        for round in 0..<3 {
            if order & 1 == 0 { clock.advance(by: 1) }
            for (replica, name) in [(a, "a"), (c, "c")] {
                try replica.database.execute(
                    "INSERT INTO t VALUES ('\(name)\(round)', '\(name)'); UPDATE t SET v = '\(name)\(round)' WHERE id = 'base'"
                )
            }
            if order & 2 == 0 {
                try Replica.sync([a, b])
                try Replica.sync([c, b])
            } else {
                try Replica.sync([order & 4 == 0 ? c : a, b])
            }
        }
        if order & 8 != 0 { try Replica.sync([a, c]) }
        try Replica.sync([a, b, c])
        let rows = try b.database.query("SELECT id, v FROM t ORDER BY id")
        #expect(rows.map { $0[0] } == ["a0", "a1", "a2", "base", "c0", "c1", "c2"])
        for replica in [a, c] { #expect(try replica.database.query("SELECT id, v FROM t ORDER BY id") == rows) }
        for replica in [a, b, c] { #expect(try replica.check().isConsistent) }
        #expect(a.nodeID != c.nodeID, "both clones still write under one node id")
    }
}
