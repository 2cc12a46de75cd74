import ConcordTestSupport
import Testing

@testable import Concord

/// A write of a row whose TEXT key reads as a number is captured under that key, with foreign keys on.
///
/// SQLite 3.40 looks a row's children up through an index on their column — the one Concord makes, or
/// the app's own — and first applies that column's affinity to the key where the capture triggers
/// read it: when a row is deleted, when an UPDATE assigns the key (as ORMs do, to the same value), and
/// when an INSERT meets a pending violation. The key `'01'` of a row an INTEGER column references
/// reached the triggers as `1`; logged so, the write named no row Concord could sync and was lost (a
/// deleted row came back on the next sync) while `check` found the table and registers apart.
@Suite(.tags(.replica))
struct NumericTextKeyTests {
    /// Two replicas of folders (TEXT key) with subfolders through an INTEGER column, foreign keys enforced;
    /// `options` end the table's definition (`WITHOUT ROWID`), `appSQL` runs before sync is enabled.
    static func pair(
        action: String = "CASCADE", options: String = "", extraColumn: String = "", before appSQL: String = ""
    ) throws -> [Replica] {
        let clock = ManualClock(unixMilliseconds: epoch2026)
        return try (1...2).map { node in
            let replica = try Replica.inMemory(configuration: configuration(node: UInt8(node), clock: clock))
            try replica.database.execute(
                """
                PRAGMA foreign_keys = ON;
                CREATE TABLE folders (id TEXT PRIMARY KEY NOT NULL, name\(extraColumn),
                    parent INTEGER REFERENCES folders(id) ON DELETE \(action)) \(options);
                \(appSQL)
                """)
            try replica.enableSync(on: "folders")
            return replica
        }
    }

    static func keys(_ replica: Replica) throws -> [String] {
        try replica.database.query("SELECT quote(id) FROM folders ORDER BY id").map { $0[0].textValue ?? "?" }
    }

