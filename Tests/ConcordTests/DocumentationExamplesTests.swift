// swift-format-ignore-file
// (The examples below are the documentation catalogs' code, character for character.)
import ConcordTestSupport
import Foundation
import Testing
import Concord

// The code examples of the Concord documentation catalog (Sources/Concord/Concord.docc), run
// against in-memory replicas. Each test names the article and section it comes from; the code
// between the checks is the article's, character for character (`DocumentationSnippetTests`
// checks that every example in the catalogs appears in one of these files).

// MARK: - Getting Started

@Suite("Documentation: Getting Started", .tags(.replica))
struct GettingStartedExamples {
    @Test func theWholeArticleRunsInOrder() throws {
        let databasePath = ":memory:"
        let laptopDatabasePath = ":memory:"
        let directory = TemporaryDirectory()
        let changesetPath = directory.path("changes.concord")

        // Getting Started, "Open a replica"
        let schema = """
            CREATE TABLE IF NOT EXISTS reminders (
                id TEXT PRIMARY KEY NOT NULL,
                title TEXT,
                done INTEGER NOT NULL DEFAULT 0
            )
            """
        let phone = try Replica(path: databasePath)
        try phone.database.execute(schema)

        // Getting Started, "Enable sync on your tables"
        try phone.enableSync(on: "reminders")

        #expect(phone.tables.map(\.name) == ["reminders"])
        try phone.enableSync(on: "reminders")   // a second call does nothing
        #expect(phone.tables.map(\.name) == ["reminders"])

        // Getting Started, "Enable sync on your tables" (what is refused)
        try phone.database.execute("CREATE TABLE IF NOT EXISTS visits (id INTEGER PRIMARY KEY, at TEXT)")
        do {
            try phone.enableSync(on: "visits")
        } catch ReplicaError.unsupportedTable(let table, let reason, let fix) {
            print("\(table) cannot sync: \(reason); \(fix)")
        }

        #expect(phone.tables.map(\.name) == ["reminders"], "visits was refused")
        #expect(throws: ReplicaError.unsupportedTable(
            table: "visits",
            reason: "its primary key id is an INTEGER, which devices allocate independently and so collide",
            fix: "use a TEXT primary key holding a UUID")) { try phone.enableSync(on: "visits") }

        // Getting Started, "Write with plain SQL"
        let id = UUID().uuidString
        try phone.database.execute("INSERT INTO reminders (id, title) VALUES (?, ?)", [.text(id), "Buy milk"])

        // Getting Started, "Exchange changesets"
        let laptop = try Replica(path: laptopDatabasePath)
        try laptop.database.execute(schema)
        try laptop.enableSync(on: "reminders")

        // The laptop asks the phone for what it has not read yet...
        let since = try laptop.peerVersion(phone.nodeID)
        // ...the phone answers with a changeset, encoded for the wire...
        let bytes = try phone.changes(since: since).encoded()
        // ...and the laptop decodes it and applies it, in one transaction.
        let report = try laptop.apply(try Changeset(decoding: bytes), from: phone.nodeID)
        print(report)   // applied 1, ignored 0

        #expect(report.applied == 1 && report.ignored == 0)
        #expect(report.description == "applied 1, ignored 0")
        #expect(try laptop.database.scalar("SELECT title FROM reminders WHERE id = ?", [.text(id)]) == "Buy milk")
        #expect(try laptop.peerVersion(phone.nodeID) == phone.version)

        // Getting Started, "Exchange changesets" (applying twice)
        let again = try laptop.apply(try Changeset(decoding: bytes))
        print(again)    // applied 0, ignored 1

        #expect(again.description == "applied 0, ignored 1")

        // Getting Started, "Exchange changesets" (debugging)
        let json = String(decoding: try phone.changes(since: 0).jsonData(), as: UTF8.self)

        #expect(json.contains(#""name": "reminders""#) || json.contains(#""name":"reminders""#))
        #expect(try Changeset(json: Array(json.utf8)) == phone.changes(since: 0))
        #expect(try Changeset.decode(anyFormat: Array(json.utf8)) == Changeset(json: Array(json.utf8)))

        // Getting Started, "Exchange changesets" (files)
        let sink = try FileByteSink(path: changesetPath)
        try phone.exportChanges(since: 0, to: sink)
        try sink.close()
        try laptop.applyChangeset(atPath: changesetPath)

        #expect(FileManager.default.fileExists(atPath: changesetPath))

        // Getting Started, "Edit on several devices"
        try phone.database.execute("UPDATE reminders SET title = 'Buy oat milk' WHERE id = ?", [.text(id)])
        try laptop.database.execute("UPDATE reminders SET done = 1 WHERE id = ?", [.text(id)])
        try Replica.sync([phone, laptop])
        let row = try laptop.database.query("SELECT title, done FROM reminders WHERE id = ?", [.text(id)])
        // row == [["Buy oat milk", 1]] on both replicas

        #expect(row == [["Buy oat milk", 1]])
        #expect(try phone.database.query("SELECT title, done FROM reminders WHERE id = ?", [.text(id)]) == row)
        #expect(try phone.canonicalDump() == laptop.canonicalDump())

        // Getting Started, "Check a replica"
        let check = try laptop.check()
        if !check.isConsistent { print(check) }
        let status = try laptop.status()
        for parked in status.parked { print("\(parked.table) \(parked.key) is not shown: \(parked.reason)") }

        #expect(check.isConsistent, "\(check)")
        #expect(check.description == "ok")
        #expect(try phone.canonicalDump() == laptop.canonicalDump())
        #expect(status.parked.isEmpty)
        #expect(status.tables.map(\.rows) == [1])
        #expect(status.peers.map(\.node) == [phone.nodeID.description])
    }
}

