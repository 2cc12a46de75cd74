import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// Concord's JSON reports keep a TEXT key and a BLOB key with the same letters apart.
///
/// A black-box probe found `concord sync --json`, `import --json`, `changed --json` and `status --json` printing the
/// BLOB key `X'61'` and the TEXT key `X'61'` alike: a program refreshing the rows a sync changed could
/// not tell which of the two rows it was.
@Suite(.tags(.replica))
struct JSONKeyTests {
    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func keysOfEveryTypeReadApart() throws {
        let keys: [SQLiteValue] = [
            "X'61'", .blob([0x61]), "r1", .text(SQLiteText(bytes: [0xFF, 0x61])), .integer(7), .null,
        ]
        #expect(
            try keys.map { try Self.json(JSONKey($0)) } == [
                #""X'61'""#, #"{"blob":"61"}"#, #""r1""#, #"{"textHex":"ff61"}"#, #"{"integer":7}"#,
                #"{"null":null}"#,
            ])
    }

    @Test func aSyncReportAndTheChangedRowsTellATextKeyFromABlobKey() throws {
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let (phone, laptop) = try (
            Replica.inMemory(configuration: configuration(node: 1, clock: clock)),
            Replica.inMemory(configuration: configuration(node: 2, clock: clock))
        )
        for replica in [phone, laptop] {
            try replica.database.execute("CREATE TABLE notes (id PRIMARY KEY NOT NULL, body)")
            try replica.enableSync(on: "notes")
        }
        try phone.database.execute("INSERT INTO notes VALUES (X'61', 'blob'), ('X''61''', 'text')")
        let report = try laptop.apply(phone.changes())
        #expect(try Self.json(report.changes) == #"{"tables":[{"inserted":["X'61'",{"blob":"61"}],"table":"notes"}]}"#)
        let changed = try Self.json(laptop.changedRows(since: 0))
        #expect(changed.contains(#""key":{"blob":"61"}"#) && changed.contains(#""key":"X'61'""#), "\(changed)")
    }

    @Test func theStatusTellsParkedTextAndBlobKeysApart() throws {
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let replica = try Replica.inMemory(configuration: configuration(node: 1, clock: clock))
        try replica.database.execute(
            """
            CREATE TABLE lists (id TEXT PRIMARY KEY NOT NULL);
            CREATE TABLE items (id PRIMARY KEY NOT NULL, list REFERENCES lists(id) ON DELETE CASCADE);
            """)
        try replica.enableSync(on: "lists")
        try replica.enableSync(on: "items")
        try replica.database.execute("INSERT INTO items VALUES (X'61', 'gone'), ('X''61''', 'gone')")
        let parked = try replica.status().parked
        #expect(parked.map(\.keyValue) == ["X'61'", .blob([0x61])])
        #expect(
            try parked.map { try Self.json($0) } == [
                #"{"key":"X'61'","reason":"missing parent lists/gone","table":"items"}"#,
                #"{"key":{"blob":"61"},"reason":"missing parent lists/gone","table":"items"}"#,
            ])
    }
}
