import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// A device whose schema lacks a newer peer's columns or tables keeps them, relays them, and shows them once it
/// migrates, with nothing sent again.
@Suite("Relaying what a schema lacks", .tags(.replica), .timeLimit(.hangGuard))
struct RelayTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    static let lists = """
        CREATE TABLE lists (id TEXT PRIMARY KEY NOT NULL, name TEXT);
        CREATE TABLE reminders (
            id TEXT PRIMARY KEY NOT NULL, list TEXT REFERENCES lists(id) ON DELETE CASCADE, title TEXT);
        """
    static let notes = """
        CREATE TABLE notes (
            id TEXT PRIMARY KEY NOT NULL, reminder TEXT REFERENCES reminders(id) ON DELETE CASCADE, body TEXT);
        """

    /// Three devices on the lists app, synced with `policy`; device 0 then migrates with `migration`.
    private func devices(policy: TablePolicy = .column, migration: String) throws -> [Replica] {
        let devices = try (1...3).map { node in
            try Replica.inMemory(configuration: configuration(node: UInt8(node), clock: clock))
        }
        for device in devices {
            try device.database.execute(Self.lists)
            try device.enableSync(on: "lists", policy: policy)
            try device.enableSync(on: "reminders", policy: policy)
        }
        try devices[0].database.execute(migration)
        return devices
    }

    /// `to` applies what it has not read of `from`.
    private func pass(_ from: Replica, _ to: Replica) throws {
        let report = try to.apply(from.changes(since: to.peerVersion(from.nodeID)))
        #expect(report.heldBack == 0)
    }

    private func shown(_ replica: Replica, _ sql: String) throws -> [[SQLiteValue]] {
        try replica.database.query(sql)
    }

    @Test(arguments: [TablePolicy.column, .row])
    func aNewColumnTravelsThroughAnOlderDeviceAndShowsWhenTheThirdUpgrades(policy: TablePolicy) throws {
        let migration = "ALTER TABLE reminders ADD COLUMN priority INTEGER NOT NULL DEFAULT 0"
        let d = try devices(policy: policy, migration: migration)
        try d[0].database.execute(
            "INSERT INTO lists VALUES ('l1', 'home'); INSERT INTO reminders VALUES ('r1', 'l1', 'milk', 5)")
        try pass(d[0], d[1])
        clock.advance(by: 1000)
        // The older device edits another column of the row, and is the only link to the third.
        try d[1].database.execute("UPDATE reminders SET title = 'oat milk' WHERE id = 'r1'")
        try pass(d[1], d[2])
        #expect(try shown(d[2], "SELECT id, list, title FROM reminders") == [["r1", "l1", "oat milk"]])
        // The third upgrades: the value shows with no re-send.
        try d[2].database.execute(migration)
        #expect(try d[2].foldLocalWrites() == 0)
        #expect(try shown(d[2], "SELECT title, priority FROM reminders") == [["oat milk", 5]])
        try d[1].database.execute(migration)
        try Replica.sync(d)
        for device in d {
            #expect(try shown(device, "SELECT title, priority FROM reminders") == [["oat milk", 5]])
            #expect(try device.check().isConsistent)
        }
        #expect(try d[0].canonicalDump() == d[1].canonicalDump())
        #expect(try d[0].canonicalDump() == d[2].canonicalDump())
    }

    /// The value a migration shows is a change the app must hear of: the row is listed as changed.
    @Test func aRelayedValueTheMigrationShowsIsListedAsChanged() throws {
        let migration = "ALTER TABLE reminders ADD COLUMN priority INTEGER NOT NULL DEFAULT 0"
        let d = try devices(migration: migration)
        try d[0].database.execute(
            "INSERT INTO lists VALUES ('l1', 'home'); INSERT INTO reminders VALUES ('r1', 'l1', 'milk', 5)")
        try pass(d[0], d[1])
        let seen = try d[1].changedRows(since: 0).upTo
        try d[1].database.execute(migration)
        let changed = try d[1].changedRows(since: seen)
        #expect(changed.rows.map(\.key) == ["r1"])
        #expect(changed.upTo > seen)
        #expect(try shown(d[1], "SELECT priority FROM reminders") == [[5]])
        #expect(try d[1].check().isConsistent)
        // Peers get the row again with the next export, and it changes nothing there.
        let before = try d[0].version
        try pass(d[1], d[0])
        #expect(try d[0].changedRows(since: before).rows.isEmpty)
        #expect(try d[0].canonicalDump() == d[1].canonicalDump())
    }

    /// Migrations.md's recipe for renaming a column: add it, let Concord look, copy into the rows that have
    /// none. Edits made to the new column on a device that migrated first survive a later device's copy
    /// (without the look, the copy replaces them on every device).
    @Test func theRenameRecipeKeepsEditsMadeWhereTheColumnCameFirst() throws {
        let d = try devices(migration: "ALTER TABLE reminders ADD COLUMN name TEXT")
        func copy(_ device: Replica) throws {
            try device.foldLocalWrites()
            try device.database.execute("UPDATE reminders SET name = title WHERE name IS NULL")
        }
        try d[1].database.execute(
            "INSERT INTO lists VALUES ('l1', 'home'); INSERT INTO reminders VALUES ('r1', 'l1', 'milk')")
        try Replica.sync(d)
        try copy(d[0])
        clock.advance(by: 1000)
        try d[0].database.execute("UPDATE reminders SET name = 'oat milk' WHERE id = 'r1'")
        try Replica.sync(d)
        clock.advance(by: 1000)
        for device in d[1...] {
            try device.database.execute("ALTER TABLE reminders ADD COLUMN name TEXT")
            try copy(device)
        }
        try Replica.sync(d)
        for device in d {
            #expect(try shown(device, "SELECT title, name FROM reminders") == [["milk", "oat milk"]])
        }
    }

    /// A column this device relayed as a counter is adopted as one when its app adds it: adopted as `lww`,
    /// the two sides refused each other's changesets for good, every table of them.
    @Test func aRelayedCounterColumnIsAdoptedAsACounter() throws {
        let d = try devices(migration: "ALTER TABLE reminders ADD COLUMN views INTEGER NOT NULL DEFAULT 0")
        try d[0].enableSync(on: "reminders", merges: ["views": .counter])
        try d[0].database.execute(
            "INSERT INTO lists VALUES ('l1', 'home'); INSERT INTO reminders VALUES ('r1', 'l1', 'milk', 3)")
        try Replica.sync(d)
        try d[1].database.execute("ALTER TABLE reminders ADD COLUMN views INTEGER NOT NULL DEFAULT 0")
        try d[1].foldLocalWrites()
        #expect(d[1].syncedTable(named: "reminders")?.merges.last == .counter)
        try d[1].database.execute("UPDATE reminders SET views = views + 2; INSERT INTO lists VALUES ('l2', 'work')")
        try d[0].database.execute("UPDATE reminders SET views = views + 1")
        try Replica.sync(Array(d[0...1]))
        for device in d[0...1] {
            #expect(try shown(device, "SELECT views FROM reminders") == [[6]])
            #expect(try shown(device, "SELECT id FROM lists ORDER BY id") == [["l1"], ["l2"]])
        }
        // With a DEFAULT other than 0 here, the counter's rows would show a base no device added: refused.
        try d[2].database.execute("ALTER TABLE reminders ADD COLUMN views INTEGER NOT NULL DEFAULT 5")
        try d[2].foldLocalWrites()
        let refusal = d[2].schemaRefusals.map { "\($0)" }.joined()
        #expect(refusal.contains("its new column views is a counter on the devices that added it first"))
        #expect(refusal.contains("drop the column and add it again with DEFAULT 0"))
        try d[2].database.execute(
            "ALTER TABLE reminders DROP COLUMN views; ALTER TABLE reminders ADD COLUMN views INTEGER NOT NULL DEFAULT 0"
        )
        try Replica.sync(d)
        #expect(d[2].schemaRefusals.isEmpty)
        #expect(try shown(d[2], "SELECT views FROM reminders") == [[6]])
    }

    /// A table this device kept its peers' rows of is enabled as they declare it; enabled otherwise, the
    /// refusal says what they declare and how to enable it so (it read as an import's: "the changeset merges
    /// table ...; nothing was applied").
    @Test func enablingAKeptTableOtherwiseThanThePeersSaysHowTheyDeclareIt() throws {
        let d = try devices(migration: RelayTests.notes)
        try d[0].enableSync(on: "notes", policy: .row)
        try d[0].database.execute(
            """
            INSERT INTO lists VALUES ('l1', 'home'); INSERT INTO reminders VALUES ('r1', 'l1', 'milk');
            INSERT INTO notes VALUES ('n1', 'r1', 'two litres');
            """)
        try Replica.sync(d)
        try d[1].database.execute(RelayTests.notes)
        #expect {
            try d[1].enableSync(on: "notes")
        } throws: { error in
            "\(error)".contains("its peers declare it row policy, and this enable declares column policy")
                && "\(error)".contains(
                    "concord enable DB --table notes:row, or in Swift enableSync(on: \"notes\", policy: .row)")
        }
        try d[1].enableSync(on: "notes", policy: .row)
        #expect(try shown(d[1], "SELECT id, body FROM notes") == [["n1", "two litres"]])
    }

    /// Rows kept for a table this device lacked passed the drift check when they came; a clock set back
    /// since must not refuse them when the migration takes them up (the upgrade failed on that).
    @Test func keptRowsAreTakenUpAfterTheClockWasSetBack() throws {
        let ahead = ManualClock(unixMilliseconds: epoch2026 + 240_000)
        let newer = try Replica.inMemory(configuration: configuration(node: 1, clock: ahead))
        let older = try Replica.inMemory(configuration: configuration(node: 2, clock: clock))
        try newer.database.execute(Self.lists + Self.notes)
        for table in ["lists", "reminders", "notes"] { try newer.enableSync(on: table) }
        try older.database.execute(Self.lists)
        for table in ["lists", "reminders"] { try older.enableSync(on: table) }
        try newer.database.execute(
            "INSERT INTO lists VALUES ('l1', 'home'); INSERT INTO reminders VALUES ('r1', 'l1', 'milk'); "
                + "INSERT INTO notes VALUES ('n1', 'r1', 'oat')")
        try pass(newer, older)
        clock.advance(by: -600_000)
        try older.database.execute(Self.notes)
        try older.enableSync(on: "notes")
        #expect(try shown(older, "SELECT id, body FROM notes") == [["n1", "oat"]])
        #expect(try older.check().isConsistent)
    }

    @Test func anOlderDevicesConcurrentRowPolicyEditCarriesTheColumnItLacks() throws {
        let migration = "ALTER TABLE reminders ADD COLUMN priority INTEGER"
        let d = try devices(policy: .row, migration: migration)
        try d[0].database.execute(
            "INSERT INTO lists VALUES ('l1', 'home'); INSERT INTO reminders VALUES ('r1', 'l1', 'milk', 5)")
        try pass(d[0], d[1])
        clock.advance(by: 1000)
        // The older device's edit wins the row: it supplies the whole row, priority included, as it knew it.
        try d[1].database.execute("UPDATE reminders SET title = 'tea' WHERE id = 'r1'")
        try pass(d[1], d[0])
        #expect(try shown(d[0], "SELECT title, priority FROM reminders") == [["tea", 5]])
    }

    @Test func aNewTableWithAForeignKeyWaitsOnAnOlderDeviceAndCascadesOnceItIsThere() throws {
        let d = try devices(migration: Self.notes)
        try d[0].enableSync(on: "notes")
        try d[0].database.execute(
            """
            INSERT INTO lists VALUES ('l1', 'home'); INSERT INTO reminders VALUES ('r1', 'l1', 'milk');
            INSERT INTO notes VALUES ('n1', 'r1', 'the oat one'), ('n2', 'r1', 'two');
            """)
        try pass(d[0], d[1])
        try pass(d[1], d[2])
        for device in d[1...] {
            #expect(try shown(device, "SELECT id FROM reminders") == [["r1"]])
        }
        // The third adds the table: the rows appear.
        try d[2].database.execute(Self.notes)
        try d[2].enableSync(on: "notes")
        #expect(
            try shown(d[2], "SELECT id, reminder, body FROM notes ORDER BY id") == [
                ["n1", "r1", "the oat one"], ["n2", "r1", "two"],
            ])
        // A delete of the old grandparent on the older device cascades everywhere.
        clock.advance(by: 1000)
        try d[1].database.execute("DELETE FROM lists WHERE id = 'l1'")
        try d[1].database.execute(Self.notes)
        try d[1].enableSync(on: "notes")
        try Replica.sync(d)
        for device in d {
            #expect(try shown(device, "SELECT count(*) FROM notes") == [[0]])
            #expect(try shown(device, "SELECT count(*) FROM reminders") == [[0]])
            #expect(try device.check().isConsistent)
        }
        #expect(try d[0].canonicalDump() == d[2].canonicalDump())
    }

    @Test func aCounterColumnKeepsEveryDevicesContribution() throws {
        let d = try devices(migration: "ALTER TABLE lists ADD COLUMN views INTEGER NOT NULL DEFAULT 0")
        try d[0].enableSync(on: "lists", merges: ["views": .counter])
        try d[2].database.execute("ALTER TABLE lists ADD COLUMN views INTEGER NOT NULL DEFAULT 0")
        try d[2].enableSync(on: "lists", merges: ["views": .counter])
        try d[0].database.execute("INSERT INTO lists VALUES ('l1', 'home', 0)")
        try pass(d[0], d[1])
        try pass(d[1], d[2])
        try d[0].database.execute("UPDATE lists SET views = views + 2")
        try d[2].database.execute("UPDATE lists SET views = views + 3")
        // The older device hears from both and is their only link.
        try pass(d[0], d[1])
        try pass(d[2], d[1])
        try pass(d[1], d[0])
        try pass(d[1], d[2])
        for device in [d[0], d[2]] { #expect(try shown(device, "SELECT views FROM lists") == [[5]]) }
        try d[1].database.execute("ALTER TABLE lists ADD COLUMN views INTEGER NOT NULL DEFAULT 0")
        try d[1].enableSync(on: "lists", merges: ["views": .counter])
        #expect(try shown(d[1], "SELECT views FROM lists") == [[5]])
    }

    @Test func applyingTheSameChangesetAgainChangesNothing() throws {
        let d = try devices(migration: "ALTER TABLE reminders ADD COLUMN priority INTEGER; " + Self.notes)
        try d[0].enableSync(on: "notes")
        try d[0].database.execute(
            """
            INSERT INTO lists VALUES ('l1', 'home'); INSERT INTO reminders VALUES ('r1', 'l1', 'milk', 2);
            INSERT INTO notes VALUES ('n1', 'r1', 'x');
            """)
        let changes = try d[0].changes(since: 0)
        let first = try d[1].apply(changes)
        #expect(first.applied == 3)
        let version = try d[1].version
        let again = try d[1].apply(changes)
        #expect(again.applied == 0 && again.ignored == 3)
        #expect(try d[1].version == version)
        // Its own changes back change nothing either.
        #expect(try d[1].apply(d[1].changes(since: 0)).applied == 0)
    }

    @Test func aPeerDeclaringAnotherMergeForARelayedColumnIsRefused() throws {
        let d = try devices(migration: "ALTER TABLE lists ADD COLUMN views INTEGER NOT NULL DEFAULT 0")
        try d[2].database.execute("ALTER TABLE lists ADD COLUMN views INTEGER NOT NULL DEFAULT 0")
        try d[2].enableSync(on: "lists", merges: ["views": .counter])
        try d[0].database.execute("INSERT INTO lists VALUES ('l1', 'home', 1)")
        try d[2].database.execute("INSERT INTO lists VALUES ('l2', 'work', 1)")
        try pass(d[0], d[1])
        let before = try d[1].canonicalDump()
        let version = try d[1].version
        #expect(
            throws: ReplicaError.policyMismatch(
                table: "lists", local: "views=lww (as a peer sent it before)", remote: "views=counter")
        ) { try d[1].apply(d[2].changes(since: 0)) }
        #expect(try d[1].canonicalDump() == before && d[1].version == version)
    }

    @Test func aLocalTableThatDoesNotSyncIsNeverWrittenAndItsRowsWait() throws {
        let d = try devices(migration: Self.notes)
        try d[0].enableSync(on: "notes")
        try d[1].database.execute(Self.notes + "INSERT INTO notes VALUES ('mine', NULL, 'local only');")
        try d[0].database.execute(
            """
            INSERT INTO lists VALUES ('l1', 'home'); INSERT INTO reminders VALUES ('r1', 'l1', 'milk');
            INSERT INTO notes VALUES ('n1', 'r1', 'synced');
            """)
        try pass(d[0], d[1])
        #expect(try shown(d[1], "SELECT id FROM notes") == [["mine"]])
        // It relays them all the same, and shows them once it syncs the table.
        try pass(d[1], d[2])
        try d[1].enableSync(on: "notes")
        #expect(try shown(d[1], "SELECT id FROM notes ORDER BY id") == [["mine"], ["n1"]])
        try d[2].database.execute(Self.notes)
        try d[2].enableSync(on: "notes")
        try Replica.sync(d)
        for device in d { #expect(try shown(device, "SELECT id FROM notes ORDER BY id") == [["mine"], ["n1"]]) }
    }
}
