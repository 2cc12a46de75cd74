import ConcordTestSupport
import Testing

@testable import Concord

/// The rows a table rebuild copies are dated when Concord last looked at the table, not when it noticed
/// the rebuild.
///
/// A black-box probe rebuilt a table on one device the way SQLite documents for schema changes (create
/// the new table, copy the rows, drop the old one, rename) to add a CHECK; the other device then edited
/// a row. Concord saw the rebuild at the next sync and recorded every copied value as written then: the
/// copy, never changed, beat the later edit on both devices, while `check` said ok.
@Suite(.tags(.replica))
struct RebuildReconcileTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    private func pair() throws -> [Replica] {
        let replicas = try inMemoryReplicas(2, clock: clock) { replica, _ in
            try replica.database.execute("CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, v, w)")
            try replica.enableSync(on: "t")
        }
        try replicas[0].database.execute("INSERT INTO t VALUES ('r1', 'orig', 'w0'), ('r2', 'kept', 'w0')")
        try Replica.sync(replicas)
        return replicas
    }

    /// `t` rebuilt with a CHECK, copying `values` of each row.
    private static func rebuild(copying values: String = "*") -> String {
        rebuildSQL("t", columns: "id TEXT PRIMARY KEY NOT NULL, v CHECK (length(v) < 100), w", copying: values)
    }

    @Test func anEditMadeAfterAnotherDeviceRebuiltTheTableWins() throws {
        let replicas = try pair()
        clock.advance(by: 1_000)
        try replicas[0].database.execute(Self.rebuild())
        clock.advance(by: 1_000)
        try replicas[1].database.execute("UPDATE t SET v = 'edited after the rebuild' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(
                try replica.database.query("SELECT id, v, w FROM t ORDER BY id") == [
                    ["r1", "edited after the rebuild", "w0"], ["r2", "kept", "w0"],
                ])
            #expect(try replica.check().isConsistent)
        }
        // The copy is this device's write, concurrent with the edit: the edit's device lists it as the loser.
        #expect(
            try replicas[1].conflicts().map { "\($0.column) \($0.lost) lost to \($0.winner.map { "\($0)" } ?? "-")" }
                == ["v 'orig' lost to 'edited after the rebuild'"])
    }

    /// What the migration itself changed while copying is still the rebuilding device's write, and
    /// reaches the other device.
    @Test func aValueTheMigrationChangedReachesTheOtherDevice() throws {
        let replicas = try pair()
        clock.advance(by: 1_000)
        try replicas[0].database.execute(
            Self.rebuild(copying: "id, upper(v), w"))
        clock.advance(by: 1_000)
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(try replica.database.query("SELECT v FROM t ORDER BY id") == [["ORIG"], ["KEPT"]])
        }
    }
}

/// A row parked for a constraint the rebuilt table no longer has shows once the rebuild is noticed.
@Suite(.tags(.replica))
struct RebuildRelaxedConstraintTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    @Test func aRowParkedForADroppedCheckShowsAfterTheRebuild() throws {
        let replicas = try inMemoryReplicas(["", " CHECK (n < 100)"].count, clock: clock) { replica, index in
            let check = ["", " CHECK (n < 100)"][index]
            try replica.database.execute("CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, n INTEGER\(check))")
            try replica.enableSync(on: "t")
        }
        try replicas[0].database.execute("INSERT INTO t VALUES ('a', 200), ('b', 1)")
        try Replica.sync(replicas)
        #expect(try replicas[1].database.query("SELECT id FROM t ORDER BY id") == [["b"]])
        clock.advance(by: 1_000)
        try replicas[1].database.execute(
            """
            BEGIN;
            CREATE TABLE t_new (id TEXT PRIMARY KEY NOT NULL, n INTEGER);
            INSERT INTO t_new SELECT * FROM t;
            DROP TABLE t;
            ALTER TABLE t_new RENAME TO t;
            COMMIT;
            """)
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(try replica.database.query("SELECT id, n FROM t ORDER BY id") == [["a", 200], ["b", 1]])
            let report = try replica.check()
            #expect(report.isConsistent, "\(report)")
        }
    }
}

