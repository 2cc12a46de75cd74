import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// A schema check tells names apart by their bytes, as SQLite does, even where Swift's `String` does not.
///
/// The process remembers which schemas it checked and found clean, so that reopening one skips the
/// inspection. That memory was keyed by `String`s, which take `Å` (U+00C5) and `Å` (U+212B) for the
/// same text: a replica whose app renamed a column from one to the other while it was closed reopened
/// as "already checked" when another replica of the process had the new name, and the rename went
/// unnoticed, though the declaration named a column the table no longer had.
@Suite(.tags(.replica))
struct EquivalentNameSchemaCheckTests {
    @Test func aRenameToACanonicallyEquivalentNameIsSeenAfterReopening() throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let schema = { (column: String) in "CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, \"\(column)\");" }
        // A replica with the new name is checked clean first.
        let other = try Replica(
            path: directory.path("other.sqlite"), configuration: configuration(node: 1, clock: clock))
        try other.database.execute(schema("\u{C5}"))
        try other.enableSync(on: "t")
        try other.foldLocalWrites()
        #expect(other.schemaRefusals.isEmpty)
        // The app of another database renames its column to that name while Concord is closed.
        var replica: Replica? = try Replica(
            path: directory.path("a.sqlite"), configuration: configuration(node: 2, clock: clock))
        try replica!.database.execute(schema("\u{212B}"))
        try replica!.enableSync(on: "t")
        replica = nil
        try Database(path: directory.path("a.sqlite")).execute("ALTER TABLE t RENAME COLUMN \"\u{212B}\" TO \"\u{C5}\"")
        replica = try Replica(path: directory.path("a.sqlite"), configuration: configuration(node: 2, clock: clock))
        try replica!.foldLocalWrites()
        #expect(replica!.schemaRefusals.count == 1)
        #expect("\(replica!.schemaRefusals.first.map { "\($0)" } ?? "")".contains("t"))
    }

    @Test func aNewColumnThatReadsAsAnExistingOneStopsTheTable() throws {
        let replica = try Replica.inMemory(
            configuration: configuration(node: 1, clock: ManualClock(unixMilliseconds: epoch2026)))
        try replica.database.execute("CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, \"\u{C5}\")")
        try replica.enableSync(on: "t")
        try replica.database.execute("ALTER TABLE t ADD COLUMN \"A\u{30A}\"; INSERT INTO t VALUES ('k', 1, 2)")
        try replica.foldLocalWrites()
        let refusal = replica.schemaRefusals.map { "\($0)" }.joined()
        #expect(
            refusal.contains(
                "its new column A\u{30A} and its column \u{C5} have different Unicode bytes (c385 and 41cc8a) "
                    + "that read as the same text"))
        #expect(refusal.contains("To fix: rename the new column A\u{30A}"))
        #expect(try replica.changes(since: 0).rows.isEmpty)
    }

    /// Two devices that added "the same" column spelled with other bytes: SQLite takes them for two, and
    /// each device kept the other's as a column it lacked, showing its own value for good with `check` ok.
    /// The changesets are refused, saying so.
    @Test func aPeersColumnThatReadsAsOneHereWithOtherBytesIsRefused() throws {
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let (a, b) = try (
            Replica.inMemory(configuration: configuration(node: 1, clock: clock)),
            Replica.inMemory(configuration: configuration(node: 2, clock: clock))
        )
        for (replica, name) in [(a, "caf\u{E9}"), (b, "cafe\u{301}")] {
            try replica.database.execute("CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, title TEXT)")
            try replica.enableSync(on: "t")
            try replica.database.execute("ALTER TABLE t ADD COLUMN \"\(name)\" TEXT")
        }
        try a.database.execute("INSERT INTO t VALUES ('r1', 'hello', 'a')")
        #expect {
            try b.apply(a.changes())
        } throws: { error in
            "\(error)".contains(
                "its column 'caf\u{E9}' and this replica's column 'cafe\u{301}' read as the same text with different "
                    + "Unicode bytes (636166c3a9 and 63616665cc81)")
        }
    }

    /// SQLite takes `ID` and `id` for one column, and so does a key's name in a changeset.
    @Test func aKeyColumnSpelledInOtherCaseIsTheSameKey() throws {
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let (a, b) = try (
            Replica.inMemory(configuration: configuration(node: 1, clock: clock)),
            Replica.inMemory(configuration: configuration(node: 2, clock: clock))
        )
        try a.database.execute("CREATE TABLE t (ID TEXT PRIMARY KEY NOT NULL, v TEXT)")
        try b.database.execute("CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, v TEXT)")
        for replica in [a, b] { try replica.enableSync(on: "t") }
        try a.database.execute("INSERT INTO t VALUES ('ka', 'a')")
        try b.database.execute("INSERT INTO t VALUES ('kb', 'b')")
        try Replica.sync([a, b])
        for replica in [a, b] {
            #expect(try replica.database.query("SELECT * FROM t ORDER BY 1") == [["ka", "a"], ["kb", "b"]])
        }
    }

    /// A column renamed only in ASCII case is the same column to SQLite: it keeps syncing, typed zeros and
    /// counters included (it was refused as dropped, and its facts were read as an untyped column's).
    @Test func aColumnRenamedInOtherCaseKeepsSyncing() throws {
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let (a, b) = try (
            Replica.inMemory(configuration: configuration(node: 1, clock: clock)),
            Replica.inMemory(configuration: configuration(node: 2, clock: clock))
        )
        for replica in [a, b] {
            try replica.database.execute(
                "CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, title TEXT, n, c INTEGER NOT NULL DEFAULT 0)")
            try replica.enableSync(on: "t", merges: ["c": .counter])
        }
        try a.database.execute("INSERT INTO t VALUES ('r1', 'x', 0.0, 1)")
        try Replica.sync([a, b])
        try b.database.execute(
            "ALTER TABLE t RENAME COLUMN title TO TITLE; ALTER TABLE t RENAME COLUMN n TO N; "
                + "ALTER TABLE t RENAME COLUMN c TO C")
        try b.database.execute("UPDATE t SET TITLE = 'y', N = -0.0, C = C + 2")
        try Replica.sync([a, b])
        #expect(b.schemaRefusals.isEmpty)
        for replica in [a, b] {
            let row = try replica.database.query("SELECT title, c FROM t").first
            #expect(row == ["y", 3])
            guard case .real(let zero) = try replica.database.scalar("SELECT n FROM t") else {
                Issue.record("n is not a real")
                continue
            }
            #expect(zero == 0 && zero.sign == .minus)
            #expect(try replica.check().isConsistent)
        }
    }
}
