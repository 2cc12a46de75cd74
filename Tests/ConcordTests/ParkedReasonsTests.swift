@_spi(Simulation) import Concord
import ConcordTestSupport
import Testing

/// `Replica.parkedReasons()`: parked rows by their keys as stored, so keys that print alike stay apart.
@Suite(.tags(.replica))
struct ParkedReasonsTests {
    @Test func keysThatReadAlikeAreTwoRows() throws {
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let (phone, tablet) = (
            try Replica.inMemory(configuration: configuration(node: 1, clock: clock)),
            try Replica.inMemory(configuration: configuration(node: 2, clock: clock))
        )
        for replica in [phone, tablet] {
            try replica.database.execute(
                """
                CREATE TABLE lists (id TEXT PRIMARY KEY NOT NULL, name TEXT);
                CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, list_id TEXT REFERENCES lists(id) ON DELETE CASCADE);
                """)
            try replica.enableSync(on: "lists")
            try replica.enableSync(on: "items")
        }
        // Composed and decomposed é: SQLite keeps them apart, Swift's String calls them equal.
        let (composed, decomposed) = ("caf\u{E9}", "cafe\u{301}")
        try phone.database.execute("INSERT INTO lists VALUES ('l1', 'home')")
        try phone.database.execute(
            "INSERT INTO items VALUES (?, 'l1'), (?, 'l2')", [.text(composed), .text(decomposed)])
        try phone.database.execute("INSERT INTO items VALUES (X'6361666531', 'l3')")
        try tablet.apply(phone.changes(since: 0))

        let reasons = try tablet.parkedReasons()
        #expect(reasons[RowRef(table: "items", key: .text(composed))] == nil, "its parent arrived with it")
        #expect(reasons[RowRef(table: "items", key: .text(decomposed))] == "missing parent lists/l2")
        #expect(reasons[RowRef(table: "items", key: .blob(Array("cafe1".utf8)))] == "missing parent lists/l3")
        #expect(reasons.count == 2)
        // The printed list shows both composed-looking keys, which a String-keyed lookup would merge.
        #expect(try tablet.parked().map(\.key).count == 2)
    }
}
