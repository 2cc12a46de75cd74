import Concord
import ConcordTesting
import Synchronization

/// The replica every fuzz input is applied to, and the valid changesets mutants start from.
///
/// A hostile input is only interesting against a replica with something to
/// lose: rows in every synced table, deleted rows whose registers remain, a
/// counter, a union, a `max` column, both table policies, and foreign keys
/// (a cascading parent and child, a self-referencing `RESTRICT` tree). Three
/// replicas build it from a fixed clock and fixed node ids, so the base file
/// and the seeds are the same bytes on every run: replica A, whose file is
/// the base, and peers B and C, whose concurrent edits (a child added under a
/// parent A deleted, a re-insert, counter increments on several nodes) are
/// the seeds, along with A's own changes and C's after merging B's.
///
/// ```swift
/// let base = try FuzzBase.build(at: "/tmp/fuzz/base.sqlite")
/// base.seeds.count   // 6 valid changesets
/// ```
struct FuzzBase {
    /// The base replica's file.
    var bytes: [UInt8]
    /// Valid changesets for the mutator.
    var seeds: [Changeset]
    /// The physical time (Unix milliseconds) the base replica's clock stays at while fuzzing.
    var now: Int64

    /// Node ids: A (the base), B and C.
    static let baseNode = NodeID(bytes: Array(repeating: 0xA1, count: NodeID.byteCount))!
    static let peerNodes = [
        NodeID(bytes: Array(repeating: 0xB2, count: NodeID.byteCount))!,
        NodeID(bytes: Array(repeating: 0xC3, count: NodeID.byteCount))!,
    ]

    /// 2026-01-01T00:00:00Z.
    static let start: Int64 = 1_767_225_600_000

    static let schema = """
        CREATE TABLE lists (id TEXT PRIMARY KEY NOT NULL, name TEXT, archived INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, list TEXT REFERENCES lists(id) ON DELETE CASCADE,
                            title TEXT, likes INTEGER NOT NULL DEFAULT 0, tags TEXT, score REAL);
        CREATE TABLE notes (id BLOB PRIMARY KEY NOT NULL, body TEXT,
                            pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)));
        CREATE TABLE folders (id TEXT PRIMARY KEY NOT NULL, parent TEXT REFERENCES folders(id) ON DELETE RESTRICT,
                              name TEXT);
        """

    /// What the app writes after an accepted input, in two folds: a counter increment (and a text edit)
    /// of every shown item, then a delete of every shown row and a re-insert of one.
    ///
    /// The updates are folded before the deletes: folding a counter increment and a delete of the same
    /// row together leaves a counter register that disagrees with its contributions (a known engine
    /// issue, reproduced by `Tests/ConcordTests/Fixtures/Fuzz/counter-update-then-delete.sh`), which
    /// would otherwise be reported for nearly every accepted input.
    static let localUpdates = ["UPDATE items SET likes = likes + 1, title = coalesce(title, '') || '+'"]
    static let localDeletes = [
        "DELETE FROM items", "DELETE FROM folders", "DELETE FROM notes", "DELETE FROM lists",
        "INSERT INTO lists (id, name) VALUES ('l1', 'back')",
    ]

    /// The configuration of a replica with node `node` reading `clock`.
    static func configuration(_ node: NodeID, clock: ManualClock) -> Replica.Configuration {
        var configuration = Replica.Configuration(clock: clock, makeNodeID: { node })
        configuration.fileIdentity = { _ in scratchIdentity }
        return configuration
    }

    /// What the base and scratch files call themselves (see ``scratchConfiguration(clock:)``).
    static let scratchIdentity = "the fuzzer's scratch replica"

    /// The configuration the scratch replica is opened with for every input.
    ///
    /// The scratch file is the base copied back after each accepted input, so it
    /// names itself, not its inode: Concord would rightly take each restore for a copy.
    /// An input may still hold stamps of the base's own node newer than its clock
    /// (it takes them for a sign it was rolled back), so a new node id is always a
    /// fresh one: the base's id with its last byte counting from 1.
    static func scratchConfiguration(clock: ManualClock) -> Replica.Configuration {
        let issued = Mutex<UInt8>(0)
        var configuration = Replica.Configuration(
            clock: clock,
            makeNodeID: {
                let count = issued.withLock { value -> UInt8 in
                    value &+= 1
                    return value
                }
                return NodeID(bytes: Array(baseNode.bytes.dropLast()) + [baseNode.bytes.last! &+ count])!
            })
        configuration.fileIdentity = { _ in scratchIdentity }
        return configuration
    }