// MARK: - Merge Policies

/// Two in-memory replicas on one manual clock, as the Merge Policies article sets them up.
private func twoDevices() throws -> (ManualClock, Replica, Replica) {
    // Merge Policies, "Two devices"
    let clock = ManualClock(unixMilliseconds: 1_767_225_600_000)
    let phone = try Replica.inMemory(configuration: .init(clock: clock))
    let laptop = try Replica.inMemory(configuration: .init(clock: clock))

    return (clock, phone, laptop)
}

@Suite("Documentation: Merge Policies", .tags(.replica))
struct MergePoliciesExamples {
    @Test func columnPolicy() throws {
        let (clock, phone, laptop) = try twoDevices()

        // Merge Policies, "The column policy"
        for replica in [phone, laptop] {
            try replica.database.execute("CREATE TABLE reminders (id TEXT PRIMARY KEY NOT NULL, title TEXT, done INTEGER)")
            try replica.enableSync(on: "reminders")   // policy: .column is the default
        }
        try phone.database.execute("INSERT INTO reminders VALUES ('r1', 'Milk', 0)")
        try Replica.sync([phone, laptop])

        try phone.database.execute("UPDATE reminders SET title = 'Oat milk' WHERE id = 'r1'")
        clock.advance(by: 10)
        try laptop.database.execute("UPDATE reminders SET done = 1 WHERE id = 'r1'")
        clock.advance(by: 10)
        try laptop.database.execute("UPDATE reminders SET title = 'Soy milk' WHERE id = 'r1'")
        try Replica.sync([phone, laptop])
        // Both show ('r1', 'Soy milk', 1): the done edit survives, and the later title wins.

        for replica in [phone, laptop] {
            #expect(try replica.database.query("SELECT * FROM reminders") == [["r1", "Soy milk", 1]])
        }
    }

    @Test func rowPolicy() throws {
        let (clock, phone, laptop) = try twoDevices()

        // Merge Policies, "The row policy"
        for replica in [phone, laptop] {
            try replica.database.execute("CREATE TABLE addresses (id TEXT PRIMARY KEY NOT NULL, street TEXT, city TEXT)")
            try replica.enableSync(on: "addresses", policy: .row)
        }
        try phone.database.execute("INSERT INTO addresses VALUES ('home', '1 Main St', 'Springfield')")
        try Replica.sync([phone, laptop])

        try phone.database.execute("UPDATE addresses SET street = '9 Elm St' WHERE id = 'home'")
        clock.advance(by: 10)
        try laptop.database.execute("UPDATE addresses SET street = '5 Oak Ave', city = 'Shelbyville' WHERE id = 'home'")
        try Replica.sync([phone, laptop])
        // Both show ('home', '5 Oak Ave', 'Shelbyville'): the laptop's later write supplies the whole row.

        for replica in [phone, laptop] {
            #expect(try replica.database.query("SELECT * FROM addresses") == [["home", "5 Oak Ave", "Shelbyville"]])
        }
    }

