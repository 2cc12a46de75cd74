import ConcordTestSupport
import Testing

@testable import Concord

/// `Database.stored(_:as:)` gives what a column of each affinity holds, as SQLite itself stores it.
@Suite(.tags(.replica))
struct StoredValueTests {
    /// What a real column of `affinity` reads back after `value` is written to it.
    private func readBack(_ value: SQLiteValue, as affinity: ColumnAffinity, in database: Database) throws
        -> SQLiteValue?
    {
        try database.execute("DROP TABLE IF EXISTS probe; CREATE TABLE probe (v \(affinity.rawValue))")
        try database.execute("INSERT INTO probe VALUES (?)", [value])
        return try database.scalar("SELECT v FROM probe")
    }

    @Test func eachAffinityStoresAsItsColumnReadsBack() throws {
        let database = try Database.inMemory()
        let values: [SQLiteValue] = [
            .integer(7), .real(7), .real(-0.0), .real(1.5), .text("007"), .text("1e2"), .text(" 7 "), .text("x"),
            .integer(9_007_199_254_740_993),
        ]
        for affinity in [ColumnAffinity.text, .numeric, .integer, .real, .blob] {
            for value in values {
                #expect(try database.stored(value, as: affinity) == readBack(value, as: affinity, in: database))
            }
        }
    }

    /// The helper table is made again after a rolled-back transaction that made it took it away.
    @Test func aRollbackThatTookTheHelperTableAwayIsSurvived() throws {
        let database = try Database.inMemory()
        try database.execute("BEGIN")
        #expect(try database.stored(.text("007"), as: .integer) == .integer(7))
        try database.execute("ROLLBACK")
        #expect(try database.stored(.text("008"), as: .integer) == .integer(8))
        #expect(try database.stored(.integer(9), as: .text) == .text("9"))
    }
}
