import Concord
import ConcordTestSupport
import Testing

/// A prepared statement holds one statement: SQL with more is refused, not run in part.
@Suite struct MultipleStatementTests {
    private func database() throws -> Database {
        let database = try Database.inMemory()
        try database.execute("CREATE TABLE a (v); CREATE TABLE b (v)")
        return database
    }

    /// Before, SQLite compiled only the INSERT into `a`: the call succeeded and `b` stayed empty.
    @Test func sqlWithASecondStatementIsRefusedAndChangesNothing() throws {
        let database = try database()
        let error = #expect(throws: SQLiteError.self) {
            try database.execute("INSERT INTO a VALUES (?); INSERT INTO b VALUES (2)", [1])
        }
        #expect(error?.code == 21)
        #expect(error?.description.contains("more than one statement") == true, "\(String(describing: error))")
        #expect(try database.query("SELECT count(*) FROM a") == [[0]])
        #expect(throws: SQLiteError.self) { try database.prepare("SELECT 1; SELECT 2") }
        // Text after the statement that SQLite cannot compile is more than the statement, too.
        #expect(throws: SQLiteError.self) { try database.prepare("SELECT 1; garbage") }
    }

    @Test func spacesCommentsAndSemicolonsAfterTheStatementAreFine() throws {
        let database = try database()
        try database.execute("INSERT INTO a VALUES (?);  -- the value\n ; /* done */ ;\n", [1])
        #expect(try database.query("SELECT v FROM a") == [[1]])
        // A script without parameters still runs every statement.
        try database.execute("INSERT INTO a VALUES (2); INSERT INTO b VALUES (3)")
        #expect(try database.query("SELECT (SELECT count(*) FROM a), (SELECT count(*) FROM b)") == [[2, 1]])
    }
}
