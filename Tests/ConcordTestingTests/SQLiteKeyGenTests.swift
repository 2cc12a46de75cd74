import Concord
import ConcordTestSupport
import ConcordTesting
import Foundation
import Testing

/// `Gen.sqliteKey`, `Gen.sqliteKeys(count:)` and `Gen.sqliteLookalike(of:)`.
@Suite(.tags(.concordTesting))
struct SQLiteKeyGenTests {
    static func bytes(_ value: SQLiteValue) -> [UInt8] {
        switch value {
        case .text(let text): text.bytes
        case .blob(let bytes): bytes
        default: []
        }
    }

    @Test func keysAreTextOrBlobOverTheWholeByteSpace() {
        let keys = (0..<2_000 as Range<UInt64>).map { Gen.sqliteKey.sample(seed: $0) }
        #expect(keys.allSatisfy { $0.typeName == "text" || $0.typeName == "blob" })
        #expect(keys.contains(.text("")) && keys.contains(.blob([])))
        #expect(keys.contains { if case .text(let t) = $0 { t.bytes.contains(0) } else { false } })
        #expect(keys.contains { if case .text(let t) = $0 { !t.isValidUTF8 } else { false } })
        #expect(keys.contains { $0.textValue.map { UUID(uuidString: $0) != nil } ?? false })
        #expect(Gen.sqliteKey.replay([]) == .text(""))
    }

    /// Every generated set of keys is as many rows of a BINARY primary key, and near-duplicates of every kind come up.
    @Test func keySetsAreDistinctToSQLiteAndFullOfNearDuplicates() throws {
        var kinds: Set<String> = []
        for seed: UInt64 in 0..<300 {
            let keys = Gen.sqliteKeys(count: 2...8).sample(seed: seed)
            #expect((2...8).contains(keys.count))
            let database = try Database.inMemory()
            try database.execute("CREATE TABLE t (id PRIMARY KEY NOT NULL) WITHOUT ROWID")
            for key in keys { try database.execute("INSERT INTO t VALUES (?)", [key]) }
            #expect(try database.scalar("SELECT count(*) FROM t") == .integer(Int64(keys.count)))
            for (index, key) in keys.enumerated() {
                for other in keys[..<index] {
                    let (a, b) = (Self.bytes(key), Self.bytes(other))
                    if a == b { kinds.insert("type only") }
                    if a.count == b.count && zip(a, b).filter({ $0 != $1 }).count == 1 { kinds.insert("one byte") }
                    if a.count == b.count + 1 && a.starts(with: b) || b.count == a.count + 1 && b.starts(with: a) {
                        kinds.insert("one byte more")
                    }
                    if let s = key.textValue, let t = other.textValue, s == t, !s.utf8.elementsEqual(t.utf8) {
                        kinds.insert("normalization")
                    }
                }
            }
        }
        #expect(kinds == ["type only", "one byte", "one byte more", "normalization"])
    }

    @Test func keySetsShrinkToFewSimpleKeys() throws {
        let gen = Gen.sqliteKeys(count: 0...8)
        let failure = try #require(Property.findFailure(gen, seed: 9, iterations: 200) { $0.count < 3 })
        #expect(gen.replay(failure.choices) == [.text(""), .text("\0"), .text("\0\0")])
    }

    /// A look-alike is never the same stored value, and the closest one is SQL-equal for numbers and case.
    @Test func lookalikesDifferInBytesOrTypeOnly() throws {
        let database = try Database.inMemory()
        for seed: UInt64 in 0..<2_000 {
            let value = Gen.anySQLiteValue(largeLengths: nil).sample(seed: seed)
            let other = Gen.sqliteLookalike(of: value).sample(seed: seed)
            #expect(other != value, "\(value) -> \(other)")
        }
        let pairs: [(SQLiteValue, SQLiteValue)] = [
            (.integer(1), .real(1)), (.real(0), .real(-0.0)), (.real(-0.0), .real(0)), (.real(2), .integer(2)),
            (.text("A"), .text("a")), (.text("\u{E9}"), .text(SQLiteText(bytes: Array("e\u{301}".utf8)))),
            (.blob([1]), .text(SQLiteText(bytes: [1]))), (.null, .text("")),
        ]
        for (value, closest) in pairs {
            #expect(Gen.sqliteLookalike(of: value).replay([]) == closest, "\(value)")
        }
        for (value, closest) in pairs.prefix(5) {
            let equal = try database.scalar("SELECT ? = ? COLLATE NOCASE", [value, closest])
            #expect(equal == .integer(1), "\(value) and \(closest) should be SQL-equal")
        }
    }
}