    @Test func aMinColumnHoldingNullKeepsItAndADefaultAvoidsThat() throws {
        let (_, phone, laptop) = try twoDevices()

        // Merge Policies, "Merges per column": under min, NULL holds against every value.
        try phone.database.execute("CREATE TABLE taps (id TEXT PRIMARY KEY NOT NULL, fastest INTEGER)")
        try phone.enableSync(on: "taps", merges: ["fastest": .min])
        try phone.database.execute("INSERT INTO taps (id) VALUES ('t1')")
        try phone.foldLocalWrites()
        try phone.database.execute("UPDATE taps SET fastest = 855 WHERE id = 't1'")
        try phone.foldLocalWrites()
        #expect(try phone.database.scalar("SELECT fastest FROM taps") == .null, "the write folds back to NULL")

        // The fix the article gives: a value from the start.
        try laptop.database.execute(
            "CREATE TABLE taps (id TEXT PRIMARY KEY NOT NULL, fastest INTEGER NOT NULL DEFAULT 1000000)")
        try laptop.enableSync(on: "taps", merges: ["fastest": .min])
        try laptop.database.execute("INSERT INTO taps (id) VALUES ('t1')")
        try laptop.foldLocalWrites()
        try laptop.database.execute("UPDATE taps SET fastest = 855 WHERE id = 't1'")
        try laptop.foldLocalWrites()
        #expect(try laptop.database.scalar("SELECT fastest FROM taps") == .integer(855))
    }

