import Concord
import ConcordTestSupport
import ConcordTesting
import Testing

/// `Gen.sqliteIdentifier`, `Gen.sqliteIdentifiers(count:)` and `Gen.concordReservedIdentifier`.
@Suite(.tags(.concordTesting))
struct SQLiteIdentifierGenTests {
    static let names = (0..<3_000 as Range<UInt64>).map { Gen.sqliteIdentifier.sample(seed: $0) }

    /// SQLite's comparison of names: ASCII letters folded, nothing else.
    static func folded(_ name: String) -> [UInt8] {
        name.utf8.map { (65...90).contains($0) ? $0 | 0x20 : $0 }
    }

    @Test func sqliteAcceptsEveryNameForEveryKindOfObject() throws {
        let database = try Database.inMemory()
        var made: Set<[UInt8]> = []
        for name in Self.names where made.insert(Self.folded(name)).inserted {
            let q = quoteIdentifier(name)
            let other = quoteIdentifier(name + "_other")
            try database.execute(
                """
                CREATE TABLE \(q) (\(q) TEXT PRIMARY KEY NOT NULL, \(other));
                CREATE INDEX \(quoteIdentifier(name + "_index")) ON \(q) (\(other));
                CREATE TRIGGER \(quoteIdentifier(name + "_trigger")) AFTER UPDATE OF \(other) ON \(q)
                BEGIN SELECT NEW.\(q), OLD.\(other); END;
                INSERT INTO \(q) (\(q), \(other)) VALUES ('k', 1);
                UPDATE \(q) SET \(other) = 2;
                """)
            let read = try database.query("SELECT \(q), \(other) FROM \(q)")
            #expect(read == [[.text("k"), .integer(2)]], "\(name)")
            let listed = try database.query(
                "SELECT name FROM temp.pragma_table_info(?, 'main') ORDER BY cid", [.text(name)])
            #expect(
                listed.first?.first.map { $0 == .text(SQLiteText(name)) } ?? false, "\(name) read back as \(listed)")
        }
    }

    @Test func namesAvoidTheReservedNamespacesAndNUL() {
        for name in Self.names {
            let folded = Self.folded(name)
            #expect(
                !folded.starts(with: Array("sqlite_".utf8)) && !folded.starts(with: Array("_concord_".utf8)), "\(name)")
            #expect(!name.utf8.contains(0))
        }
    }

    @Test func everyFamilyOfAwkwardNamesComesUp() {
        let names = Set(Self.names)
        for expected in [
            "select", "order", "group", "key", "pk", "ver", "kh", "cl", "hlc", "node", "clh", "cln",
            "c0", "h0", "n0", "o0", "v0", "seq", "tbl", "rowid", "new", "old", "a", "a_rows", "a1", "a_1", "",
        ] {
            #expect(names.contains(expected), "never generated \(expected)")
        }
        #expect(Self.names.contains { $0.contains("\"") } && Self.names.contains { $0.contains("'") })
        #expect(Self.names.contains { $0.contains(" ") } && Self.names.contains { !$0.utf8.allSatisfy { $0 < 0x80 } })
        #expect(Self.names.contains { $0.unicodeScalars.contains("\u{301}") })
        #expect(Gen.sqliteIdentifier.replay([]) == "a")
    }

    /// One table takes every generated list as its columns; lists hold names SQLite tells apart but Swift may not.
    @Test func identifierListsAreDistinctToSQLite() throws {
        var respelled = 0
        var extended = 0
        for seed: UInt64 in 0..<400 {
            let names = Gen.sqliteIdentifiers(count: 1...6).sample(seed: seed)
            #expect((1...6).contains(names.count))
            let database = try Database.inMemory()
            try database.execute("CREATE TABLE t (\(names.map(quoteIdentifier).joined(separator: ", ")))")
            for (index, name) in names.enumerated() {
                for other in names[..<index] {
                    if name == other { respelled += 1 }
                    if name.utf8.starts(with: other.utf8) { extended += 1 }
                }
            }
        }
        #expect(respelled > 5 && extended > 50, "\(respelled) respelled, \(extended) extended")
    }

    @Test func reservedNamesAreInConcordsNamespace() {
        for seed: UInt64 in 0..<500 {
            let name = Gen.concordReservedIdentifier.sample(seed: seed)
            #expect(Self.folded(name).starts(with: Array("_concord_".utf8)), "\(name)")
        }
        #expect(Gen.concordReservedIdentifier.replay([]) == "_concord_x")
    }
}
