import Concord
import ConcordTestSupport
import ConcordTesting
import Testing

/// `SQLiteValue.sqlLiteral` writes every value SQLite can hold as SQL that stores exactly that value.
///
/// Simulated apps splice drawn values into their statements; a literal SQLite
/// reads back as another value (a real one bit off, text cut at a NUL, a blob
/// become text) would make the oracle expect what the app never stored.
@Suite(.tags(.concordTesting))
struct SQLLiteralTests {
    /// Stores `value` through its literal in an untyped column and reads it back.
    static func roundTrip(_ value: SQLiteValue, in database: Database) throws -> SQLiteValue? {
        try database.execute("DELETE FROM t")
        try database.execute("INSERT INTO t (v) VALUES (\(value.sqlLiteral))")
        return try database.scalar("SELECT v FROM t")
    }

    @Test func everyGeneratedValueRoundTripsExactly() throws {
        let database = try Database.inMemory()
        try database.execute("CREATE TABLE t (v)")
        // The seed is printed with the shrunk counterexample when this fails.
        try Property.check(iterations: 3_000) { source in
            let value = source.draw(Gen.anySQLiteValue(largeLengths: 1_000...6_000), label: "value")
            let stored = try Self.roundTrip(value, in: database)
            try Property.require(stored == value, "\(value.sqlLiteral) stored \(stored?.description ?? "nothing")")
        }
    }

    @Test func everyRandomDoubleRoundTripsExactly() throws {
        let database = try Database.inMemory()
        try Property.check(iterations: 3_000) { source in
            let bits = source.choose(upTo: .max)
            let value = Double(bitPattern: bits)
            guard !value.isNaN else { return }
            let read = try database.scalar("SELECT \(SQLiteValue.real(value).sqlLiteral)")
            try Property.require(
                read == .real(value), "\(value) (bits \(bits)) read back as \(read?.description ?? "nothing")")
        }
    }

    @Test(arguments: [
        SQLiteValue.real(-0.0), .real(.infinity), .real(-.infinity), .real(.leastNonzeroMagnitude),
        .real(-.greatestFiniteMagnitude), .integer(.min), .integer(.max), .text(""), .blob([]),
        .text(SQLiteText(bytes: [0x61, 0x00, 0x62])), .text(SQLiteText(bytes: [0xFF, 0xC0, 0x80])), .text("'\"'"),
        .blob(Array(repeating: 0xAB, count: 4_096)), .null,
    ])
    func edgesRoundTripExactly(value: SQLiteValue) throws {
        let database = try Database.inMemory()
        try database.execute("CREATE TABLE t (v)")
        #expect(try Self.roundTrip(value, in: database) == value, "\(value.sqlLiteral)")
    }

    @Test func nanHasNoLiteralButNull() {
        #expect(SQLiteValue.real(.nan).sqlLiteral == "NULL")
    }
}