    @Test func rowPolicyRefusesColumnMerges() throws {
        let phone = try twoDevices().1
        try phone.database.execute("CREATE TABLE addresses (id TEXT PRIMARY KEY NOT NULL, street TEXT, city TEXT)")
        #expect(throws: ReplicaError.self) {
            try phone.enableSync(on: "addresses", policy: .row, merges: ["city": .max])
        }
    }

    @Test func builtInMerges() throws {
        let (clock, phone, laptop) = try twoDevices()

        // Merge Policies, "Merges per column"
        for replica in [phone, laptop] {
            try replica.database.execute("""
                CREATE TABLE players (
                    id TEXT PRIMARY KEY NOT NULL,
                    name TEXT,
                    best INTEGER,
                    first_seen TEXT,
                    games INTEGER NOT NULL DEFAULT 0,
                    badges TEXT
                )
                """)
            try replica.enableSync(on: "players", merges: [
                "best": .max, "first_seen": .min, "games": .counter, "badges": .union,
            ])
        }
        try phone.database.execute("""
            INSERT INTO players VALUES ('p1', 'Ada', 10, '2026-01-01', 0, '["rookie"]')
            """)
        try Replica.sync([phone, laptop])

        // Both devices play offline.
        try phone.database.execute("""
            UPDATE players SET best = 120, first_seen = '2025-12-24', games = games + 1,
                badges = '["rookie","sharpshooter"]' WHERE id = 'p1'
            """)
        clock.advance(by: 10)
        try laptop.database.execute("""
            UPDATE players SET best = 90, games = games + 2, badges = '["rookie","marathon"]',
                name = 'Ada L.' WHERE id = 'p1'
            """)
        try Replica.sync([phone, laptop])
        // Both show: name 'Ada L.', best 120, first_seen '2025-12-24', games 3,
        // badges '["marathon","rookie","sharpshooter"]'

        let expected: [[SQLiteValue]] = [["p1", "Ada L.", 120, "2025-12-24", 3, #"["marathon","rookie","sharpshooter"]"#]]
        for replica in [phone, laptop] {
            #expect(try replica.database.query("SELECT * FROM players") == expected)
            #expect(try replica.check().isConsistent)
        }

        // Merge Policies, "Merges per column" (local writes join too)
        try laptop.database.execute("UPDATE players SET best = 5 WHERE id = 'p1'")
        try laptop.foldLocalWrites()
        // best is still 120: a lower value written to a max column leaves the maximum.

        #expect(try laptop.database.scalar("SELECT best FROM players") == 120)
    }

    @Test func customMerge() throws {
        // Merge Policies, "Merges of your own"
        let longest = MergeFunction(name: "longest") { a, b in
            let (x, y) = (a.textValue?.utf8.count ?? -1, b.textValue?.utf8.count ?? -1)
            if x != y { return x > y ? a : b }
            return SQLiteValue.totallyOrdered(a, before: b) ? b : a
        }
        let clock = ManualClock(unixMilliseconds: 1_767_225_600_000)
        let phone = try Replica.inMemory(configuration: .init(clock: clock, merges: [longest]))
        let laptop = try Replica.inMemory(configuration: .init(clock: clock, merges: [longest]))
        for replica in [phone, laptop] {
            try replica.database.execute("CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, body TEXT)")
            try replica.enableSync(on: "notes", merges: ["body": .custom("longest")])
        }

        try phone.database.execute("INSERT INTO notes VALUES ('n1', 'Call Bob')")
        try Replica.sync([phone, laptop])
        try phone.database.execute("UPDATE notes SET body = 'Call Bob about the roof' WHERE id = 'n1'")
        clock.advance(by: 10)
        try laptop.database.execute("UPDATE notes SET body = 'Call Bob!' WHERE id = 'n1'")
        try Replica.sync([phone, laptop])
        for replica in [phone, laptop] {
            #expect(try replica.database.scalar("SELECT body FROM notes") == "Call Bob about the roof")
        }

        // A replica without the function refuses to guess.
        let bare = try Replica.inMemory()
        try bare.database.execute("CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, body TEXT)")
        #expect(throws: ReplicaError.unregisteredMerge(table: "notes", column: "body", name: "longest")) {
            try bare.enableSync(on: "notes", merges: ["body": .custom("longest")])
        }
    }

    @Test func deletesAndReinserts() throws {
        let (clock, phone, laptop) = try twoDevices()
        for replica in [phone, laptop] {
            try replica.database.execute("CREATE TABLE reminders (id TEXT PRIMARY KEY NOT NULL, title TEXT, done INTEGER)")
            try replica.enableSync(on: "reminders")
        }
        try phone.database.execute("INSERT INTO reminders VALUES ('r1', 'Milk', 0)")
        try Replica.sync([phone, laptop])

        // Merge Policies, "Deletes"
        try laptop.database.execute("DELETE FROM reminders WHERE id = 'r1'")
        clock.advance(by: 10)
        try phone.database.execute("UPDATE reminders SET title = 'Oat milk' WHERE id = 'r1'")
        try Replica.sync([phone, laptop])
        // r1 is gone on both: the phone had not seen the delete, so its update does not bring the row back.

        try phone.database.execute("INSERT INTO reminders VALUES ('r1', 'Milk again', 0)")
        try Replica.sync([phone, laptop])
        // r1 is back on both: an explicit insert of the key revives it.

        for replica in [phone, laptop] {
            #expect(try replica.database.query("SELECT * FROM reminders") == [["r1", "Milk again", 0]])
            #expect(try replica.registers(of: "reminders", key: "r1")?.liveness.causalLength == 3)
        }
    }

    @Test func tiesAreSettledByNodeID() throws {
        let clock = ManualClock(unixMilliseconds: 1_767_225_600_000)
        let a = try Replica.inMemory(configuration: configuration(node: 1, clock: clock))
        let b = try Replica.inMemory(configuration: configuration(node: 2, clock: clock))
        for replica in [a, b] {
            try replica.database.execute("CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, body TEXT)")
            try replica.enableSync(on: "notes")
        }
        try a.database.execute("INSERT INTO notes VALUES ('n', 'a')")
        try b.database.execute("INSERT INTO notes VALUES ('n', 'b')")
        try Replica.sync([a, b])
        // Same millisecond, same counter: the higher node id wins, on both.
        #expect(try a.database.scalar("SELECT body FROM notes") == "b")
        #expect(try b.database.scalar("SELECT body FROM notes") == "b")
    }
}

// MARK: - Foreign Keys Across Devices

