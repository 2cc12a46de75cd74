import Concord
import ConcordTestSupport
import ConcordTesting
import Testing

@testable import ConcordSimulator

/// A simulated app that binds its values runs the same statement as one that writes them into the SQL:
/// `SQLTokens.parameterized` turns string and blob literals into parameters, and nothing else.
@Suite(.tags(.simulation))
struct AppStatementBindingTests {
    @Test func stringAndBlobLiteralsBecomeParameters() throws {
        let (sql, values) = try #require(
            SQLTokens.parameterized("UPDATE t SET a = 'x''y', b = X'00fF', c = x'' WHERE id = 3 AND n = -1;"))
        #expect(sql == "UPDATE t SET a = ?, b = ?, c = ? WHERE id = 3 AND n = -1;")
        #expect(values == [.text("x'y"), .blob([0x00, 0xFF]), .blob([])])
    }

    @Test func quotedNamesStayAsTheyAre() throws {
        let (sql, values) = try #require(
            SQLTokens.parameterized(
                #"INSERT INTO "it's" ([a'b], `c'd`, "x""'") VALUES ('v', "#
                    + #"CAST(X'6100' AS TEXT))"#))
        #expect(sql == #"INSERT INTO "it's" ([a'b], `c'd`, "x""'") VALUES (?, CAST(? AS TEXT))"#)
        #expect(values == [.text("v"), .blob([0x61, 0x00])])
    }

    @Test func aWordEndingInXBeforeAStringIsNotABlob() throws {
        let (sql, values) = try #require(SQLTokens.parameterized("SELECT max'a'"))
        #expect(sql == "SELECT max?")
        #expect(values == [.text("a")])
    }

    @Test(arguments: [
        "DELETE FROM t WHERE id = 3",  // nothing to bind
        "DELETE FROM t WHERE id = 'a'; DELETE FROM t",  // two statements
        "DELETE FROM t WHERE id = 'a' -- a comment",
        "DELETE FROM t /* a comment */ WHERE id = 'a'",
        "DELETE FROM t WHERE id = X'0'",  // not whole bytes: SQLite reports it
        "DELETE FROM t WHERE id = X'zz'",
        "DELETE FROM t WHERE id = 'unterminated",
    ])
    func statementsItLeavesToSQLite(sql: String) {
        #expect(SQLTokens.parameterized(sql) == nil)
    }

    @Test func boundValuesStoreWhatTheirLiteralsStore() throws {
        let database = try Database.inMemory()
        try database.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v)")
        // The seed is printed with the shrunk counterexample when this fails.
        try Property.check(iterations: 2_000) { source in
            let value = source.draw(Gen.anySQLiteValue(largeLengths: 1_000...6_000), label: "value")
            let literal = "INSERT INTO t (k, v) VALUES (1, \(value.sqlLiteral))"
            try database.execute("DELETE FROM t")
            try database.execute(literal)
            let expected = try database.scalar("SELECT v FROM t")
            try database.execute("DELETE FROM t")
            if let (template, values) = SQLTokens.parameterized(literal) {
                try database.execute(template, values)
            } else {
                try database.execute(literal)
            }
            let bound = try database.scalar("SELECT v FROM t")
            try Property.require(
                bound == expected,
                "\(literal) stored \(String(describing: expected)), bound \(String(describing: bound))")
        }
    }
}
