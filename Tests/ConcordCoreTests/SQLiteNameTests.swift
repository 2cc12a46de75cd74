import ConcordTestTraits
import Testing

@testable import ConcordCore

/// Names match as SQLite matches them: ASCII letters without case, every other byte exactly.
@Suite("SQLite names", .tags(.core))
struct SQLiteNameTests {
    @Test func onlyASCIILettersFold() {
        #expect(SQLiteName.folded("AZaz09_@[`{") == Array("azaz09_@[`{".utf8), "the neighbours of A-Z stay")
        #expect(SQLiteName.same("Reminders", "rEMINDERS"))
        #expect(!SQLiteName.same("@", "`") && !SQLiteName.same("[", "{"), "0x40/0x60 and 0x5B/0x7B are not letters")
        #expect(!SQLiteName.same("\u{C9}", "\u{E9}"), "SQLite folds ASCII only")
        #expect(!SQLiteName.same("\u{E9}", "e\u{301}"), "canonically equivalent, but other bytes")
        #expect(!SQLiteName.same("note", "notes") && !SQLiteName.same("notes", "note"))
        #expect(SQLiteName.same("", ""))
    }

    @Test func prefixesMatchAsNamesDo() {
        #expect(SQLiteName.hasPrefix("_CONCORD_state", "_concord_"))
        #expect(SQLiteName.hasPrefix("sqlite_sequence", "SQLITE_"))
        #expect(!SQLiteName.hasPrefix("sqlite", "sqlite_"))
        #expect(!SQLiteName.hasPrefix("\u{C9}t\u{E9}", "\u{E9}"))
        #expect(SQLiteName.hasPrefix("anything", ""))
    }

    @Test func keysEqualOnlyTheSameBytes() {
        let precomposed = SQLiteName.Key("caf\u{E9}")
        let decomposed = SQLiteName.Key("cafe\u{301}")
        #expect(precomposed.text == decomposed.text, "Swift takes the strings for one")
        #expect(precomposed != decomposed)
        #expect(SQLiteName.Key("Notes") != SQLiteName.Key("notes"), "a key is exact, unlike a name match")
        #expect(SQLiteName.Key("notes") != SQLiteName.Key("note"))
        // A string built from pieces is stored differently from a literal, but has the same bytes.
        let built = SQLiteName.Key(["caf", "\u{E9}"].joined())
        #expect(built == precomposed && built.hashValue == precomposed.hashValue)
        let tables: [SQLiteName.Key: Int] = [precomposed: 1, decomposed: 2, SQLiteName.Key(""): 3]
        #expect(tables.count == 3)
        #expect(tables[SQLiteName.Key("cafe\u{301}")] == 2 && tables[built] == 1 && tables[SQLiteName.Key("")] == 3)
    }
}