@Suite("Documentation: Foreign Keys Across Devices", .tags(.replica))
struct ForeignKeysExamples {
    /// The article's schema with one choice of ON DELETE action for reminders → lists.
    private static func devices(_ onDelete: String) throws -> (ManualClock, Replica, Replica) {
        // Foreign Keys Across Devices, "Declare foreign keys as usual"
        let clock = ManualClock(unixMilliseconds: 1_767_225_600_000)
        let phone = try Replica.inMemory(configuration: .init(clock: clock))
        let laptop = try Replica.inMemory(configuration: .init(clock: clock))
        for replica in [phone, laptop] {
            try replica.database.execute("""
                CREATE TABLE lists (id TEXT PRIMARY KEY NOT NULL, name TEXT);
                CREATE TABLE reminders (
                    id TEXT PRIMARY KEY NOT NULL,
                    list_id TEXT REFERENCES lists(id) ON DELETE \(onDelete),
                    title TEXT
                );
                """)
            try replica.enableSync(on: "lists")       // parents first
            try replica.enableSync(on: "reminders")
            try replica.database.execute("PRAGMA foreign_keys = ON")
        }

        return (clock, phone, laptop)
    }

    @Test func parking() throws {
        let (clock, phone, laptop) = try Self.devices("CASCADE")

        // Foreign Keys Across Devices, "A child that arrives first waits"
        try phone.database.execute("INSERT INTO lists VALUES ('L', 'Groceries')")
        let parent = try phone.changes(since: 0)
        clock.advance(by: 10)
        try phone.database.execute("INSERT INTO reminders VALUES ('R', 'L', 'Milk')")
        let child = try phone.changes(since: parent.upTo)

        try laptop.apply(child)     // the reminder arrives before its list
        print(try laptop.status().parked.map(\.reason))   // ["missing parent lists/L"]
        try laptop.apply(parent)    // the list arrives: the reminder shows
        print(try laptop.status().parked.isEmpty)         // true

        let fresh = try Self.devices("CASCADE").2
        try fresh.apply(child)
        #expect(try fresh.database.scalar("SELECT count(*) FROM reminders") == 0)
        #expect(try fresh.status().parked.map(\.reason) == ["missing parent lists/L"])
        #expect(try fresh.status().parked.map(\.key) == ["R"])
        try fresh.apply(parent)
        #expect(try fresh.database.query("SELECT id FROM reminders") == [["R"]])
        #expect(try laptop.database.query("SELECT id FROM reminders") == [["R"]])
        #expect(try laptop.check().isConsistent)
    }

    @Test func cascades() throws {
        let (clock, phone, laptop) = try Self.devices("CASCADE")
        try phone.database.execute("INSERT INTO lists VALUES ('L', 'Groceries')")
        try phone.database.execute("INSERT INTO reminders VALUES ('R1', 'L', 'Milk')")
        try Replica.sync([phone, laptop])

        // Foreign Keys Across Devices, "Cascades"
        try phone.database.execute("DELETE FROM lists WHERE id = 'L'")     // deletes R1 too, as SQLite would
        clock.advance(by: 10)
        try laptop.database.execute("INSERT INTO reminders VALUES ('R2', 'L', 'Eggs')")   // offline, concurrent
        try Replica.sync([phone, laptop])
        // No list and no reminder shows on either device; R2 is parked: "parent lists/L is not visible".

        for replica in [phone, laptop] {
            #expect(try replica.database.scalar("SELECT count(*) FROM lists") == 0)
            #expect(try replica.database.scalar("SELECT count(*) FROM reminders") == 0)
            #expect(try replica.status().parked.map(\.key) == ["R2"])
            #expect(try replica.status().parked.map(\.reason) == ["parent lists/L is not visible"])
            #expect(try replica.registers(of: "reminders", key: "R1")?.liveness.causalLength == 2, "a real delete")
            #expect(try replica.check().isConsistent)
        }
        // "If the list is inserted again later, R2 shows again with it."
        try phone.database.execute("INSERT INTO lists VALUES ('L', 'Groceries')")
        try Replica.sync([phone, laptop])
        for replica in [phone, laptop] {
            #expect(try replica.database.query("SELECT id FROM reminders") == [["R2"]])
            #expect(try replica.status().parked.isEmpty)
        }
    }

