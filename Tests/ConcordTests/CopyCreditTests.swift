import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// A file copied while a counter change waited in its capture log: the change counts once.
@Suite("Copies with writes not folded yet", .tags(.replica), .timeLimit(.hangGuard))
struct CopyCreditTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)
    static let schema =
        "CREATE TABLE posts (id TEXT PRIMARY KEY NOT NULL, likes INTEGER NOT NULL DEFAULT 0, title TEXT);"

    /// The phone's replica, with post `p` liked 10 times and folded, then `pending` run and not folded.
    private func phone(_ directory: TemporaryDirectory, pending: String) throws -> Replica {
        let phone = try Replica(path: directory.path("phone.db"), configuration: configuration(node: 1, clock: clock))
        try phone.database.execute(Self.schema)
        try phone.enableSync(on: "posts", merges: ["likes": .counter])
        try phone.database.execute("INSERT INTO posts (id, likes, title) VALUES ('p', 10, 'first')")
        try phone.foldLocalWrites()
        clock.advance(by: 1_000)
        try phone.database.execute(pending)
        return phone
    }

    /// Copies the phone's file as `cp` would, its write-ahead log checkpointed first, and opens the copy.
    private func copy(of phone: Replica, in directory: TemporaryDirectory, as name: String, node id: UInt8) throws
        -> Replica
    {
        try phone.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try FileManager.default.copyItem(atPath: directory.path("phone.db"), toPath: directory.path(name))
        return try Replica(path: directory.path(name), configuration: configuration(node: id, clock: clock))
    }

    private func posts(_ replica: Replica) throws -> [[SQLiteValue]] {
        try replica.database.query("SELECT id, likes, title FROM posts ORDER BY id")
    }

    /// The change waiting, and what every replica shows once both files synced.
    static let waiting: [(pending: String, shown: [[SQLiteValue]])] = [
        ("UPDATE posts SET likes = likes + 1, title = 'liked' WHERE id = 'p'", [["p", 11, "liked"]]),
        ("UPDATE posts SET likes = likes - 3 WHERE id = 'p'", [["p", 7, "first"]]),
        ("INSERT INTO posts (id, likes) VALUES ('q', 5)", [["p", 10, "first"], ["q", 5, .null]]),
        (
            "DELETE FROM posts WHERE id = 'p'; INSERT INTO posts (id, likes, title) VALUES ('p', 2, 'again')",
            [["p", 2, "again"]]
        ),
    ]

    @Test(arguments: waiting.indices)
    func aCounterChangeWaitingWhenTheFileWasCopiedCountsOnce(case index: Int) throws {
        let (pending, shown) = Self.waiting[index]
        let directory = TemporaryDirectory()
        let phone = try phone(directory, pending: pending)
        let tablet = try copy(of: phone, in: directory, as: "tablet.db", node: 2)
        #expect(tablet.nodeID == node(2))
        #expect(try posts(tablet) == shown, "the copy shows the change before anything syncs")
        clock.advance(by: 1_000)
        for order in [[phone, tablet], [tablet, phone]] { try Replica.sync(order) }
        for replica in [phone, tablet] {
            #expect(try posts(replica) == shown)
            #expect(try replica.check().isConsistent)
        }
        #expect(try phone.canonicalDump() == tablet.canonicalDump())
    }

    /// A phone restored from its backup onto a tablet and never synced again: the tablet still counts
    /// what the phone had not folded, and a third device gets it from the tablet.
    @Test func theChangeIsKeptWhenTheOriginalNeverSyncsAgain() throws {
        let directory = TemporaryDirectory()
        let phone = try phone(directory, pending: "UPDATE posts SET likes = likes + 1 WHERE id = 'p'")
        let tablet = try copy(of: phone, in: directory, as: "tablet.db", node: 2)
        let laptop = try Replica.inMemory(configuration: configuration(node: 3, clock: clock))
        try laptop.database.execute(Self.schema)
        try laptop.enableSync(on: "posts", merges: ["likes": .counter])
        try Replica.sync([tablet, laptop])
        #expect(try posts(laptop) == [["p", 11, "first"]])
    }

    /// Both devices go on counting after the copy, each before and after its first fold.
    @Test func incrementsMadeOnBothSidesAfterTheCopyAllCount() throws {
        let directory = TemporaryDirectory()
        let phone = try phone(directory, pending: "UPDATE posts SET likes = likes + 1 WHERE id = 'p'")
        try phone.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try FileManager.default.copyItem(atPath: directory.path("phone.db"), toPath: directory.path("tablet.db"))
        clock.advance(by: 1_000)
        try phone.database.execute("UPDATE posts SET likes = likes + 10 WHERE id = 'p'")
        let tablet = try Replica(path: directory.path("tablet.db"), configuration: configuration(node: 2, clock: clock))
        try tablet.database.execute("UPDATE posts SET likes = likes + 100 WHERE id = 'p'")
        try phone.foldLocalWrites()
        clock.advance(by: 1_000)
        try phone.database.execute("UPDATE posts SET likes = likes + 1000 WHERE id = 'p'")
        try Replica.sync([phone, tablet])
        for replica in [phone, tablet] { #expect(try posts(replica) == [["p", 1_121, "first"]]) }
    }

    /// A limit the README states: an edit made to the copy by another client before Concord first opened it
    /// cannot be told from the original's, so it is credited to the original too, and the original's own
    /// change of that counter replaces it.
    @Test func anEditToTheCopyBeforeConcordOpenedItIsCreditedToTheOriginal() throws {
        let directory = TemporaryDirectory()
        let phone = try phone(directory, pending: "UPDATE posts SET likes = likes + 1 WHERE id = 'p'")
        try phone.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try FileManager.default.copyItem(atPath: directory.path("phone.db"), toPath: directory.path("tablet.db"))
        try sqlite3Shell(directory.path("tablet.db"), "UPDATE posts SET likes = likes + 100 WHERE id = 'p';")
        let tablet = try Replica(path: directory.path("tablet.db"), configuration: configuration(node: 2, clock: clock))
        let credited = try #require(try tablet.changes(since: 0).rows.first { $0.key == "p" })
        #expect(credited.registers.columns[0]?.contributions.map(\.stamp.node) == [node(1)])
        #expect(credited.registers.columns[0]?.contributions.map(\.amount) == [111])
        clock.advance(by: 1_000)
        try Replica.sync([phone, tablet])
        for replica in [phone, tablet] { #expect(try posts(replica) == [["p", 11, "first"]]) }
    }

    /// A limit the README states: two copies taken at different moments before the original folded credit
    /// the original with different amounts at one stamp, and the larger is kept.
    @Test func twoCopiesTakenAtDifferentMomentsKeepTheLargerCredit() throws {
        let directory = TemporaryDirectory()
        let phone = try phone(directory, pending: "UPDATE posts SET likes = likes + 1 WHERE id = 'p'")
        let first = try copy(of: phone, in: directory, as: "first.db", node: 2)
        try phone.database.execute("UPDATE posts SET likes = likes + 1 WHERE id = 'p'")
        let second = try copy(of: phone, in: directory, as: "second.db", node: 3)
        for (replica, likes) in [(first, 11), (second, 12)] {
            #expect(try posts(replica) == [["p", .integer(Int64(likes)), "first"]])
        }
        try Replica.sync([first, second])
        for replica in [first, second] { #expect(try posts(replica) == [["p", 12, "first"]]) }
    }

    /// A copy opened by a configuration that cannot fold what waits (it does not register a merge function a
    /// table uses) still opens, stamping nothing; the next fold that can, credits the waiting change.
    @Test func aCopyOpenedWithoutAMergeFunctionCreditsAtTheNextFold() throws {
        let directory = TemporaryDirectory()
        let longest = MergeFunction(name: "longest") { a, b in
            (a.textValue?.utf8.count ?? -1) >= (b.textValue?.utf8.count ?? -1) ? a : b
        }
        let merges = ["likes": ColumnMerge.counter, "title": .custom("longest")]
        var withMerge = configuration(node: 1, clock: clock)
        withMerge.merges = ["longest": longest]
        let phone = try Replica(path: directory.path("phone.db"), configuration: withMerge)
        try phone.database.execute(Self.schema)
        try phone.enableSync(on: "posts", merges: merges)
        try phone.database.execute("INSERT INTO posts (id, likes, title) VALUES ('p', 10, 'first')")
        try phone.foldLocalWrites()
        clock.advance(by: 1_000)
        try phone.database.execute("UPDATE posts SET likes = likes + 1 WHERE id = 'p'")
        try phone.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try FileManager.default.copyItem(atPath: directory.path("phone.db"), toPath: directory.path("tablet.db"))
        var tabletConfiguration = configuration(node: 2, clock: clock)
        let bare = try Replica(path: directory.path("tablet.db"), configuration: tabletConfiguration)
        #expect(bare.nodeID == node(2), "the copy takes its own node id as it opens, and keeps the credit")
        #expect(throws: ReplicaError.self) { try bare.foldLocalWrites() }
        tabletConfiguration.merges = ["longest": longest]
        let tablet = try Replica(path: directory.path("tablet.db"), configuration: tabletConfiguration)
        #expect(tablet.nodeID == node(2))
        clock.advance(by: 1_000)
        try Replica.sync([phone, tablet])
        for replica in [phone, tablet] { #expect(try posts(replica) == [["p", 11, "first"]]) }
    }

    /// The credited contribution and the counter's register are the original's, at the clock the file held:
    /// lower than any stamp the original issues later, so its own fold of the same write replaces them.
    @Test func theCopyCreditsTheOriginalNodeAtTheFilesClock() throws {
        let directory = TemporaryDirectory()
        let phone = try phone(directory, pending: "UPDATE posts SET likes = likes + 1, title = 'liked' WHERE id = 'p'")
        let fileClock = try phone.clock.last
        let tablet = try copy(of: phone, in: directory, as: "tablet.db", node: 2)
        let row = try #require(try tablet.changes(since: 0).rows.first { $0.key == "p" })
        let contributions = try #require(row.registers.columns[0]?.contributions)
        #expect(contributions.map(\.stamp) == [Stamp(hlc: fileClock, node: node(1))])
        #expect(contributions.map(\.amount) == [11])
        #expect(row.registers.columns[0]?.stamp == Stamp(hlc: fileClock, node: node(1)), "the original's write")
        #expect(row.registers.columns[1]?.stamp.node == node(2), "the title's write is the copy's own")
        try phone.foldLocalWrites()
        #expect(try phone.clock.last > fileClock)
    }

    /// Makes `posts` refused (a UNIQUE index besides the key, a destructive schema change) on `replica`, or
    /// undoes it: writes of a refused table wait in the log.
    private func refuse(_ replica: Replica, _ refused: Bool) throws {
        try replica.database.execute(
            refused ? "CREATE UNIQUE INDEX posts_title ON posts (title)" : "DROP INDEX posts_title")
        try replica.foldLocalWrites()
    }

    /// A counter change of a table refused at the copy waits in both logs over several folds and opens, and
    /// counts once when the schema change is undone on both sides: the copy keeps its credit in the file.
    @Test func aChangeWaitingInARefusedTableCountsOnceWhenTheTableSyncsAgain() throws {
        let directory = TemporaryDirectory()
        let phone = try phone(directory, pending: "SELECT 1")
        try refuse(phone, true)
        try phone.database.execute("UPDATE posts SET likes = likes + 1 WHERE id = 'p'")
        let tablet = try copy(of: phone, in: directory, as: "tablet.db", node: 2)
        #expect(tablet.nodeID == node(2))
        try tablet.foldLocalWrites()
        try tablet.database.execute("UPDATE posts SET likes = likes + 100 WHERE id = 'p'")
        try tablet.foldLocalWrites()
        let reopened = try Replica(
            path: directory.path("tablet.db"), configuration: configuration(node: 9, clock: clock))
        clock.advance(by: 1_000)
        for replica in [phone, reopened] { try refuse(replica, false) }
        try Replica.sync([phone, reopened])
        for replica in [phone, reopened] {
            #expect(try posts(replica) == [["p", 111, "first"]])
            #expect(try replica.check().isConsistent)
        }
        #expect(try reopened.database.scalar("SELECT count(*) FROM _concord_credits") == 0, "used up, then dropped")
    }

    /// A copy of a copy, both taken while a refused table's changes waited: each change is credited to the
    /// device that made it.
    @Test func aCopyOfACopyCreditsEachWaitingChangeToItsMaker() throws {
        let directory = TemporaryDirectory()
        let phone = try phone(directory, pending: "SELECT 1")
        try refuse(phone, true)
        try phone.database.execute("UPDATE posts SET likes = likes + 1 WHERE id = 'p'")
        let tablet = try copy(of: phone, in: directory, as: "tablet.db", node: 2)
        try tablet.database.execute("UPDATE posts SET likes = likes + 100 WHERE id = 'p'")
        try tablet.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try FileManager.default.copyItem(atPath: directory.path("tablet.db"), toPath: directory.path("laptop.db"))
        let laptop = try Replica(path: directory.path("laptop.db"), configuration: configuration(node: 3, clock: clock))
        let credits = try laptop.database.query("SELECT node FROM _concord_credits ORDER BY upto").map(\.first)
        #expect(credits.count == 2)
        clock.advance(by: 1_000)
        for replica in [phone, tablet, laptop] { try refuse(replica, false) }
        let contributions = try #require(try laptop.changes(since: 0).rows.first { $0.key == "p" })
            .registers.columns[0]?.contributions.map { [$0.stamp.node.bytes[0], UInt8($0.amount)] }
        #expect(contributions == [[1, 11], [2, 100]], "the phone's +1 and the tablet's +100")
        try Replica.sync([phone, tablet, laptop])
        for replica in [phone, tablet, laptop] { #expect(try posts(replica) == [["p", 111, "first"]]) }
    }

    /// Once the writes a credit covers are folded, it goes: a later write that takes a position the log
    /// gave out before is the copy's own.
    @Test func aCreditEndsWithTheWritesItCovers() throws {
        let directory = TemporaryDirectory()
        let phone = try phone(directory, pending: "UPDATE posts SET likes = likes + 1 WHERE id = 'p'")
        let tablet = try copy(of: phone, in: directory, as: "tablet.db", node: 2)
        try tablet.foldLocalWrites()
        #expect(try tablet.database.scalar("SELECT count(*) FROM _concord_credits") == 0)
        try tablet.database.execute("UPDATE posts SET likes = likes + 100 WHERE id = 'p'")
        try Replica.sync([phone, tablet])
        for replica in [phone, tablet] { #expect(try posts(replica) == [["p", 111, "first"]]) }
    }

    /// Disabling sync on the refused table drops the writes a credit covered, and the credit with them.
    @Test func disablingTheRefusedTableEndsItsCredit() throws {
        let directory = TemporaryDirectory()
        let phone = try phone(directory, pending: "CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, n INTEGER)")
        try phone.enableSync(on: "notes", merges: ["n": .counter])
        try refuse(phone, true)
        try phone.database.execute("UPDATE posts SET likes = likes + 1 WHERE id = 'p'")
        let tablet = try copy(of: phone, in: directory, as: "tablet.db", node: 2)
        try tablet.disableSync(on: "posts")
        #expect(try tablet.database.scalar("SELECT count(*) FROM _concord_credits") == 0)
        try tablet.database.execute("INSERT INTO notes (id, n) VALUES ('a', 5)")
        let row = try #require(try tablet.changes(since: 0).rows.first { $0.table == "notes" })
        #expect(row.registers.columns[0]?.contributions.map(\.stamp.node) == [node(2)], "the tablet's own write")
    }

    /// A copy of a copy made before the first copy's log grew keeps the first original's credit: the change
    /// waiting there is the phone's, not the tablet's.
    @Test func aCopyOfACopyMadeAtOnceKeepsTheFirstOriginalsCredit() throws {
        let directory = TemporaryDirectory()
        let phone = try phone(directory, pending: "SELECT 1")
        try refuse(phone, true)
        try phone.database.execute("UPDATE posts SET likes = likes + 1 WHERE id = 'p'")
        let tablet = try copy(of: phone, in: directory, as: "tablet.db", node: 2)
        try tablet.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try FileManager.default.copyItem(atPath: directory.path("tablet.db"), toPath: directory.path("laptop.db"))
        let laptop = try Replica(path: directory.path("laptop.db"), configuration: configuration(node: 3, clock: clock))
        #expect(try laptop.database.query("SELECT node FROM _concord_credits") == [[1]], "the phone's, node index 1")
        clock.advance(by: 1_000)
        for replica in [phone, tablet, laptop] { try refuse(replica, false) }
        try Replica.sync([phone, tablet, laptop])
        for replica in [phone, tablet, laptop] { #expect(try posts(replica) == [["p", 11, "first"]]) }
    }

    /// Two processes that open a fresh copy at once: one takes the copy's node id, and the other, which read
    /// the file's node id before that, went on under the original's. Its export told a peer it had read the
    /// original further than the original had written, so the peer skipped the original's next writes for
    /// good, and the original, taking itself for a restored backup, stamped its waiting +1 a second time.
    /// Every fold or export reads the node id again when another connection changed it.
    @Test func aConnectionWritesUnderTheNodeIdItsFileHoldsNow() throws {
        let directory = TemporaryDirectory()
        let phone = try phone(directory, pending: "UPDATE posts SET likes = likes + 1 WHERE id = 'p'")
        let tablet = try copy(of: phone, in: directory, as: "tablet.db", node: 2)
        let other = try Replica(path: directory.path("tablet.db"), configuration: configuration(node: 3, clock: clock))
        #expect(other.nodeID == node(2))
        // The other connection's file takes another node id; this one has not looked since.
        try other.adoptNewNodeID()
        try tablet.database.execute("UPDATE posts SET likes = likes + 100 WHERE id = 'p'")
        try tablet.foldLocalWrites()
        #expect(tablet.nodeID == node(3))
        #expect(
            try tablet.changes().rows.allSatisfy { row in
                row.registers.columns.allSatisfy { $0?.contributions.allSatisfy { $0.stamp.node != node(2) } ?? true }
            })
        clock.advance(by: 1_000)
        for order in [[phone, tablet], [tablet, phone]] { try Replica.sync(order) }
        for replica in [phone, tablet] { #expect(try posts(replica) == [["p", 111, "first"]]) }
    }
}