    @Test(arguments: ["'01'", "'1'", "' 7 '", "'1e5'", "'-2.50'", "'+3'"])
    func aDeleteOfAKeyThatReadsAsANumberReachesEveryDevice(key: String) throws {
        let replicas = try Self.pair()
        try replicas[0].database.execute("INSERT INTO folders VALUES (\(key), 'inbox', NULL), ('u', 'other', NULL)")
        try Replica.sync(replicas)
        try replicas[1].database.execute("DELETE FROM folders WHERE id = \(key)")
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(try Self.keys(replica) == ["'u'"])
            #expect(try replica.registers(of: "folders", key: "u")?.liveness.isAlive == true)
            #expect(try replica.check().isConsistent)
            #expect(try replica.database.scalar("SELECT count(*) FROM _concord_keys") == .integer(0))
        }
    }

    /// Keys that read as the same number, deleted in one statement.
    @Test func keysOfOneNumberDeletedTogetherAreEachCaptured() throws {
        let replicas = try Self.pair()
        try replicas[0].database.execute(
            "INSERT INTO folders VALUES ('1', 'a', NULL), ('01', 'b', NULL), ('1.0', 'c', NULL), ('x', 'd', NULL)")
        try Replica.sync(replicas)
        try replicas[1].database.execute("DELETE FROM folders WHERE id IN ('1', '01', '1.0')")
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(try Self.keys(replica) == ["'x'"])
            for key in ["1", "01", "1.0"] {
                #expect(try replica.registers(of: "folders", key: .text(key))?.liveness.isAlive == false, "\(key)")
            }
            #expect(try replica.check().isConsistent)
        }
    }

    /// Children the cascade deletes while their parent's delete is under way, through two generations,
    /// their keys numbers too: each delete reads its own key back.
    @Test func aCascadeThroughKeysThatReadAsNumbersIsCaptured() throws {
        let replicas = try Self.pair()
        try replicas[0].database.execute(
            """
            INSERT INTO folders VALUES ('1', 'root', NULL), ('x', 'other', NULL);
            INSERT INTO folders VALUES ('2', 'child', 1), ('3', 'grandchild', 2), ('y', 'grandchild too', 2);
            """)
        try Replica.sync(replicas)
        try replicas[1].database.execute("DELETE FROM folders WHERE id = '1'")
        #expect(try Self.keys(replicas[1]) == ["'x'"])
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(try Self.keys(replica) == ["'x'"])
            for key in ["1", "2", "3", "y"] {
                #expect(try replica.registers(of: "folders", key: .text(key))?.liveness.isAlive == false, "\(key)")
            }
            #expect(try replica.check().isConsistent)
        }
    }

    /// A delete the app's own trigger vetoes (made before sync was enabled, it fires after Concord's)
    /// leaves the key Concord kept behind; the next fold clears it, and the next delete of another key
    /// reads its own.
    @Test func aVetoedDeleteLeavesNothingThatLaterDeletesRead() throws {
        let veto =
            "CREATE TRIGGER keep_five BEFORE DELETE ON folders WHEN OLD.id = '5' BEGIN SELECT RAISE(IGNORE); END;"
        let replicas = try Self.pair(action: "SET NULL", before: veto)
        let phone = replicas[0]
        try phone.database.execute(
            "INSERT INTO folders VALUES ('5', 'kept', NULL), ('6', 'gone', NULL), ('c', 'child', 6)")
        _ = try phone.foldLocalWrites()
        try phone.database.execute("DELETE FROM folders WHERE id = '5'")
        #expect(try phone.database.scalar("SELECT count(*) FROM _concord_keys") != .integer(0))
        try phone.database.execute("DELETE FROM folders WHERE id = '6'")
        _ = try phone.foldLocalWrites()
        #expect(try phone.database.scalar("SELECT count(*) FROM _concord_keys") == .integer(0))
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(try Self.keys(replica) == ["'5'", "'c'"])
            #expect(try replica.registers(of: "folders", key: "6")?.liveness.isAlive == false)
            #expect(try replica.check().isConsistent)
        }
    }

    /// The shapes a table's rowid can take for the triggers: there, named otherwise, or absent.
    static let shapes: [(options: String, extraColumn: String)] = [
        ("", ""), ("", ", rowid, oid"), ("WITHOUT ROWID", ""),
    ]

    /// An ORM saves every column, the key included, to the value it had.
    @Test(arguments: 0..<3)
    func anUpdateThatAssignsTheKeyItHadReachesEveryDevice(shape: Int) throws {
        let replicas = try Self.pair(options: Self.shapes[shape].options, extraColumn: Self.shapes[shape].extraColumn)
        try replicas[0].database.execute(
            "INSERT INTO folders (id, name, parent) VALUES ('1', 'root', NULL), ('01', 'other', NULL), ('2', 'c', 1)")
        try Replica.sync(replicas)
        try replicas[1].database.execute(
            "UPDATE folders SET id = '1', name = 'renamed' WHERE id = '1'; "
                + "UPDATE folders SET id = id, name = 'renamed too' WHERE id = '01'")
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(
                try replica.database.query("SELECT id, name FROM folders ORDER BY id").map { "\($0[0]) \($0[1])" }
                    == ["'01' 'renamed too'", "'1' 'renamed'", "'2' 'c'"])
            #expect(try replica.check().isConsistent)
            #expect(try replica.database.scalar("SELECT count(*) FROM _concord_keys") == .integer(0))
        }
    }

    /// With deferred foreign keys, an app inserts a child before its parent in one transaction: SQLite
    /// converts the parent's key when it finds the child waiting for it.
    @Test(arguments: 0..<3)
    func aParentInsertedAfterItsChildWithDeferredKeysReachesEveryDevice(shape: Int) throws {
        let replicas = try Self.pair(options: Self.shapes[shape].options, extraColumn: Self.shapes[shape].extraColumn)
        try replicas[0].database.execute(
            """
            PRAGMA defer_foreign_keys = ON;
            BEGIN;
            INSERT INTO folders (id, name, parent) VALUES ('c', 'child', 7);
            INSERT INTO folders (id, name, parent) VALUES ('7', 'parent', NULL);
            COMMIT;
            """)
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(try Self.keys(replica) == ["'7'", "'c'"])
            #expect(try replica.status().parked.isEmpty)
            #expect(try replica.check().isConsistent)
        }
    }
}