    @Test func aChildTableEnabledBeforeItsParentIsRefused() throws {
        let replica = try Replica.inMemory()
        try replica.database.execute("""
            CREATE TABLE lists (id TEXT PRIMARY KEY NOT NULL, name TEXT);
            CREATE TABLE reminders (id TEXT PRIMARY KEY NOT NULL, list_id TEXT REFERENCES lists(id), title TEXT);
            """)
        #expect(throws: ReplicaError.unsupportedTable(
            table: "reminders", reason: "its column list_id references lists, which does not sync",
            fix: "enable sync on lists first (list it before reminders)")) { try replica.enableSync(on: "reminders") }
    }

    @Test(arguments: ["RESTRICT", "NO ACTION"])
    func restrictRevives(action: String) throws {
        let (clock, phone, laptop) = try Self.devices(action)
        try phone.database.execute("INSERT INTO lists VALUES ('L', 'Groceries')")
        try Replica.sync([phone, laptop])

        // Foreign Keys Across Devices, "RESTRICT brings a parent back"
        try phone.database.execute("DELETE FROM lists WHERE id = 'L'")     // no reminder yet: allowed
        clock.advance(by: 10)
        try laptop.database.execute("INSERT INTO reminders VALUES ('R', 'L', 'Milk')")   // written after the delete
        try Replica.sync([phone, laptop])
        // Both show list L again, with its reminder R.

        for replica in [phone, laptop] {
            #expect(try replica.database.query("SELECT id FROM lists") == [["L"]])
            #expect(try replica.database.query("SELECT id FROM reminders") == [["R"]])
            #expect(try replica.check().isConsistent)
        }
        // "when the child moves to another list or is deleted, the parent is hidden again"
        clock.advance(by: 10)
        try laptop.database.execute("DELETE FROM reminders WHERE id = 'R'")
        try Replica.sync([phone, laptop])
        for replica in [phone, laptop] {
            #expect(try replica.database.scalar("SELECT count(*) FROM lists") == 0)
            #expect(try replica.check().isConsistent)
        }
    }

    @Test(arguments: ["RESTRICT", "NO ACTION"])
    func aChildWrittenBeforeTheDeleteDoesNotRevive(onDelete: String) throws {
        let (clock, phone, laptop) = try Self.devices(onDelete)
        try phone.database.execute("INSERT INTO lists VALUES ('L', 'Groceries')")
        try Replica.sync([phone, laptop])
        try laptop.database.execute("INSERT INTO reminders VALUES ('R', 'L', 'Milk')")   // before the delete
        clock.advance(by: 10)
        try phone.database.execute("DELETE FROM lists WHERE id = 'L'")
        try Replica.sync([phone, laptop])
        for replica in [phone, laptop] {
            #expect(try replica.database.scalar("SELECT count(*) FROM lists") == 0)
            #expect(try replica.database.scalar("SELECT count(*) FROM reminders") == 0)
            #expect(try replica.status().parked.map(\.reason) == ["parent lists/L is not visible"])
        }
    }

    @Test func concurrentMovesFormingACycleParkTheNodesUntilAMoveBreaksIt() throws {
        let clock = ManualClock(unixMilliseconds: 1_767_225_600_000)
        let phone = try Replica.inMemory(configuration: .init(clock: clock))
        let laptop = try Replica.inMemory(configuration: .init(clock: clock))
        for replica in [phone, laptop] {
            try replica.database.execute(
                "CREATE TABLE folders (id TEXT PRIMARY KEY NOT NULL, parent_id TEXT REFERENCES folders(id) ON DELETE CASCADE)")
            try replica.enableSync(on: "folders")
        }
        try phone.database.execute("INSERT INTO folders VALUES ('root', NULL), ('X', 'root'), ('Y', 'root')")
        try Replica.sync([phone, laptop])
        try phone.database.execute("UPDATE folders SET parent_id = 'Y' WHERE id = 'X'")
        clock.advance(by: 10)
        try laptop.database.execute("UPDATE folders SET parent_id = 'X' WHERE id = 'Y'")
        try Replica.sync([phone, laptop])
        for replica in [phone, laptop] {
            #expect(try replica.database.query("SELECT id FROM folders") == [["root"]])
            #expect(try replica.status().parked.map(\.key) == ["X", "Y"])
        }
        // "They are not in their table, so the app cannot update them; inserting one of them again,
        // with a parent off the cycle, shows both again."
        clock.advance(by: 10)
        try laptop.database.execute("UPDATE folders SET parent_id = 'root' WHERE id = 'Y'")
        #expect(laptop.database.changes == 0)
        try laptop.database.execute("INSERT INTO folders VALUES ('Y', 'root')")
        try Replica.sync([phone, laptop])
        for replica in [phone, laptop] {
            #expect(try replica.database.query("SELECT id FROM folders ORDER BY id") == [["X"], ["Y"], ["root"]])
            #expect(try replica.check().isConsistent)
        }
    }

    @Test func setNullShowsAStandIn() throws {
        let (clock, phone, laptop) = try Self.devices("SET NULL")
        try phone.database.execute("INSERT INTO lists VALUES ('L', 'Groceries')")
        try Replica.sync([phone, laptop])

        // Foreign Keys Across Devices, "SET NULL and SET DEFAULT show a stand-in"
        try phone.database.execute("DELETE FROM lists WHERE id = 'L'")
        clock.advance(by: 10)
        try laptop.database.execute("INSERT INTO reminders VALUES ('R', 'L', 'Milk')")   // had not seen the delete
        try Replica.sync([phone, laptop])
        let shown = try phone.database.scalar("SELECT list_id FROM reminders WHERE id = 'R'")
        let kept = try phone.registers(of: "reminders", key: "R")?.columns[0]?.value
        // shown is NULL; kept is 'L'

        #expect(shown == .null)
        #expect(kept == "L")
        #expect(try laptop.database.scalar("SELECT list_id FROM reminders WHERE id = 'R'") == .null)
        #expect(try phone.check().isConsistent)
    }

    @Test func constraintParking() throws {
        let replica = try Replica.inMemory()
        try replica.database.execute("CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, title TEXT NOT NULL)")
        try replica.enableSync(on: "items")
        // A peer whose schema let title be NULL (its registers say NULL).
        let stamp = Stamp(hlc: HLCTimestamp(milliseconds: 1_767_225_600_000, counter: 0), node: node(9))
        let changeset = Changeset(
            source: node(9), since: 0, upTo: 1,
            tables: [TableSchema(name: "items", key: "id", columns: ["title"], policy: .column)],
            rows: [RowChange(table: "items", key: "i1", registers: RowRegisters(
                liveness: Liveness(causalLength: 1, stamp: stamp), columns: [ColumnRegister(value: .null, stamp: stamp)]))])
        try replica.apply(changeset)
        #expect(try replica.database.scalar("SELECT count(*) FROM items") == 0)
        let parked = try replica.status().parked
        #expect(parked.count == 1 && parked[0].reason.contains("NOT NULL"), "\(parked)")
    }
}