    /// Builds the base replica at `path` (which must not exist), closes it, and returns its bytes and the seeds.
    static func build(at path: String) throws -> FuzzBase {
        let (seeds, now) = try makeReplicas(baseAt: path)
        // Every replica is closed now, so the file holds everything.
        return FuzzBase(bytes: try FuzzFiles.read(path), seeds: seeds, now: now)
    }

    /// Replicas A (at `path`), B and C (in memory) on `clock`, each with the schema and its tables synced.
    private static func makeSyncedReplicas(baseAt path: String, clock: ManualClock) throws -> [Replica] {
        let a = try Replica(path: path, configuration: configuration(baseNode, clock: clock))
        let b = try Replica.inMemory(configuration: configuration(peerNodes[0], clock: clock))
        let c = try Replica.inMemory(configuration: configuration(peerNodes[1], clock: clock))
        let replicas = [a, b, c]
        for replica in replicas {
            try replica.database.execute(schema)
            try replica.enableSync(on: "lists")
            try replica.enableSync(on: "items", merges: ["likes": .counter, "tags": .union, "score": .max])
            try replica.enableSync(on: "notes", policy: .row)
            try replica.enableSync(on: "folders")
        }
        return replicas
    }

    /// Makes the three replicas, A's at `path`, and returns the seeds and the final time.
    private static func makeReplicas(baseAt path: String) throws -> (seeds: [Changeset], now: Int64) {
        let clock = ManualClock(unixMilliseconds: start)
        let replicas = try makeSyncedReplicas(baseAt: path, clock: clock)
        let (a, b, c) = (replicas[0], replicas[1], replicas[2])
        func write(_ replica: Replica, _ sql: String) throws {
            clock.advance(by: 250)
            try replica.database.execute(sql)
        }
        try write(
            a,
            """
            INSERT INTO lists (id, name) VALUES ('l1', 'Groceries'), ('l2', 'Work'), ('l3', 'Old');
            INSERT INTO items (id, list, title, likes, tags, score) VALUES
                ('i1', 'l1', 'milk', 0, '["dairy"]', 1.5), ('i2', 'l1', 'bread', 1, '[]', NULL),
                ('i3', 'l2', 'report', 0, NULL, 7), ('i4', 'l3', 'junk', 0, '[1,"a"]', -0.0);
            INSERT INTO notes (id, body) VALUES (x'01', 'first'), (x'02', 'second');
            INSERT INTO folders (id, parent, name) VALUES ('f1', NULL, 'root'), ('f2', 'f1', 'docs'), ('f3', 'f2', 'old');
            """)
        try Replica.sync(replicas)
        let marks = (b: try b.version, c: try c.version)

        try write(a, "DELETE FROM lists WHERE id = 'l3'")
        try write(a, "UPDATE items SET title = 'oat milk', likes = likes + 1 WHERE id = 'i1'")
        try write(a, "DELETE FROM notes WHERE id = x'02'")
        try write(b, "UPDATE lists SET name = 'Shopping' WHERE id = 'l1'")
        try write(
            b,
            """
            UPDATE items SET likes = likes + 2, tags = '["cold","dairy"]', score = 2.5 WHERE id = 'i1';
            INSERT INTO items (id, list, title) VALUES ('i5', 'l3', 'late child');
            INSERT INTO lists (id, name) VALUES ('l4', 'New'), ('l5', 'nul' || char(0) || 'name');
            INSERT INTO items (id, list, title, likes) VALUES ('i6', 'l4', 'fresh', 5);
            INSERT INTO notes (id, body, pinned) VALUES (x'03', 'third', 1);
            DELETE FROM folders WHERE id = 'f3';
            """)
        try write(
            c,
            """
            UPDATE items SET score = 9.25, likes = likes - 3 WHERE id = 'i1';
            UPDATE notes SET body = 'edited' WHERE id = x'02';
            INSERT INTO folders (id, parent, name) VALUES ('f4', 'f3', 'under old');
            DELETE FROM items WHERE id = 'i2';
            """)
        try write(
            c,
            """
            INSERT INTO items (id, list, title, likes) VALUES ('i2', 'l1', 'bread again', 3);
            INSERT INTO items (id, list, title, score) VALUES (CAST(x'c3a9' AS TEXT), 'l2', CAST(x'61ff62' AS TEXT), 1e300);
            """)
        var seeds = [
            try b.changes(since: 0), try b.changes(since: marks.b), try c.changes(since: 0),
            try c.changes(since: marks.c), try a.changes(since: 0),
        ]
        try Replica.sync([b, c])
        seeds.append(try c.changes(since: 0))
        clock.advance(by: 1_000)
        return (seeds, clock.unixMilliseconds())
    }
}
