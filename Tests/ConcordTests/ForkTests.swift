import ConcordTestSupport
import Testing

@testable import Concord

@Suite("Forking a replica", .tags(.replica), .timeLimit(.hangGuard))
struct ForkTests {
    @Test func aForkWritesUnderItsOwnNodeAndConvergesWithTheOriginal() throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let phone = try makeReplica(directory, "phone.db", node: 1, clock: clock)
        try phone.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'milk')")
        let tablet = try phone.fork(
            to: directory.path("tablet.db"), configuration: configuration(node: 2, clock: clock))
        #expect(tablet.nodeID == node(2))
        #expect(try tablet.database.scalar("SELECT title FROM reminders") == "milk")
        // The same write on both, at the same clock reading: two different stamps, settled by node id.
        try phone.database.execute("UPDATE reminders SET title = 'from phone'")
        try tablet.database.execute("UPDATE reminders SET title = 'from tablet'")
        try Replica.sync([phone, tablet])
        #expect(try phone.canonicalDump() == tablet.canonicalDump())
        #expect(try phone.database.scalar("SELECT title FROM reminders") == "from tablet")
        #expect(try tablet.check().isConsistent)
    }

    /// A replica in memory records no file a copy could be told from; its fork still writes as another device.
    @Test func aForkOfAReplicaInMemoryTakesANodeIdOfItsOwn() throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let phone = try Replica.inMemory(configuration: configuration(node: 1, clock: clock))
        try phone.database.execute(remindersSchema)
        try phone.enableSync(on: "reminders")
        try phone.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'milk')")
        let tablet = try phone.fork(
            to: directory.path("tablet.db"), configuration: configuration(node: 2, clock: clock))
        #expect(tablet.nodeID == node(2))
        try tablet.database.execute("INSERT INTO reminders (id, title) VALUES ('r2', 'from tablet')")
        try phone.database.execute("INSERT INTO reminders (id, title) VALUES ('r3', 'from phone')")
        try Replica.sync([phone, tablet])
        for replica in [phone, tablet] {
            #expect(try replica.database.query("SELECT id FROM reminders ORDER BY id") == [["r1"], ["r2"], ["r3"]])
        }
    }

    @Test func aForkThatWouldKeepTheNodeIdIsRefused() throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let phone = try makeReplica(directory, "phone.db", node: 1, clock: clock)
        #expect(throws: ReplicaError.sharedNodeID(node(1))) {
            try phone.fork(to: directory.path("copy.db"))
        }
    }
}