// MARK: - Migrations

@Suite("Documentation: Migrations", .tags(.replica))
struct MigrationsExamples {
    private func devices() throws -> (Replica, Replica) {
        let clock = ManualClock(unixMilliseconds: 1_767_225_600_000)
        let phone = try Replica.inMemory(configuration: .init(clock: clock, makeNodeID: { node(1) }))
        let laptop = try Replica.inMemory(configuration: .init(clock: clock, makeNodeID: { node(2) }))
        for replica in [phone, laptop] {
            try replica.database.execute("CREATE TABLE reminders (id TEXT PRIMARY KEY NOT NULL, title TEXT)")
            try replica.enableSync(on: "reminders")
        }
        try phone.database.execute("INSERT INTO reminders VALUES ('r1', 'Milk')")
        try Replica.sync([phone, laptop])
        return (phone, laptop)
    }

    @Test func additiveChanges() throws {
        let (phone, laptop) = try devices()

        // Migrations, "Additive changes are picked up"
        for replica in [phone, laptop] {
            try replica.database.execute("ALTER TABLE reminders ADD COLUMN priority INTEGER")
        }
        try phone.database.execute("UPDATE reminders SET priority = 1 WHERE id = 'r1'")
        try Replica.sync([phone, laptop])
        // The laptop shows priority 1: no call was needed on either device.

        #expect(try laptop.database.scalar("SELECT priority FROM reminders") == 1)

        try phone.database.execute("ALTER TABLE reminders ADD COLUMN views INTEGER NOT NULL DEFAULT 0")
        try phone.enableSync(on: "reminders", merges: ["views": .counter])

        #expect(phone.tables[0].merges.last == .counter)
    }

