import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// A connection with `PRAGMA trusted_schema = OFF`, as SQLite advises hardened apps to set, writes and
/// merges union columns like any other.
///
/// SQLite before 3.41 does not mark its scalar JSON functions innocuous, and with `trusted_schema` off
/// refuses every statement whose triggers call one: the union guard's `json_valid` made each write of a
/// table with a union column fail with "unsafe use of json_valid()", the app's and Concord's own merges
/// alike. The guard now reads the value with `json_each` (innocuous) where SQLite is that old.
@Suite(.tags(.replica))
struct TrustedSchemaOffTests {
    private let clock = ManualClock(unixMilliseconds: epoch2026)
    private static let notes = "CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, tags, body);"

    private func replica(_ id: UInt8, path: String? = nil) throws -> Replica {
        let replica =
            try path.map { try Replica(path: $0, configuration: configuration(node: id, clock: clock)) }
            ?? Replica.inMemory(configuration: configuration(node: id, clock: clock))
        if replica.tables.isEmpty {
            try replica.database.execute(Self.notes)
            try replica.enableSync(on: "notes", merges: ["tags": .union])
        }
        try replica.database.execute("PRAGMA trusted_schema = OFF")
        return replica
    }

    private func refusal(_ database: Database, _ sql: String) -> String? {
        do {
            try database.execute(sql)
            return nil
        } catch { return "\(error)" }
    }

    /// Makes `replica`'s union guards again in the form that calls the scalar JSON functions or not.
    private func makeGuards(_ replica: Replica, scalarJSON: Bool) throws {
        let table = try #require(replica.syncedTables["notes"])
        var triggers = try replica.captureTriggers(for: table, facts: replica.facts(of: table))
        triggers.scalarJSONInTriggers = scalarJSON
        try replica.database.execute(
            triggers.dropValueGuardsSQL + "\n" + triggers.valueGuardTriggers.joined(separator: "\n"))
    }

    private func tags(_ replica: Replica) throws -> Set<String> {
        let text = try replica.database.scalar("SELECT tags FROM notes WHERE id = 'n'")?.textValue ?? "[]"
        let elements = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Any]
        return Set((elements ?? []).map { "\($0)" })
    }

    @Test func unionColumnsAreWrittenAndMergedWithTrustedSchemaOff() throws {
        let replicas = try (1...2 as ClosedRange<UInt8>).map { try replica($0) }
        try replicas[0].database.execute(#"INSERT INTO notes VALUES ('n', '["a",1]', 'x')"#)
        try replicas[1].database.execute(#"INSERT INTO notes VALUES ('n', ' ["b"] ', 'y')"#)
        try replicas[1].database.execute(#"UPDATE notes SET tags = '["b","c"]' WHERE id = 'n'"#)
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(try tags(replica) == ["a", "1", "b", "c"])
            #expect(try replica.check().isConsistent)
        }
    }

    /// Whatever is not an array of strings and integers is still refused, and the refused write changes nothing.
    @Test(arguments: [
        "'[1.5]'", "'{\"a\":1}'", "'5'", "''", "'[1,'", "'[[1]]'", "'[1] x'", "'[\"a\"],[\"b\"]'", "x'5b315d'",
    ])
    func whatIsNoUnionIsRefusedWithTrustedSchemaOff(value: String) throws {
        let replica = try replica(1)
        try replica.database.execute(#"INSERT INTO notes VALUES ('n', '["a"]', 'x')"#)
        let before = try replica.database.query("SELECT id, tags, body FROM notes")
        #expect(refusal(replica.database, "UPDATE notes SET tags = \(value) WHERE id = 'n'") != nil)
        #expect(refusal(replica.database, "INSERT INTO notes VALUES ('m', \(value), 'y')") != nil)
        #expect(try replica.database.query("SELECT id, tags, body FROM notes") == before)
        #expect(try replica.check().isConsistent)
    }

    /// Both forms of the guard, the one that reads the array with `json_each` alone and the one that calls
    /// `json_valid` (made where SQLite marks it innocuous, 3.41 on), refuse and take the same values, on a
    /// connection that trusts the schema.
    @Test(arguments: [false, true])
    func bothFormsOfTheGuardAgree(scalarJSON: Bool) throws {
        let replica = try replica(1)
        try replica.database.execute("PRAGMA trusted_schema = ON")
        try makeGuards(replica, scalarJSON: scalarJSON)
        for value in ["'[1.5]'", "'{\"a\":1}'", "'5'", "''", "'[1,'", "'[[1]]'", "'[1] x'", "x'5b315d'", "'[null]'"] {
            #expect(refusal(replica.database, "INSERT INTO notes VALUES ('m', \(value), 'y')") != nil, "\(value)")
        }
        for (index, value) in ["NULL", "'[]'", "' [ 1 , \"a\" ] '", "'[\"\\u00e9\", -3]'"].enumerated() {
            let sql = "INSERT INTO notes VALUES ('k\(index)', \(value), 'y')"
            #expect(refusal(replica.database, sql) == nil, "\(value)")
        }
    }

    /// Text that cannot be an array is refused by the guard, saying which column and what it holds.
    @Test func aValueThatIsNoArrayIsRefusedNamingTheColumn() throws {
        let replica = try replica(1)
        let message = refusal(replica.database, "INSERT INTO notes VALUES ('n', '{\"a\":1}', 'x')")
        #expect(
            message?.contains("union column notes.tags holds a JSON array of strings and integers") == true,
            "\(message ?? "")")
    }

    /// Another client, on SQLite's default VFS with `trusted_schema` off, writes and is captured.
    @Test func anotherClientWithTrustedSchemaOffIsCaptured() throws {
        let directory = TemporaryDirectory()
        let path = directory.path("notes.sqlite")
        let first = try replica(1, path: path)
        let app = try Database(path: path)
        try app.execute("PRAGMA trusted_schema = OFF")
        try app.execute(#"INSERT INTO notes VALUES ('n', '["a"]', 'x')"#)
        try app.execute(#"UPDATE notes SET tags = '["a","b"]' WHERE id = 'n'"#)
        let second = try replica(2)
        try Replica.sync([first, second])
        #expect(try tags(second) == ["a", "b"])
        #expect(try second.check().isConsistent)
    }

    /// A guard made with the scalar JSON functions (by an earlier build, or on an SQLite that marks them
    /// innocuous, then copied here) is made again at the next look, after which such a connection writes.
    @Test func aGuardCallingScalarJSONIsMadeAgain() throws {
        guard Database.libraryVersionNumber < 3_041_000 else { return }
        let directory = TemporaryDirectory()
        let path = directory.path("notes.sqlite")
        do {
            let replica = try replica(1, path: path)
            try makeGuards(replica, scalarJSON: true)
            let message = refusal(replica.database, #"INSERT INTO notes VALUES ('n', '["a"]', 'x')"#)
            #expect(message?.contains("unsafe use of json_valid()") == true, "\(message ?? "")")
        }
        let replica = try replica(1, path: path)
        _ = try replica.foldLocalWrites()
        try replica.database.execute(#"INSERT INTO notes VALUES ('n', '["a"]', 'x')"#)
        #expect(try tags(replica) == ["a"])
    }
}
