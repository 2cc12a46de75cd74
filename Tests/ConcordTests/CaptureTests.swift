import ConcordTestSupport
import Testing

@testable import Concord

/// Stamps of the `reminders` registers, in stamp order, as (key, hlc).
private func stampedKeys(_ replica: Replica) throws -> [(String, Int64)] {
    try replica.foldLocalWrites()
    return try replica.database.query("SELECT pk, hlc FROM _concord_1_rows ORDER BY hlc").map {
        ($0[0].textValue ?? "", $0[1].integerValue ?? 0)
    }
}

@Suite("Capturing writes", .tags(.replica), .timeLimit(.hangGuard))
struct CaptureTests {
    @Test func writesFromAnotherConnectionAreCapturedInWriteOrder() throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let replica = try makeReplica(directory, "a.sqlite", node: 1, clock: clock)
        let other = try Database(path: directory.path("a.sqlite"))
        for key in ["r3", "r1", "r2"] {
            try other.execute("INSERT INTO reminders (id, title) VALUES (?, 'x')", [.text(key)])
        }
        #expect(try stampedKeys(replica).map(\.0) == ["r3", "r1", "r2"])
        #expect(try replica.check().isConsistent)
    }

    @Test func writesFromTheSQLiteShellAreCapturedInOrderWithTheirTime() throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let replica = try makeReplica(directory, "a.sqlite", node: 1, clock: clock)
        let before = SystemClock().unixMilliseconds()
        try sqlite3Shell(
            directory.path("a.sqlite"),
            """
            INSERT INTO reminders (id, title) VALUES ('z', 'first');
            INSERT INTO reminders (id, title) VALUES ('a', 'second');
            UPDATE reminders SET title = 'third' WHERE id = 'z';
            DELETE FROM reminders WHERE id = 'a';
            """)
        let after = SystemClock().unixMilliseconds()
        // The fold runs after the writes, its clock reading the same time as the shell's (a write is never
        // stamped later than the clock of the fold that stamps it reads).
        clock.set(after)
        #expect(try replica.foldLocalWrites() == 4)
        let stamps = try replica.database.query(
            "SELECT pk, cl, hlc, h0, clh FROM _concord_1_rows ORDER BY pk")
        // 'a' was inserted, then deleted: causal length 2, delete stamped after its insert.
        #expect(stamps[0][0] == "a" && stamps[0][1] == .integer(2))
        let insertA = stamps[0][2].integerValue!
        let deleteA = stamps[0][4].integerValue!
        let insertZ = stamps[1][2].integerValue!
        let updateZ = stamps[1][3].integerValue!
        #expect(insertZ < insertA && insertA < updateZ && updateZ < deleteA)
        // The shell knows nothing of Concord's clock: its writes carry the wall-clock time of the write.
        for raw in [insertZ, insertA, updateZ, deleteA] {
            let milliseconds = Int64(HLCTimestamp(sqliteValue: raw).milliseconds)
            #expect(milliseconds >= before && milliseconds <= after)
        }
        #expect(try replica.check().isConsistent)
    }

    @Test func triggersReadTheInjectedClock() throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let replica = try makeReplica(directory, "a.sqlite", node: 1, clock: clock)
        try replica.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'a')")
        try replica.database.execute("INSERT INTO reminders (id, title) VALUES ('r2', 'b')")
        clock.advance(by: 1_500)
        try replica.database.execute("INSERT INTO reminders (id, title) VALUES ('r3', 'c')")
        let stamps = try stampedKeys(replica).map { HLCTimestamp(sqliteValue: $0.1) }
        #expect(
            stamps == [
                HLCTimestamp(milliseconds: UInt64(epoch2026), counter: 0),
                HLCTimestamp(milliseconds: UInt64(epoch2026), counter: 1),
                HLCTimestamp(milliseconds: UInt64(epoch2026 + 1_500), counter: 0),
            ])
    }

    @Test func anUpdateStampsOnlyTheColumnsItChanged() throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let replica = try makeReplica(directory, "a.sqlite", node: 1, clock: clock)
        try replica.database.execute("INSERT INTO reminders (id, title, notes) VALUES ('r1', 'a', 'n')")
        try replica.foldLocalWrites()
        try replica.database.execute("UPDATE reminders SET title = 'a', notes = 'n' WHERE id = 'r1'")
        #expect(try replica.foldLocalWrites() == 0, "an update that changes nothing is not a write")
        try replica.database.execute("UPDATE reminders SET title = 'b', notes = 'n' WHERE id = 'r1'")
        try replica.foldLocalWrites()
        let row = try replica.database.query("SELECT h0, h1, h2 FROM _concord_1_rows")[0]
        #expect(!row[0].isNull && row[1].isNull && row[2].isNull)
    }

    @Test func anUpdateThatChangesOnlyATypeIsAWriteWhereTheColumnKeepsTypes() throws {
        let directory = TemporaryDirectory()
        let replica = try Replica(
            path: directory.path("a.sqlite"),
            configuration: configuration(node: 1, clock: ManualClock(unixMilliseconds: epoch2026)))
        // An INTEGER column stores 1.0 as 1 and a REAL column stores 1 as 1.0; a column without a type keeps either.
        try replica.database.execute("CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, n INTEGER, r REAL, v)")
        try replica.enableSync(on: "t")
        try replica.database.execute("INSERT INTO t (id, n, r, v) VALUES ('k', 1, 1.0, 1)")
        try replica.foldLocalWrites()
        try replica.database.execute("UPDATE t SET n = 1.0, r = 1 WHERE id = 'k'")
        #expect(try replica.foldLocalWrites() == 0, "the stored values did not change")
        try replica.database.execute("UPDATE t SET v = 1.0 WHERE id = 'k'")
        #expect(try replica.foldLocalWrites() == 1)
        let row = try replica.database.query("SELECT h0, h1, h2 FROM _concord_1_rows")[0].map { $0.integerValue ?? 0 }
        #expect(row[0] == row[1] && row[2] > row[0], "only v was stamped by the update")
        #expect(try replica.database.scalar("SELECT typeof(v) FROM t") == "real")
    }

    @Test func theLoggedJulianDayGivesBackTheExactMillisecond() throws {
        // SQLite's julianday('now') is its whole-millisecond clock divided by 86,400,000.
        var generator = SeededGenerator(seed: 7)
        let wrong = (0..<100_000).map { _ in Int64.random(in: 0...16_000_000_000_000, using: &generator) }.filter {
            unix in
            Metadata.unixMilliseconds(julianDay: Double(unix + ReplicaVFS.unixEpochJulianMilliseconds) / 86_400_000.0)
                != unix
        }
        #expect(wrong.isEmpty, "times up to the year 2477 that do not round-trip, e.g. \(wrong.prefix(3)) ms")
    }

    @Test func changingAKeyIsRefused() throws {
        let directory = TemporaryDirectory()
        let replica = try makeReplica(directory, "a.sqlite", node: 1, clock: ManualClock(unixMilliseconds: epoch2026))
        try replica.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'a')")
        #expect(throws: SQLiteError.self) {
            try replica.database.execute("UPDATE reminders SET id = 'r2' WHERE id = 'r1'")
        }
        #expect(try replica.database.scalar("SELECT id FROM reminders") == "r1")
    }

    @Test func mergeWritesAreNotCapturedAgain() throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let a = try makeReplica(directory, "a.sqlite", node: 1, clock: clock)
        let b = try makeReplica(directory, "b.sqlite", node: 2, clock: clock)
        try a.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'from a')")
        try b.apply(a.changes())
        // b stored a's stamp, not a new one of its own.
        let stamp = try b.database.query("SELECT hlc, node FROM _concord_1_rows")[0]
        let original = try a.database.query("SELECT hlc FROM _concord_1_rows")[0][0]
        #expect(stamp[0] == original)
        #expect(
            try b.database.scalar("SELECT id FROM _concord_nodes WHERE idx = ?", [stamp[1]]) == .blob(node(1).bytes))
    }

    @Test func aRestartNeverReissuesAStampEvenWhenTheClockGoesBack() throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock(unixMilliseconds: epoch2026)
        var replica: Replica? = try makeReplica(directory, "a.sqlite", node: 1, clock: clock)
        try replica!.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'a')")
        try replica!.foldLocalWrites()
        let first = try replica!.clock.last
        replica = nil
        clock.advance(by: -60_000)
        replica = try Replica(path: directory.path("a.sqlite"), configuration: configuration(node: 1, clock: clock))
        try replica!.database.execute("INSERT INTO reminders (id, title) VALUES ('r2', 'b')")
        let stamps = try stampedKeys(replica!).map(\.1)
        #expect(stamps.count == 2 && stamps[1] > first.sqliteValue)
    }
}
