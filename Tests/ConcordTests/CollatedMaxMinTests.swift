import ConcordTestSupport
import Testing

@testable import Concord

/// `max` and `min` compare text by its bytes; a column that compares with another collation is refused.
///
/// Why: on a `COLLATE NOCASE` column the app's later `'Banana'` over `'apple'` (larger to SQLite there), or
/// `'iPhone'` over `'iphone'` (equal to SQLite there), lost to the earlier value at the next fold, on every
/// device, `check` ok (found by two probes of merges and names).
@Suite("Collated max and min columns", .tags(.replica), .timeLimit(.hangGuard))
struct CollatedMaxMinTests {
    @Test(arguments: ["NOCASE", "RTRIM", "nocase"], [ColumnMerge.max, .min])
    func aMaxOrMinColumnWithAnotherCollationIsRefused(collation: String, merge: ColumnMerge) throws {
        let replica = try Replica.inMemory(
            configuration: configuration(node: 1, clock: ManualClock(unixMilliseconds: epoch2026)))
        try replica.database.execute(
            "CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, name TEXT COLLATE \(collation), plain TEXT)")
        let error = #expect(throws: ReplicaError.self) {
            try replica.enableSync(on: "t", merges: ["name": merge])
        }
        #expect("\(error.map { "\($0)" } ?? "")".contains("\(collation) collation"))
        #expect(replica.tables.isEmpty)
        #expect(
            try replica.database.scalar(
                "SELECT count(*) FROM sqlite_schema WHERE name LIKE '\\_concord\\_%' ESCAPE '\\' AND type = 'trigger'")
                == .integer(0))
        // The same merge on a column comparing bytes, and any merge but max or min on the collated one.
        try replica.enableSync(on: "t", merges: ["plain": merge])
        #expect(replica.tables.map(\.name) == ["t"])
    }

    @Test func aCollatedColumnMergesLastWriterWins() throws {
        let replica = try Replica.inMemory(
            configuration: configuration(node: 1, clock: ManualClock(unixMilliseconds: epoch2026)))
        try replica.database.execute("CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, name TEXT COLLATE NOCASE)")
        try replica.enableSync(on: "t")
        try replica.database.execute("INSERT INTO t VALUES ('k', 'iphone')")
        try replica.foldLocalWrites()
        try replica.database.execute("UPDATE t SET name = 'iPhone'")
        #expect(try replica.check().isConsistent)
        #expect(try replica.database.scalar("SELECT name FROM t") == "iPhone")
    }
}