/// A rebuild copies the stand-in a child shows for a parent that is not visible (NULL under `SET NULL`);
/// the copy is not the device's write, so the child's reference comes back with its parent.
@Suite(.tags(.replica))
struct RebuildStandInTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    @Test func aStandInCopiedByARebuildKeepsTheReference() throws {
        let child =
            "CREATE TABLE c (id TEXT PRIMARY KEY NOT NULL, pid TEXT REFERENCES p(id) ON DELETE SET NULL, w TEXT)"
        let replicas = try inMemoryReplicas(2, clock: clock) { replica, _ in
            try replica.database.execute("CREATE TABLE p (id TEXT PRIMARY KEY NOT NULL); " + child)
            try replica.enableSync(on: "p")
            try replica.enableSync(on: "c")
        }
        try replicas[0].database.execute("INSERT INTO p VALUES ('p1'); INSERT INTO c VALUES ('c1', 'p1', 'w')")
        try Replica.sync(replicas)
        clock.advance(by: 10)
        // Deleted with foreign keys off: the child keeps its reference and shows NULL in its place.
        try replicas[0].database.execute("DELETE FROM p WHERE id = 'p1'")
        try Replica.sync(replicas)
        #expect(try replicas[1].database.query("SELECT id, pid FROM c") == [["c1", .null]])
        clock.advance(by: 1_000)
        try replicas[1].database.execute(
            "BEGIN; "
                + child.replacingOccurrences(of: "TABLE c", with: "TABLE c_new").replacingOccurrences(
                    of: "w TEXT)", with: "w TEXT CHECK (length(w) < 10))")
                + "; INSERT INTO c_new SELECT * FROM c; DROP TABLE c; "
                + "ALTER TABLE c_new RENAME TO c; COMMIT")
        try Replica.sync(replicas)
        clock.advance(by: 10)
        try replicas[0].database.execute("INSERT INTO p VALUES ('p1')")
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(try replica.database.query("SELECT id, pid FROM c") == [["c1", "p1"]])
            let report = try replica.check()
            #expect(report.isConsistent, "\(report)")
        }
    }
}

/// Writes made between a table rebuild and Concord's next look reach the registers of value-merged columns
/// too, when the row also had a write from before the rebuild waiting in the capture log.
///
/// Folding that earlier write showed its joins (the counter's sum, the max, the union) over the table,
/// where the app's later writes were: a counter bumped by 5, rebuilt, bumped by 2, showed 5 on every
/// device, with `check` ok.
@Suite(.tags(.replica))
struct RebuildReconcileJoinTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    @Test func writesAfterARebuildAreJoinedWithTheWriteBeforeIt() throws {
        let replicas = try inMemoryReplicas(2, clock: clock) { replica, _ in
            try replica.database.execute(
                "CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL DEFAULT 0, m, u TEXT NOT NULL DEFAULT '[]')"
            )
            try replica.enableSync(on: "t", merges: ["n": .counter, "m": .max, "u": .union])
        }
        try replicas[0].database.execute("INSERT INTO t (id, m) VALUES ('a', 1)")
        try Replica.sync(replicas)
        clock.advance(by: 10)
        try replicas[0].database.execute(
            """
            UPDATE t SET n = n + 5, m = 7, u = json_insert(u, '$[#]', 'x') WHERE id = 'a';
            BEGIN;
            CREATE TABLE t_new (id TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL DEFAULT 0, m CHECK (m >= 0),
                u TEXT NOT NULL DEFAULT '[]');
            INSERT INTO t_new SELECT * FROM t;
            DROP TABLE t;
            ALTER TABLE t_new RENAME TO t;
            COMMIT;
            UPDATE t SET n = n + 2, m = 9, u = json_insert(u, '$[#]', 'y') WHERE id = 'a';
            """)
        try replicas[1].database.execute("UPDATE t SET n = n + 10, u = json_insert(u, '$[#]', 'z') WHERE id = 'a'")
        clock.advance(by: 10)
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(try replica.database.query("SELECT n, m, u FROM t") == [[17, 9, #"["x","y","z"]"#]])
            let report = try replica.check()
            #expect(report.isConsistent, "\(report)")
        }
    }
}

/// A row that left its table with nothing capturing it (deleted between a table rebuild and Concord's next
/// look) keeps no made-up value in a `min` column: inserted again anywhere, it shows the minimum of both
/// lives. Its registers used to keep NULL under the stamp of the value it held, and `min`, taking NULL for
/// the smallest value, showed NULL on every device for good, `check` ok.
@Suite(.tags(.replica))
struct RebuildLostRowJoinTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    @Test func aMinColumnOfARowDeletedUncapturedKeepsItsEarlierLife() throws {
        let schema = "CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, mx, mn)"
        let replicas = try inMemoryReplicas(2, clock: clock) { replica, _ in
            try replica.database.execute(schema)
            try replica.enableSync(on: "t", merges: ["mx": .max, "mn": .min])
        }
        try replicas[0].database.execute("INSERT INTO t VALUES ('k', 5, X'FF')")
        try Replica.sync(replicas)
        clock.advance(by: 10)
        try replicas[1].database.execute(
            """
            BEGIN;
            CREATE TABLE t_new (id TEXT PRIMARY KEY NOT NULL, mx, mn);
            INSERT INTO t_new SELECT * FROM t;
            DROP TABLE t;
            ALTER TABLE t_new RENAME TO t;
            COMMIT;
            DELETE FROM t WHERE id = 'k';
            """)
        try replicas[1].foldLocalWrites()  // the delete, made as the rebuilt table's triggers were gone
        clock.advance(by: 10)
        try replicas[1].database.execute("INSERT INTO t VALUES ('k', 1, 1)")
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(try replica.database.query("SELECT mx, mn FROM t") == [[5, 1]])
            let report = try replica.check()
            #expect(report.isConsistent, "\(report)")
        }
    }
}
