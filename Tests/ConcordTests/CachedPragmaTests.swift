import ConcordTestSupport
import Testing

@testable import Concord

/// `Database.pragma(_:of:)` keeps its statements for reuse; what they report must still follow the schema.
@Suite("PRAGMAs asked again", .tags(.replica), .timeLimit(.hangGuard))
struct CachedPragmaTests {
    private func columns(_ database: Database, of table: String) throws -> [String] {
        try database.pragma("table_xinfo", of: table).compactMap { $0.text("name") }
    }

    @Test func aPragmaAskedAgainSeesAColumnAnotherConnectionAdded() throws {
        let directory = TemporaryDirectory()
        let path = directory.path("app.sqlite")
        let app = try Database(path: path)
        try app.execute("CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT)")
        let concord = try Database(path: path)
        #expect(try columns(concord, of: "notes") == ["id", "body"])
        try app.execute("ALTER TABLE notes ADD COLUMN pinned INTEGER")
        #expect(try columns(concord, of: "notes") == ["id", "body", "pinned"])
    }

    @Test func aPragmaAskedAgainSeesAnIndexRebuiltOnAnotherColumn() throws {
        let database = try Database.inMemory()
        try database.execute("CREATE TABLE t (a, b); CREATE INDEX t_i ON t (a)")
        let indexed = { try database.pragma("index_info", of: "t_i").compactMap { $0.text("name") } }
        #expect(try indexed() == ["a"])
        try database.execute("DROP INDEX t_i; CREATE INDEX t_i ON t (b)")
        #expect(try indexed() == ["b"])
        try database.execute("DROP INDEX t_i")
        #expect(try indexed() == [])
    }
}
