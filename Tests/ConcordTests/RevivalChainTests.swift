import ConcordTestSupport
import Testing

@testable import Concord

/// A child written after its parent's delete through `RESTRICT` or `NO ACTION` brings the parent back, and
/// a parent brought back so brings back its own deleted parent when the child was written after that
/// delete too: a concurrent grandchild is kept, not parked.
///
/// Before, one device deleted a child and then its parent (legal: the parent had no child left) while
/// another added a grandchild under the child; the child came back but waited for its deleted parent, so
/// neither the child nor the grandchild showed anywhere.
@Suite(.tags(.replica))
struct RevivalChainTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    private func devices(_ action: String, count: Int = 2) throws -> [Replica] {
        try inMemoryReplicas(count, clock: clock) { replica, _ in
            try replica.database.execute(
                """
                CREATE TABLE p (id TEXT PRIMARY KEY, v TEXT);
                CREATE TABLE c (id TEXT PRIMARY KEY, pid TEXT REFERENCES p(id) ON DELETE \(action), v TEXT);
                CREATE TABLE g (id TEXT PRIMARY KEY, cid TEXT REFERENCES c(id) ON DELETE \(action), v TEXT);
                """)
            for table in ["p", "c", "g"] { try replica.enableSync(on: table) }
        }
    }

    /// Runs `sql` on `replica` and folds it, at an instant of its own: the order the stamps tell.
    private func write(_ replica: Replica, _ sql: String) throws {
        clock.advance(by: 10)
        try replica.database.execute(sql)
        try replica.foldLocalWrites()
    }

    /// Every device shows nothing, keeps only the grandchild `g1` parked, and passes its check: the end of the
    /// chains whose deleted child was kept while parked.
    private func expectOnlyTheGrandchildParked(on devices: [Replica]) throws {
        for device in devices {
            #expect(try shown(device).isEmpty)
            #expect(try device.parked().map { "\($0.table) \($0.key)" } == ["g g1"])
            let report = try device.check()
            #expect(report.isConsistent, "\(report.problems.map(\.description))")
        }
    }

    private func shown(_ replica: Replica) throws -> [String] {
        try ["p", "c", "g"].flatMap { table in
            try replica.database.query("SELECT id FROM \(table) ORDER BY id").compactMap { $0[0].textValue }
        }
    }

    @Test(arguments: ["RESTRICT", "NO ACTION"])
    func aGrandchildWrittenAfterBothDeletesBringsBackTheWholeChain(action: String) throws {
        let devices = try devices(action)
        try devices[0].database.execute("INSERT INTO p VALUES ('p1', 'P'); INSERT INTO c VALUES ('c1', 'p1', 'C')")
        try Replica.sync(devices)
        clock.advance(by: 10)
        try devices[0].database.execute(
            "PRAGMA foreign_keys = ON; DELETE FROM c WHERE id = 'c1'; DELETE FROM p WHERE id = 'p1'")
        clock.advance(by: 10)
        try devices[1].database.execute("PRAGMA foreign_keys = ON; INSERT INTO g VALUES ('g1', 'c1', 'G')")
        try Replica.sync(devices)
        for device in devices {
            #expect(try shown(device) == ["p1", "c1", "g1"])
            #expect(try device.parked().isEmpty)
            #expect(try device.check().isConsistent)
        }
        // Once the grandchild goes, nothing keeps the chain: both deletes hold again.
        clock.advance(by: 10)
        try devices[1].database.execute("DELETE FROM g WHERE id = 'g1'")
        try Replica.sync(devices)
        for device in devices {
            #expect(try shown(device).isEmpty)
            #expect(try device.parked().isEmpty)
            #expect(try device.check().isConsistent)
        }
    }

    @Test func aGrandchildWrittenBeforeTheGrandparentsDeleteDoesNotBringItBack() throws {
        let devices = try devices("RESTRICT")
        try devices[0].database.execute("INSERT INTO p VALUES ('p1', 'P'); INSERT INTO c VALUES ('c1', 'p1', 'C')")
        try Replica.sync(devices)
        clock.advance(by: 10)
        try devices[0].database.execute("PRAGMA foreign_keys = ON; DELETE FROM c WHERE id = 'c1'")
        clock.advance(by: 10)
        try devices[1].database.execute("INSERT INTO g VALUES ('g1', 'c1', 'G')")
        clock.advance(by: 10)
        try devices[0].database.execute("PRAGMA foreign_keys = ON; DELETE FROM p WHERE id = 'p1'")
        try Replica.sync(devices)
        // g1 keeps c1 (written after its delete), but not p1 (deleted after g1 was written): parked, listed.
        for device in devices {
            #expect(try shown(device).isEmpty)
            #expect(try device.parked().map { "\($0.table) \($0.key)" } == ["c c1", "g g1"])
            #expect(try device.check().isConsistent)
        }
    }

    /// The app updates a row a child brought back, then saves it whole (`INSERT OR REPLACE`), at one instant:
    /// the fold takes the update first, as it happened. (It took a deleted row's update for one logged before
    /// the row's insert, which no UPDATE can reach, and moved the insert first: the `max` column's 9 was lost
    /// to the 5 the update wrote, on every device; `batched-wide` seed 143.)
    @Test func anUpdateOfABroughtBackRowBeforeItIsSavedWholeFoldsFirst() throws {
        let replica = try Replica.inMemory(configuration: configuration(node: 1, clock: clock))
        try replica.database.execute(
            """
            CREATE TABLE o (id TEXT PRIMARY KEY, score INTEGER, label TEXT);
            CREATE TABLE l (id TEXT PRIMARY KEY, oid TEXT REFERENCES o(id) ON DELETE RESTRICT);
            """)
        try replica.enableSync(on: "o", merges: ["score": .max])
        try replica.enableSync(on: "l")
        try replica.database.execute("INSERT INTO o VALUES ('o1', 9, 'first')")
        try replica.foldLocalWrites()
        clock.advance(by: 10)
        try replica.database.execute("DELETE FROM o WHERE id = 'o1'")
        try replica.foldLocalWrites()
        clock.advance(by: 10)
        // Foreign keys off, as the app leaves them: a link under the deleted owner brings it back.
        try replica.database.execute("INSERT INTO l VALUES ('l1', 'o1')")
        try replica.foldLocalWrites()
        #expect(try replica.database.query("SELECT id, score FROM o") == [["o1", 9]])
        clock.advance(by: 10)
        try replica.database.execute(
            "UPDATE o SET score = 5 WHERE id = 'o1'; INSERT OR REPLACE INTO o VALUES ('o1', NULL, 'saved')")
        try replica.foldLocalWrites()
        #expect(try replica.database.query("SELECT id, score, label FROM o") == [["o1", 9, "saved"]])
        #expect(try replica.check().isConsistent)
    }

    /// A child already brought back by an older grandchild brings back its own deleted parent once a newer
    /// grandchild is written after that delete too, on the device that deleted the parent as well. That
    /// device had the child parked (brought back, its parent deleted) and parked again it stayed, as far as
    /// whether it was brought back goes, so its parent was never looked at again: it stayed out of the table
    /// while its registers said it shows, and its child broke the foreign key (`batched-wide` seed 6000180,
    /// `Simulations/regressions/grandparent-kept-by-a-newer-grandchild.json`). Once the newer grandchild goes,
    /// the parent's delete holds again everywhere.
    @Test(arguments: 0..<3)
    func aNewerGrandchildBringsBackAGrandparentDeletedAfterAnOlderOne(order: Int) throws {
        let devices = try devices("RESTRICT", count: 3)
        let (writer, other, deleter) = (devices[0], devices[1], devices[2])
        try deleter.database.execute("INSERT INTO p VALUES ('p1', 'P')")
        try Replica.sync([deleter, writer])
        try write(writer, "INSERT INTO c VALUES ('c1', 'p1', 'C')")
        try write(writer, "DELETE FROM c WHERE id = 'c1'")
        // Foreign keys off, as the app leaves them: a grandchild under a child this device never saw, then the
        // parent deleted, which no child it knows of holds.
        try write(deleter, "INSERT INTO g VALUES ('g1', 'c1', 'G')")
        try write(deleter, "DELETE FROM p WHERE id = 'p1'")
        try write(other, "INSERT INTO g VALUES ('g3', 'c1', 'G3')")
        switch order {
        case 0: try Replica.sync(devices)
        case 1:
            try deleter.apply(writer.changes(since: 0), from: writer.nodeID)
            try deleter.apply(other.changes(since: 0), from: other.nodeID)
            try Replica.sync(devices)
        default: try Replica.sync(devices.reversed())
        }
        for device in devices {
            #expect(try shown(device) == ["p1", "c1", "g1", "g3"])
            #expect(try device.check().isConsistent)
        }
        try write(other, "DELETE FROM g WHERE id = 'g3'")
        try Replica.sync(devices)
        // g1 keeps c1 (written after its delete), not p1 (deleted after g1 was written): both parked.
        for device in devices {
            #expect(try shown(device).isEmpty)
            #expect(try device.parked().map { "\($0.table) \($0.key)" } == ["c c1", "g g1"])
            #expect(try device.check().isConsistent)
        }
    }

    /// A grandchild that had brought back a deleted child moves to another child: the child, parked under its
    /// own deleted parent, is no longer kept, and must leave the parked rows. Only rows shown brought back were
    /// looked at again when a child moved, so the parked one stayed parked, "deleted but parked", on every
    /// device that had seen it kept (`batched-wide` seed 13000150,
    /// `Simulations/regressions/parked-revival-kept-after-child-moved.json`).
    @Test func aDeletedRowParkedWhileKeptLeavesTheParkedRowsWhenItsChildMoves() throws {
        let devices = try devices("RESTRICT", count: 3)
        let (deleter, keeper, mover) = (devices[0], devices[1], devices[2])
        try write(mover, "INSERT INTO p VALUES ('p1', 'P'); INSERT INTO c VALUES ('c1', 'p1', 'C')")
        try write(mover, "DELETE FROM c WHERE id = 'c1'")
        try Replica.sync(devices)
        // Foreign keys off, as the app leaves them: a grandchild under the deleted child brings it back.
        try write(keeper, "INSERT INTO g VALUES ('g1', 'c1', 'G')")
        try write(deleter, "PRAGMA foreign_keys = ON; DELETE FROM p WHERE id = 'p1'")
        try write(mover, "INSERT INTO g VALUES ('g1', 'c2', 'moved')")
        // The deleter hears of the grandchild first: c1 is kept, parked under the deleted p1; then it moves.
        try deleter.apply(keeper.changes(since: 0), from: keeper.nodeID)
        #expect(try deleter.parked().map { "\($0.table) \($0.key)" } == ["c c1", "g g1"])
        try deleter.apply(mover.changes(since: 0), from: mover.nodeID)
        try Replica.sync(devices)
        try expectOnlyTheGrandchildParked(on: devices)
    }

    /// The same, with the grandchild moved by the app of the device where the child is parked: the app, which
    /// does not see the parked grandchild, inserts its key again under another child, and the fold did not
    /// look at the child it had kept, whose registers the fold reads no values of (`batched-wide` seed
    /// 15000419, `Simulations/regressions/parked-revival-kept-after-local-move.json`).
    @Test func aDeletedRowParkedWhileKeptLeavesTheParkedRowsWhenTheAppMovesItsChild() throws {
        let devices = try devices("RESTRICT", count: 3)
        let (deleter, keeper) = (devices[0], devices[1])
        try write(keeper, "INSERT INTO p VALUES ('p1', 'P'); INSERT INTO c VALUES ('c1', 'p1', 'C')")
        try write(keeper, "DELETE FROM c WHERE id = 'c1'")
        try Replica.sync(devices)
        try write(keeper, "INSERT INTO g VALUES ('g1', 'c1', 'G')")
        try write(deleter, "PRAGMA foreign_keys = ON; DELETE FROM p WHERE id = 'p1'")
        try deleter.apply(keeper.changes(since: 0), from: keeper.nodeID)
        #expect(try deleter.parked().map { "\($0.table) \($0.key)" } == ["c c1", "g g1"])
        try write(deleter, "PRAGMA foreign_keys = OFF; INSERT INTO g VALUES ('g1', 'c2', 'moved')")
        #expect(try deleter.parked().map { "\($0.table) \($0.key)" } == ["g g1"], "c1 is kept by nothing")
        try Replica.sync(devices)
        try expectOnlyTheGrandchildParked(on: devices)
    }
}
