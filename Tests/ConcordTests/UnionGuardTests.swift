import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// A union column takes only TEXT holding a JSON array of strings and integers: what SQLite's JSON functions
/// read as one but is none — the array's bytes as a BLOB, as an app binding `Data` writes it, or text with a
/// NUL and more after it (those functions stop at the NUL) — is refused as it is written, and by `enable`.
///
/// Both used to pass the guard trigger; the merge, which reads every byte of a TEXT, took them for the empty
/// set, and the next fold wrote the column back without the new elements, on every device, `check` content.
@Suite("Union columns' guard", .tags(.replica), .timeLimit(.hangGuard))
struct UnionGuardTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)
    static let schema = "CREATE TABLE posts (id TEXT PRIMARY KEY NOT NULL, tags TEXT);"
    static let disguised: [SQLiteValue] = [
        .blob(Array(#"["a","tag"]"#.utf8)),
        .text(SQLiteText(bytes: Array(#"["a","tag"]"#.utf8) + [0] + Array("x".utf8))),
    ]

    @Test(arguments: disguised)
    func anArrayThatIsNoUnionsTextIsRefusedAsItIsWritten(value: SQLiteValue) throws {
        let replica = try Replica.inMemory(configuration: configuration(node: 1, clock: clock))
        try replica.database.execute(Self.schema + #"INSERT INTO posts VALUES ('p1', '["a"]');"#)
        try replica.enableSync(on: "posts", merges: ["tags": .union])
        let error = #expect(throws: SQLiteError.self) {
            try replica.database.execute("UPDATE posts SET tags = ? WHERE id = 'p1'", [value])
        }
        #expect(
            error?.description.contains("union column posts.tags holds a JSON array") == true,
            "\(String(describing: error))")
        #expect(throws: SQLiteError.self) {
            try replica.database.execute("INSERT INTO posts VALUES ('p2', ?)", [value])
        }
        #expect(try replica.database.query("SELECT id, tags FROM posts ORDER BY id") == [["p1", #"["a"]"#]])
        #expect(try replica.check().isConsistent)
    }

    @Test(arguments: disguised)
    func anArrayThatIsNoUnionsTextRefusesEnabling(value: SQLiteValue) throws {
        let replica = try Replica.inMemory(configuration: configuration(node: 1, clock: clock))
        try replica.database.execute(Self.schema)
        try replica.database.execute("INSERT INTO posts VALUES ('p1', ?)", [value])
        let error = #expect(throws: ReplicaError.self) { try replica.enableSync(on: "posts", merges: ["tags": .union]) }
        #expect(error?.description.contains("column 'tags' of table 'posts'") == true, "\(String(describing: error))")
        #expect(replica.tables.isEmpty)
        #expect(try replica.database.query("SELECT tags FROM posts") == [[value]])
    }

    /// A file whose guards an earlier build made (which let these values through) gets these at the next look.
    @Test func aGuardAnEarlierBuildMadeIsMadeAgain() throws {
        let directory = TemporaryDirectory()
        let path = directory.path("posts.sqlite")
        do {
            let replica = try Replica(path: path, configuration: configuration(node: 1, clock: clock))
            try replica.database.execute(Self.schema)
            try replica.enableSync(on: "posts", merges: ["tags": .union])
            let earlier = """
                SELECT RAISE(ABORT, 'concord: union column posts.tags holds a JSON array of strings and integers') \
                WHERE NEW."tags" IS NOT NULL AND CASE WHEN json_valid(NEW."tags") AND json_type(NEW."tags") = 'array' \
                THEN EXISTS (SELECT 1 FROM json_each(NEW."tags") WHERE type NOT IN ('integer', 'text')) ELSE 1 END;
                """
            for (event, timing) in [("check_insert", "BEFORE INSERT"), ("check_update", "BEFORE UPDATE")] {
                let name = Metadata.trigger(1, event)
                try replica.database.execute(
                    "DROP TRIGGER \"\(name)\"; CREATE TRIGGER \"\(name)\" \(timing) ON \"posts\"\nWHEN 1\nBEGIN\n  "
                        + earlier + "\nEND;")
            }
            try replica.database.execute("INSERT INTO posts VALUES ('p1', ?)", [Self.disguised[0]])  // let through
        }
        let replica = try Replica(path: path, configuration: configuration(node: 1, clock: clock))
        _ = try replica.foldLocalWrites()
        for value in Self.disguised {
            #expect(throws: SQLiteError.self) {
                try replica.database.execute("INSERT INTO posts VALUES ('p2', ?)", [value])
            }
        }
    }
}
