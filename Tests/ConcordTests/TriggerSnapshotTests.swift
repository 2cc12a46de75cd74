import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// The SQL Concord installs in a user's database — capture triggers, guards, metadata tables and
/// indexes — compared with a checked-in snapshot, `Fixtures/Snapshots/triggers.sql`.
///
/// Every app write runs these triggers, and databases in the field keep them until Concord
/// upgrades them, so a change to their text should be one somebody meant: this test makes each
/// change show up as a diff in review.
///
/// When a change is deliberate, regenerate the snapshot and commit it with the change:
///
/// ```sh
/// CONCORD_UPDATE_SNAPSHOTS=1 swift test --filter TriggerSnapshotTests
/// git diff Tests/ConcordTests/Fixtures/Snapshots/triggers.sql
/// ```
///
/// With the variable set, the test rewrites the file instead of comparing, and fails once if that
/// changed it (so a run that rewrites snapshots never passes by accident); run it again without.
///
/// A union column's guard depends on the SQLite library (it calls `json_valid` from 3.41 on, see
/// `CaptureTriggers.scalarJSONInTriggers`), so the snapshot holds both forms whatever library runs the
/// test: the installed SQL with the guards an older SQLite gets, then the guards 3.41 and later get.
/// Taken as installed, it failed on every newer library (macOS's, iOS's, Debian 13's).
@Suite("Snapshot of the installed SQL", .tags(.replica, .snapshot))
struct TriggerSnapshotTests {
    static let snapshot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Snapshots/triggers.sql")

    /// One table for each kind of SQL the triggers are generated from.
    static let schema = """
        -- Column policy; the parent of a foreign key.
        CREATE TABLE lists (id TEXT PRIMARY KEY NOT NULL, title TEXT);
        -- A foreign key (ON DELETE CASCADE), INTEGER columns, a counter and a union column.
        CREATE TABLE items (
            id TEXT PRIMARY KEY NOT NULL,
            list TEXT REFERENCES lists(id) ON DELETE CASCADE,
            title TEXT,
            done INTEGER NOT NULL DEFAULT 0,
            likes INTEGER NOT NULL DEFAULT 0,
            tags TEXT
        );
        -- Row policy, with an INTEGER and a REAL column.
        CREATE TABLE settings (id TEXT PRIMARY KEY NOT NULL, theme TEXT, size INTEGER, ratio REAL);
        -- A BLOB key; an untyped column (which keeps every type, and -0.0 apart from 0.0) and a NUMERIC one.
        CREATE TABLE attachments (id BLOB PRIMARY KEY, payload, size NUMERIC);
        -- An untyped key, and a max column.
        CREATE TABLE scores (id PRIMARY KEY, best INTEGER);
        """

    /// `name` and `sql` of every object Concord made, in name order, as one SQL text.
    static func installedSQL(_ database: Database) throws -> String {
        let rows = try database.query(
            #"""
            SELECT name, sql FROM sqlite_schema
            WHERE type IN ('trigger', 'table', 'index') AND name LIKE '\_concord\_%' ESCAPE '\'
            ORDER BY name
            """#)
        let header = """
            -- The SQL Concord installs for the tables of Tests/ConcordTests/TriggerSnapshotTests.swift,
            -- in name order. Generated: CONCORD_UPDATE_SNAPSHOTS=1 swift test --filter TriggerSnapshotTests


            """
        return header
            + rows.map { row in
                "-- \(row[0].textValue ?? "?")\n" + (row[1].textValue.map { $0 + ";" } ?? "-- (no SQL)") + "\n"
            }.joined(separator: "\n")
    }

    @Test func theInstalledSQLMatchesTheSnapshot() throws {
        let directory = TemporaryDirectory()
        let replica = try Replica(
            path: directory.path("snapshot.sqlite"),
            configuration: configuration(node: 1, clock: ManualClock(unixMilliseconds: epoch2026)))
        try replica.database.execute(Self.schema)
        try replica.enableSync(on: "lists")
        try replica.enableSync(on: "items", merges: ["likes": .counter, "tags": .union])
        try replica.enableSync(on: "settings", policy: .row)
        try replica.enableSync(on: "attachments")
        try replica.enableSync(on: "scores", merges: ["best": .max])
        let items = try #require(replica.syncedTables["items"])
        var guards = try replica.captureTriggers(for: items, facts: replica.facts(of: items))
        guards.scalarJSONInTriggers = false
        try replica.database.execute(
            guards.dropValueGuardsSQL + "\n" + guards.valueGuardTriggers.joined(separator: "\n"))
        guards.scalarJSONInTriggers = true
        let newerGuards = guards.valueGuardTriggers.map { CaptureTriggers.storedSQL($0) + ";\n" }
        let sql =
            try Self.installedSQL(replica.database)
            + "\n-- The union guards of items.tags where SQLite is 3.41 or later\n\n"
            + newerGuards.joined(separator: "\n")
        #expect(sql.contains("CREATE TRIGGER"), "the query found Concord's triggers")
        expectSnapshot(sql, matches: Self.snapshot, filter: "TriggerSnapshotTests")
    }

    /// What a failure shows: the lines that changed, with line numbers and a little context.
    @Test func aDifferenceIsShownAsAUnifiedDiff() {
        let old = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight"
        let new = "one\ntwo\nTHREE\nfour\nfive\nsix\nseven\neight\nnine"
        #expect(
            unifiedDiff(old, new) == """
                @@ snapshot line 1, now line 1 @@
                 one
                 two
                -three
                +THREE
                 four
                 five
                @@ snapshot line 7, now line 7 @@
                 seven
                 eight
                +nine
                """)
    }
}