    @Test func renamingAColumnInPractice() throws {
        let (phone, replica) = try devices()
        try phone.database.execute("ALTER TABLE reminders ADD COLUMN name TEXT")
        try phone.foldLocalWrites()
        try phone.database.execute("UPDATE reminders SET name = title WHERE name IS NULL")
        try phone.database.execute("UPDATE reminders SET name = 'Oat milk'")
        try Replica.sync([phone, replica])

        // Migrations, "Renaming a column in practice": the device that migrates later
        try replica.database.execute("ALTER TABLE reminders ADD COLUMN name TEXT")
        try replica.foldLocalWrites()      // shows the values peers wrote to `name`
        try replica.database.execute("UPDATE reminders SET name = title WHERE name IS NULL")

        try Replica.sync([phone, replica])
        for device in [phone, replica] {
            #expect(try device.database.scalar("SELECT name FROM reminders") == "Oat milk")
        }
    }

    @Test func destructiveChanges() throws {
        let (phone, laptop) = try devices()
        try phone.database.execute("UPDATE reminders SET title = 'Oat milk'")

        // Migrations, "Destructive changes are refused, table by table"
        try phone.database.execute("ALTER TABLE reminders RENAME COLUMN title TO name")
        let changes = try phone.changes(since: 0)         // the other tables' rows
        let refusal = phone.schemaRefusals.first          // names reminders, the change and the fix
        try phone.database.execute("ALTER TABLE reminders RENAME COLUMN name TO title")
        try Replica.sync([phone, laptop])                 // resumes: the waiting writes arrive

        #expect(changes.rows.isEmpty)
        #expect("\(refusal!)".contains("column(s) title dropped or renamed"))
        #expect(try laptop.database.scalar("SELECT title FROM reminders") == "Oat milk")
    }

    @Test func olderDevicesKeepWhatTheyLack() throws {
        let (phone, laptop) = try devices()
        try laptop.database.execute("ALTER TABLE reminders ADD COLUMN priority INTEGER NOT NULL DEFAULT 0")

        // Migrations, "Older devices keep what they lack"
        // The laptop has migrated; the phone has not.
        try laptop.database.execute("UPDATE reminders SET priority = 4 WHERE id = 'r1'")
        try phone.apply(laptop.changes(since: phone.peerVersion(laptop.nodeID)))   // kept, not refused
        try phone.database.execute("ALTER TABLE reminders ADD COLUMN priority INTEGER NOT NULL DEFAULT 0")
        try phone.foldLocalWrites()   // the phone now shows priority 4

        #expect(try phone.database.scalar("SELECT priority FROM reminders") == 4)
    }
}

// MARK: - Living with conflicts

@Suite("Documentation: Living with conflicts", .tags(.replica))
struct LivingWithConflictsExamples {
    @Test func listAndRestore() throws {
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let laptop = try Replica.inMemory(configuration: configuration(node: 1, clock: clock))
        let phone = try Replica.inMemory(configuration: configuration(node: 2, clock: clock))
        for replica in [laptop, phone] {
            try replica.database.execute(remindersSchema)
            try replica.enableSync(on: "reminders")
        }
        try laptop.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'milk')")
        clock.advance(by: 1_000)
        try Replica.sync([laptop, phone])
        try laptop.database.execute("UPDATE reminders SET title = 'oat milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try phone.database.execute("UPDATE reminders SET title = 'soy milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try Replica.sync([laptop, phone])

        // Living with conflicts, "List and restore"
        let lost = try phone.conflicts(table: "reminders", key: "r1")
        print(lost.map { "\($0.column): \($0.lost) lost to \($0.winner ?? "a delete")" })
        try phone.restore(conflict: lost[0].id)

        clock.advance(by: 1_000)
        try Replica.sync([laptop, phone])
        #expect(try laptop.database.scalar("SELECT title FROM reminders") == "oat milk")
    }

    @Test func retention() throws {
        // Living with conflicts, "Retention"
        var configuration = Replica.Configuration()
        configuration.conflictRetention = ConflictRetention(maxAge: 7 * ConflictRetention.day, maxPerTable: 200)

        #expect(configuration.conflictRetention.maxPerTable == 200)
    }
}
