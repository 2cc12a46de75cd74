import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// The silent losses a black-box probe found, one named test each: every one of these failed
/// on the build the probe tried (the command-line ones are in `ProbeRegressionCLITests`).
@Suite("Silent-loss regressions", .tags(.replica), .timeLimit(.hangGuard))
struct ProbeRegressionTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    private func pair(_ schema: String, tables: [String], policy: TablePolicy = .column) throws -> (Replica, Replica) {
        let a = try Replica.inMemory(configuration: configuration(node: 1, clock: clock))
        let b = try Replica.inMemory(configuration: configuration(node: 2, clock: clock))
        for replica in [a, b] {
            try replica.database.execute(schema)
            for table in tables { try replica.enableSync(on: table, policy: policy) }
        }
        return (a, b)
    }

    // MARK: 1. Numbers a peer sends

    @Test(arguments: [UInt64.max, UInt64.max - 1, UInt64(1) << 63 + 1, Liveness.maxCausalLength + 1] as [UInt64])
    func aCausalLengthBeyondTheLimitIsRefusedWithItsOffset(length: UInt64) throws {
        let (a, b) = try pair(remindersSchema, tables: ["reminders"])
        try a.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'milk')")
        var json = String(decoding: try a.changes().jsonData(), as: UTF8.self)
        json = json.replacingOccurrences(of: #""causalLength": 1"#, with: #""causalLength": \#(length)"#)
        let before = try b.canonicalDump()
        #expect(throws: ChangesetError.self) { try b.apply(Changeset(json: Array(json.utf8))) }
        do {
            _ = try Changeset(json: Array(json.utf8))
        } catch let ChangesetError.malformed(offset, field, reason) {
            #expect(reason == .causalLengthTooLarge(length))
            #expect(field.hasSuffix(".liveness.causalLength"))
            #expect(Array(json.utf8)[offset...].starts(with: Array(String(length).utf8)))
        }
        #expect(try b.canonicalDump() == before)
        // The binary form refuses the same number at the byte where it starts.
        var changes = try a.changes()
        changes.rows[0].registers.liveness.causalLength = length
        #expect(throws: ChangesetError.self) { try changes.encoded() }
    }

    @Test func aReplicaAnEarlierBuildLetAHugeCausalLengthIntoKeepsWorking() throws {
        // What the probe left behind: a causal length of 2^64 - 1 stored by the earlier build, on layout 4.
        let directory = TemporaryDirectory()
        let path = directory.path("poisoned.sqlite")
        try FileManager.default.copyItem(
            atPath: MetadataLayoutTests.fixtures.appendingPathComponent("layout-4.sqlite").path,
            toPath: path)
        try sqlite3Shell(path, "UPDATE _concord_rows_reminders SET cl = -1 WHERE pk = 'R1';")
        let replica = try Replica(path: path, configuration: configuration(node: 9, clock: clock))
        try replica.database.execute("DELETE FROM reminders WHERE id = 'R1'")
        let liveness = try #require(try replica.registers(of: "reminders", key: "R1")).liveness
        #expect(!liveness.isAlive && liveness.causalLength <= Liveness.maxCausalLength)
        #expect(try replica.check().isConsistent)
        _ = try replica.status()
        _ = try replica.changes().encoded()
    }

    // MARK: 2. Text bytes

    @Test func textWithNULAndBytesThatAreNotUTF8RoundTripsAsValueAndKey() throws {
        let (a, b) = try pair("CREATE TABLE v (id TEXT PRIMARY KEY NOT NULL, t);", tables: ["v"])
        let c = try Replica.inMemory(configuration: configuration(node: 3, clock: clock))
        try c.database.execute("CREATE TABLE v (id TEXT PRIMARY KEY NOT NULL, t);")
        try c.enableSync(on: "v")
        try a.database.execute(
            """
            INSERT INTO v VALUES ('nul', 'ab' || char(0) || 'cd'), ('utf', CAST(x'61ff62' AS TEXT)),
                ('k' || char(0) || 'x', 'a key with NUL'), (CAST(x'ff00fe' AS TEXT), 'a key that is not UTF-8');
            """)
        try b.apply(try Changeset(decoding: try a.changes().encoded()))
        try c.apply(try Changeset(json: a.changes().jsonData()))
        let query = "SELECT hex(id), typeof(id), hex(t), typeof(t) FROM v ORDER BY id"
        let expected = try a.database.query(query)
        #expect(expected.count == 4)
        for replica in [b, c] {
            #expect(try replica.database.query(query) == expected)
            #expect(try replica.canonicalDump() == a.canonicalDump())
            #expect(try replica.check().isConsistent)
        }
        #expect(try a.check().isConsistent)
    }

    // MARK: 3. A key that cannot sync

    @Test func anIntegerKeyIsRefusedWhenWrittenAndStopsNothingElse() throws {
        let (a, b) = try pair(
            """
            CREATE TABLE blobs (id BLOB PRIMARY KEY, v);
            CREATE TABLE untyped (id PRIMARY KEY, v);
            CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, v);
            """, tables: ["blobs", "untyped", "notes"])
        for (table, key) in [("blobs", "5"), ("untyped", "5"), ("untyped", "1.5"), ("untyped", "NULL")] {
            #expect {
                try a.database.execute("INSERT INTO \(table) (id, v) VALUES (\(key), 'x')")
            } throws: { error in
                let message = "\(error)"
                return message.contains("key column id of synced table \(table)") && message.contains("TEXT or BLOB")
            }
        }
        try a.database.execute("INSERT INTO notes VALUES ('n1', 'still syncs'); INSERT INTO blobs VALUES (x'05', 'ok')")
        try Replica.sync([a, b])
        #expect(try b.database.query("SELECT v FROM notes") == [["still syncs"]])
        #expect(try b.database.query("SELECT v FROM blobs") == [["ok"]])
    }

    @Test func anIntegerKeyStoredByAnEarlierBuildIsParkedWithItsReason() throws {
        let directory = TemporaryDirectory()
        let path = directory.path("old.sqlite")
        try FileManager.default.copyItem(
            atPath: MetadataLayoutTests.fixtures.appendingPathComponent("layout-4.sqlite").path,
            toPath: path)
        // The earlier build let an integer into the BLOB key of `settings` and logged it.
        try sqlite3Shell(path, "INSERT INTO settings (key, value, updated) VALUES (5, 'five', 9);")
        let replica = try Replica(path: path, configuration: configuration(node: 9, clock: clock))
        let status = try replica.status()
        #expect(
            status.parked.contains { $0.table == "settings" && $0.key == "5" && $0.reason.contains("TEXT or BLOB") })
        #expect(try replica.check().isConsistent)
        let peer = try Replica.inMemory(configuration: configuration(node: 4, clock: clock))
        try peer.database.execute(
            """
            CREATE TABLE settings (key BLOB PRIMARY KEY, value, updated INTEGER NOT NULL DEFAULT 0);
            """)
        try peer.enableSync(on: "settings", policy: .row)
        var changes = try replica.changes()
        #expect(!changes.rows.contains { $0.key == .integer(5) })
        changes.tables = changes.tables.filter { $0.name == "settings" }
        changes.rows = changes.rows.filter { $0.table == "settings" }
        #expect(try peer.apply(Changeset(decoding: changes.encoded())).applied == 4, "every other row still syncs")
    }

    // MARK: 4. Copies of a file

    @Test func aCopiedFileTakesANodeIDOfItsOwnAndBothCopiesWritesArriveEverywhere() throws {
        let directory = TemporaryDirectory()
        let a = try makeReplica(directory, "a.db", node: 1, clock: clock)
        let b = try makeReplica(directory, "b.db", node: 2, clock: clock)
        try a.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'first')")
        try Replica.sync([a, b])
        try FileManager.default.copyItem(atPath: directory.path("a.db"), toPath: directory.path("c.db"))
        let c = try Replica(path: directory.path("c.db"), configuration: configuration(node: 3, clock: clock))
        #expect(c.nodeID == node(3) && a.nodeID == node(1))
        clock.advance(by: 10)
        try a.database.execute("INSERT INTO reminders (id, title) VALUES ('from-a', 'a')")
        try c.database.execute("INSERT INTO reminders (id, title) VALUES ('from-c', 'c')")
        for order in [[a, b, c], [c, b, a]] { try Replica.sync(order) }
        for replica in [a, b, c] {
            #expect(
                try replica.database.query("SELECT id FROM reminders ORDER BY id") == [["from-a"], ["from-c"], ["r1"]])
        }
    }

    /// Runs `before` on `a` and syncs with `b`, backs `a`'s file up, runs `after` and syncs again, closes
    /// `a` and writes the backup back over its file: the same inode, so the file's identity cannot tell.
    /// Its clock moves by `clockMovesBy` between the backup and `after`.
    private func restoreInPlace(
        _ a: Replica, in directory: TemporaryDirectory, syncingWith b: Replica, before: String, after: String,
        clockMovesBy: Int64 = 1_000
    ) throws {
        var a: Replica? = a
        try a!.database.execute(before)
        try Replica.sync([a!, b])
        let backup = try fileBytes(directory.path("a.db"))
        clock.advance(by: clockMovesBy)
        try a!.database.execute(after)
        try Replica.sync([a!, b])
        a = nil
        try restore(backup, overWithSameInode: directory.url.appendingPathComponent("a.db"))
    }

    /// Writes `backup` over the file at `url`, keeping its inode: a backup restored in place.
    private func restore(_ backup: Data, overWithSameInode url: URL) throws {
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: backup)
        try handle.close()
    }

    /// A backup of `a` restored over the same file after `b` read newer changes of it, then written on.
    @Test(arguments: [1_000, -1_500] as [Int64])
    func aBackupRestoredInPlaceNeverReusesAVersionItsPeersHaveRead(clockMovesBy: Int64) throws {
        let directory = TemporaryDirectory()
        let b = try makeReplica(directory, "b.db", node: 2, clock: clock)
        try restoreInPlace(
            try makeReplica(directory, "a.db", node: 1, clock: clock), in: directory, syncingWith: b,
            before: "INSERT INTO reminders (id, title) VALUES ('r1', 'before the backup')",
            after: "INSERT INTO reminders (id, title) VALUES ('r2', 'after the backup')")
        // Its clock moves on, or (the harder case) back to before the write b already read.
        clock.advance(by: clockMovesBy)
        let restored = try Replica(path: directory.path("a.db"), configuration: configuration(node: 5, clock: clock))
        try restored.database.execute("INSERT INTO reminders (id, title) VALUES ('r3', 'after the restore')")
        try Replica.sync([restored, b])
        #expect(try b.database.query("SELECT id FROM reminders ORDER BY id") == [["r1"], ["r2"], ["r3"]])
        #expect(try restored.database.query("SELECT id FROM reminders ORDER BY id") == [["r1"], ["r2"], ["r3"]])
        // The peer read further than the file holds (or holds a stamp of its newer than its clock): it takes
        // a new node id before it stamps what its app wrote since the restore.
        #expect(restored.nodeID == node(5))
    }

    /// A backup restored over the same file on a device whose clock ran minutes fast when it wrote what the
    /// restore lost, and was set right since: what it writes next is stamped below what its peer read, then a
    /// later write moves it past. The peer sends the lost write back, which the file's registers do not hold:
    /// the replica takes a new node id, and the peer reads it again from its start. (The write in between
    /// reached the peer never, `sync` and `check` ok on both.)
    @Test func aRestoreInPlaceAfterTheClockWasSetBackLosesNoWrite() throws {
        let directory = TemporaryDirectory()
        let b = try makeReplica(directory, "b.db", node: 2, clock: clock)
        try restoreInPlace(
            try makeReplica(directory, "a.db", node: 1, clock: clock), in: directory, syncingWith: b,
            before: "INSERT INTO reminders (id, title) VALUES ('base', 'synced')",
            after: "INSERT INTO reminders (id, title) VALUES ('x', 'lost on a')", clockMovesBy: 240_000)  // 4 min fast
        clock.advance(by: -239_000)  // set right, a second later
        let restored = try Replica(path: directory.path("a.db"), configuration: configuration(node: 5, clock: clock))
        try restored.database.execute("INSERT INTO reminders (id, title) VALUES ('y', 'after the restore')")
        try restored.foldLocalWrites()
        clock.advance(by: 300_000)
        try restored.database.execute("INSERT INTO reminders (id, title) VALUES ('z', 'later')")
        try restored.foldLocalWrites()  // its clock is past the lost write now
        try Replica.sync([restored, b])
        for replica in [restored, b] {
            #expect(
                try replica.database.query("SELECT id FROM reminders ORDER BY id") == [["base"], ["x"], ["y"], ["z"]])
            #expect(try replica.check().isConsistent)
        }
        #expect(restored.nodeID == node(5))
    }

    /// The same restore, but the peer overwrote the lost write before the restore: nothing the peer sends back
    /// is a write of the restored file's own, so only the peer's read position can tell the file went back.
    @Test func aRestoreInPlaceAfterTheClockWasSetBackLosesNoWriteWhenThePeerReplacedTheLostOne() throws {
        let directory = TemporaryDirectory()
        let b = try makeReplica(directory, "b.db", node: 2, clock: clock)
        try restoreInPlace(
            try makeReplica(directory, "a.db", node: 1, clock: clock), in: directory, syncingWith: b,
            before: "INSERT INTO reminders (id, title) VALUES ('base', 'synced')",
            after: "UPDATE reminders SET title = 'lost on a' WHERE id = 'base'", clockMovesBy: 240_000)  // 4 min fast
        clock.advance(by: 1_000)
        try b.database.execute("UPDATE reminders SET title = 'replaced on b' WHERE id = 'base'")
        try b.foldLocalWrites()
        clock.advance(by: -240_000)  // set right
        let restored = try Replica(path: directory.path("a.db"), configuration: configuration(node: 5, clock: clock))
        try restored.database.execute("INSERT INTO reminders (id, title) VALUES ('y', 'after the restore')")
        try restored.foldLocalWrites()
        clock.advance(by: 300_000)
        try restored.database.execute("INSERT INTO reminders (id, title) VALUES ('z', 'later')")
        try restored.foldLocalWrites()  // its clock is past everything b read of it now
        try Replica.sync([restored, b])
        for replica in [restored, b] {
            #expect(
                try replica.database.query("SELECT id, title FROM reminders ORDER BY id") == [
                    ["base", "replaced on b"], ["y", "after the restore"], ["z", "later"],
                ])
            #expect(try replica.check().isConsistent)
        }
        // b's write says it saw a's lost one: a took a new node id, and b read it again from its start.
        #expect(restored.nodeID == node(5))
    }

    /// A backup restored in place that lost no write of its own, only one it merged while its clock ran fast:
    /// the clock set right, what it stores next lands below what its peer read of it. Nothing the peer sends
    /// back names the loss; the peer's read position, which the restored file never handed out, does.
    @Test(arguments: [240_000, -600_000] as [Int64])
    func aRestoreInPlaceThatLostOnlyAMergeLosesNoWriteOnceTheClockIsBehind(clockOff: Int64) throws {
        let directory = TemporaryDirectory()
        let b = try makeReplica(directory, "b.db", node: 2, clock: clock)
        var a: Replica? = try makeReplica(directory, "a.db", node: 1, clock: clock)
        try a!.database.execute("INSERT INTO reminders (id, title) VALUES ('base', 'synced')")
        try Replica.sync([a!, b])
        let backup = try fileBytes(directory.path("a.db"))
        clock.advance(by: max(clockOff, 1_000))  // fast, or on time
        try b.database.execute("INSERT INTO reminders (id, title) VALUES ('x', 'from b')")
        try Replica.sync([a!, b])  // a merges x, and b reads a past it
        a = nil
        try restore(backup, overWithSameInode: directory.url.appendingPathComponent("a.db"))
        clock.advance(by: clockOff > 0 ? -clockOff + 1_000 : clockOff)  // set right, or set back
        let restored = try Replica(path: directory.path("a.db"), configuration: configuration(node: 5, clock: clock))
        try restored.database.execute("INSERT INTO reminders (id, title) VALUES ('y', 'after the restore')")
        try restored.foldLocalWrites()
        clock.advance(by: 900_000)
        try restored.database.execute("INSERT INTO reminders (id, title) VALUES ('z', 'later')")
        try restored.foldLocalWrites()  // its versions are past what b read now
        try Replica.sync([restored, b])
        for replica in [restored, b] {
            #expect(
                try replica.database.query("SELECT id FROM reminders ORDER BY id") == [["base"], ["x"], ["y"], ["z"]])
            #expect(try replica.check().isConsistent)
        }
        #expect(restored.nodeID == node(5))
    }

    /// The same, with the clock behind the file's versions before the backup and after the restore: both
    /// histories count up from the same version, and only the offset each transaction starts its versions at
    /// keeps the positions they hand out apart.
    @Test func aRestoreInPlaceWithTheClockBehindItsVersionsThroughoutLosesNoWrite() throws {
        let directory = TemporaryDirectory()
        let b = try makeReplica(directory, "b.db", node: 2, clock: clock)
        var a: Replica? = try makeReplica(directory, "a.db", node: 1, clock: clock)
        try a!.database.execute("INSERT INTO reminders (id, title) VALUES ('base', 'synced')")
        try Replica.sync([a!, b])
        clock.advance(by: -200_000)  // set back, before the backup
        let backup = try fileBytes(directory.path("a.db"))
        clock.advance(by: 1_000)
        try b.database.execute("INSERT INTO reminders (id, title) VALUES ('x', 'from b')")
        try Replica.sync([a!, b])
        a = nil
        try restore(backup, overWithSameInode: directory.url.appendingPathComponent("a.db"))
        clock.advance(by: 1_000)
        let restored = try Replica(path: directory.path("a.db"), configuration: configuration(node: 5, clock: clock))
        try restored.database.execute("INSERT INTO reminders (id, title) VALUES ('y', 'after the restore')")
        try restored.foldLocalWrites()
        try Replica.sync([restored, b])
        for replica in [restored, b] {
            #expect(try replica.database.query("SELECT id FROM reminders ORDER BY id") == [["base"], ["x"], ["y"]])
        }
        #expect(restored.nodeID == node(5))
    }

    /// A counter change made after a backup and synced, then lost with the file to a restore in place, counts
    /// once the restored file's app counts again before its next sync, in either order of that sync. (The
    /// restored file used to stamp its app's change under its old node id, over the lost one: 110, not 111.)
    @Test(arguments: [false, true])
    func aCounterChangeARestoreInPlaceLostIsKeptByThePeers(restoredExportsFirst: Bool) throws {
        let directory = TemporaryDirectory()
        let schema = "CREATE TABLE r (id TEXT PRIMARY KEY NOT NULL, n INTEGER)"
        func open(_ name: String, node id: UInt8) throws -> Replica {
            let replica = try Replica(path: directory.path(name), configuration: configuration(node: id, clock: clock))
            if replica.tables.isEmpty {
                try replica.database.execute(schema)
                try replica.enableSync(on: "r", merges: ["n": .counter])
            }
            return replica
        }
        let b = try open("b.db", node: 2)
        try restoreInPlace(
            try open("a.db", node: 1), in: directory, syncingWith: b, before: "INSERT INTO r VALUES ('r1', 10)",
            after: "UPDATE r SET n = n + 1")
        clock.advance(by: 1_000)
        let restored = try open("a.db", node: 5)
        try restored.database.execute("UPDATE r SET n = n + 100")
        if restoredExportsFirst {
            try b.apply(try restored.changes(since: try b.peerVersion(node(1))))
        } else {
            try restored.apply(try b.changes(since: try restored.peerVersion(node(2))))
        }
        try Replica.sync([restored, b])
        for replica in [restored, b] { #expect(try replica.database.scalar("SELECT n FROM r") == 111) }
    }

    // MARK: 5. Keys compared other than as bytes

    @Test(arguments: [
        "id TEXT COLLATE NOCASE PRIMARY KEY, name TEXT", "id TEXT, name TEXT, PRIMARY KEY (id COLLATE RTRIM)",
        "id TEXT PRIMARY KEY COLLATE NOCASE, name TEXT",
        "id TEXT COLLATE NOCASE, name TEXT, PRIMARY KEY (id COLLATE BINARY)",
    ])
    func aKeyUnderACollationOtherThanBinaryIsRefused(columns: String) throws {
        let replica = try Replica.inMemory()
        try replica.database.execute("CREATE TABLE people (\(columns))")
        #expect {
            try replica.enableSync(on: "people")
        } throws: { error in
            guard case ReplicaError.unsupportedTable(let table, let reason, _) = error else { return false }
            return table == "people" && reason.contains("collation")
        }
    }

    // MARK: 6. A changeset that changes while it is applied

    @Test func aChangesetThatIsNotTheSameOnItsSecondReadIsRefusedWhole() throws {
        let (a, b) = try pair(remindersSchema, tables: ["reminders"])
        try a.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'one'), ('r2', 'two')")
        let changes = try a.changes()
        var reads = 0
        let before = try b.canonicalDump()
        #expect(throws: ReplicaError.changesetChanged) {
            try b.apply(source: changes.source, since: changes.since, upTo: changes.upTo, tables: changes.tables) {
                reads += 1
                return (reads == 1 ? changes.rows : Array(changes.rows.prefix(1))).makeIterator()
            }
        }
        #expect(try b.canonicalDump() == before)
        #expect(try b.peerVersion(a.nodeID) == 0, "the read position did not move")
    }

    // MARK: 7. A schema changed under sync

    @Test func aColumnAddedToASyncedTableIsAdoptedAndItsWritesSync() throws {
        let (a, b) = try pair(remindersSchema, tables: ["reminders"])
        try a.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'one')")
        for replica in [a, b] { try replica.database.execute("ALTER TABLE reminders ADD COLUMN priority INTEGER") }
        try a.database.execute("UPDATE reminders SET title = 'kept', priority = 2 WHERE id = 'r1'")
        try Replica.sync([a, b])
        #expect(a.schemaRefusals.isEmpty)
        #expect(try b.database.query("SELECT title, priority FROM reminders") == [["kept", 2]], "no write is lost")
        try a.enableSync(on: "reminders")
    }

    @Test func aTableRebuiltByAMigrationIsReconciledByEnablingItAgain() throws {
        let (a, b) = try pair(remindersSchema, tables: ["reminders"])
        try a.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'one'), ('r2', 'two')")
        try Replica.sync([a, b])
        try a.database.execute(
            """
            CREATE TABLE reminders_new (id TEXT PRIMARY KEY NOT NULL, title TEXT, done INTEGER NOT NULL DEFAULT 0, notes TEXT);
            INSERT INTO reminders_new SELECT * FROM reminders;
            DROP TABLE reminders;
            ALTER TABLE reminders_new RENAME TO reminders;
            UPDATE reminders SET title = 'edited meanwhile' WHERE id = 'r1';
            DELETE FROM reminders WHERE id = 'r2';
            INSERT INTO reminders (id, title) VALUES ('r3', 'added meanwhile');
            """)
        try a.enableSync(on: "reminders")  // idempotent: the next fold would have done the same
        try Replica.sync([a, b])
        #expect(
            try b.database.query("SELECT id, title FROM reminders ORDER BY id")
                == [["r1", "edited meanwhile"], ["r3", "added meanwhile"]])
        #expect(try a.check().isConsistent && b.check().isConsistent)
        try a.database.execute("UPDATE reminders SET done = 1 WHERE id = 'r3'")
        try Replica.sync([a, b])
        #expect(try b.database.scalar("SELECT done FROM reminders WHERE id = 'r3'") == .integer(1), "capture is back")
    }

    // MARK: 8. User names equal to Concord's

    @Test func columnsAndTablesNamedLikeConcordsOwnSyncLikeAnyOther() throws {
        let schema = """
            CREATE TABLE a (id TEXT PRIMARY KEY NOT NULL, pk TEXT, ver, kh, cl, hlc, node, c0, h0, n0);
            CREATE TABLE a_key (id TEXT PRIMARY KEY NOT NULL, v);
            CREATE TABLE a_rows (id TEXT PRIMARY KEY NOT NULL, v);
            CREATE TABLE "1_rows" (id TEXT PRIMARY KEY NOT NULL, v);
            """
        let (a, b) = try pair(schema, tables: ["a", "a_key", "a_rows", "1_rows"])
        try a.database.execute(
            """
            INSERT INTO a VALUES ('x', 'p', 1, 2, 3, 4, 5, 6, 7, 8);
            INSERT INTO a_key VALUES ('x', 'key'); INSERT INTO a_rows VALUES ('x', 'rows'); INSERT INTO "1_rows" VALUES ('x', 1);
            """)
        try Replica.sync([a, b])
        #expect(try b.canonicalDump() == a.canonicalDump())
        #expect(try b.database.query("SELECT pk, ver, n0 FROM a") == [["p", 1, 8]])
        #expect(try a.check().isConsistent && b.check().isConsistent)
    }

    // MARK: 9. A check while another connection writes

    @Test func checkNeverReportsAWriteMadeBySomeoneElseMeanwhile() throws {
        let directory = TemporaryDirectory()
        let replica = try makeReplica(directory, "a.db", node: 1, clock: clock)
        try replica.database.execute("PRAGMA journal_mode = WAL")
        let path = directory.path("a.db")
        let writer = Thread {
            guard let database = try? Database(path: path) else { return }
            for n in 0..<400 { try? database.execute("INSERT INTO reminders (id, title) VALUES ('w\(n)', 'x')") }
        }
        writer.start()
        for _ in 0..<40 {
            let report = try replica.check()
            #expect(report.isConsistent, "\(report)")
        }
        while try replica.database.scalar("SELECT count(*) FROM reminders") != .integer(400) {
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(try replica.check().isConsistent)
    }

    // MARK: 10. Bytes SQL calls equal

    /// One statement of the update trigger logs the zeros of every untyped column (layout 20): each
    /// column's sign is still told apart, in one UPDATE that writes a zero over a zero in four of them.
    @Test func zerosWrittenOverZerosInSeveralColumnsAreToldApartColumnByColumn() throws {
        let (a, b) = try pair("CREATE TABLE m (id TEXT PRIMARY KEY NOT NULL, w, x, y, z);", tables: ["m"])
        try a.database.execute(
            "INSERT INTO m VALUES ('k', ?, ?, ?, ?)", [.real(0.0), .real(-0.0), .real(0.0), .real(-0.0)])
        try Replica.sync([a, b])
        let before = try #require(try a.registers(of: "m", key: .text("k"))).columns.map { $0?.stamp }
        clock.advance(by: 1)
        // w and z change sign, x and y keep theirs.
        try a.database.execute(
            "UPDATE m SET w = ?, x = ?, y = ?, z = ? WHERE id = 'k'",
            [.real(-0.0), .real(-0.0), .real(0.0), .real(0.0)])
        #expect(try a.foldLocalWrites() == 1)
        let after = try #require(try a.registers(of: "m", key: .text("k"))).columns.map { $0?.stamp }
        #expect(zip(before, after).map { $0 != $1 } == [true, false, false, true], "the columns whose sign changed")
        try a.database.execute(
            "UPDATE m SET w = ?, x = ?, y = ?, z = ? WHERE id = 'k'",
            [.real(-0.0), .real(-0.0), .real(0.0), .real(0.0)])
        #expect(try a.foldLocalWrites() == 0, "the same zeros again change nothing")
        try Replica.sync([a, b])
        let signs = try b.database.query("SELECT w, x, y, z FROM m")[0].map { value -> FloatingPointSign? in
            guard case .real(let number) = value else { return nil }
            return number.sign
        }
        #expect(signs == [.minus, .minus, .plus, .plus])
        #expect(try a.canonicalDump() == b.canonicalDump())
    }

    @Test func zeroToNegativeZeroInAnUntypedColumnIsAWrite() throws {
        let (a, b) = try pair("CREATE TABLE m (id TEXT PRIMARY KEY NOT NULL, x);", tables: ["m"])
        try a.database.execute("INSERT INTO m VALUES ('k', ?)", [.real(0.0)])
        try Replica.sync([a, b])
        clock.advance(by: 1)
        try a.database.execute("UPDATE m SET x = ? WHERE id = 'k'", [.real(-0.0)])
        #expect(try a.foldLocalWrites() == 1)
        try a.database.execute("UPDATE m SET x = ? WHERE id = 'k'", [.real(-0.0)])
        #expect(try a.foldLocalWrites() == 0, "writing the same -0.0 again changes nothing")
        try Replica.sync([a, b])
        let value = try #require(try b.database.scalar("SELECT x FROM m"))
        guard case .real(let x) = value else {
            Issue.record("\(value)")
            return
        }
        #expect(x.sign == .minus)
        #expect(try a.canonicalDump() == b.canonicalDump())
    }
}
