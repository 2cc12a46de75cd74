import ConcordTestSupport
import Foundation
import Testing

/// Table and column names holding `:`, `.` or `=` in `concord enable`'s `--table` and `--merge`.
///
/// Why: the policy was read after any colon and the table's name before the first dot, so `--table a:b`
/// was refused, `--table n:row` took the table `n` for one named `n:row`, and `--merge d.t.c=max` merged
/// the column `t.c` of a table `d` when the table meant was `d.t`, for good.
@Suite("Names with colons, dots and equal signs on the command line", .tags(.cli), .timeLimit(.hangGuard))
struct EnableNameArgumentTests {
    private func database(_ schema: String) throws -> TemporaryDirectory {
        let directory = TemporaryDirectory()
        try sqlite3Shell(directory.path("a.db"), schema)
        return directory
    }

    private func synced(_ directory: TemporaryDirectory) throws -> String {
        try sqlite3Shell(directory.path("a.db"), "SELECT name, merges FROM _concord_tables ORDER BY name")
            .trimmingCharacters(in: .newlines)
    }

    @Test func aNameWhoseLastColonIsNotFollowedByAPolicyIsAllName() throws {
        let directory = try database(
            #"CREATE TABLE "a:b" (id TEXT PRIMARY KEY, v); CREATE TABLE "c:row" (id TEXT PRIMARY KEY);"#)
        try concordOK(["enable", "a.db", "--table", "a:b", "--table", "c:row:column"], in: directory)
        #expect(try synced(directory).split(separator: "\n").map { $0.split(separator: "|")[0] } == ["a:b", "c:row"])
    }

    @Test func aPolicySuffixNamingNoTableButAWholeNameThatDoesSaysHowToWriteIt() throws {
        let directory = try database(#"CREATE TABLE "n:row" (id TEXT PRIMARY KEY, v);"#)
        let result = try concord(["enable", "a.db", "--table", "n:row"], in: directory)
        #expect(result.status == 64)
        #expect(result.errors.contains("--table 'n:row:column'"), "\(result.errors)")
        #expect(
            try sqlite3Shell(directory.path("a.db"), "SELECT count(*) FROM sqlite_schema WHERE name LIKE '_concord%'")
                .trimmingCharacters(in: .newlines) == "0")
    }

    @Test func aMergeIsReadAgainstTheDeclaredTables() throws {
        let directory = try database(
            #"CREATE TABLE "d.t" (id TEXT PRIMARY KEY, c); CREATE TABLE d (id TEXT PRIMARY KEY, "t.c");"#
                + #"CREATE TABLE "e=f" (id TEXT PRIMARY KEY, "x=y");"#)
        let ambiguous = try concord(
            ["enable", "a.db", "--table", "d.t", "--table", "d", "--merge", "d.t.c=max"], in: directory)
        #expect(ambiguous.status == 64 && ambiguous.errors.contains("'d' and 'd.t'"), "\(ambiguous.errors)")
        try concordOK(["enable", "a.db", "--table", "d.t", "--merge", "d.t.c=max"], in: directory)
        try concordOK(["enable", "a.db", "--table", "e=f", "--merge", "e=f.x=y=max"], in: directory)
        try concordOK(["enable", "a.db", "--table", "d"], in: directory)
        #expect(try synced(directory) == #"d|{}"# + "\n" + #"d.t|{"c":"max"}"# + "\n" + #"e=f|{"x=y":"max"}"#)
    }

    @Test func anInlineValueStartingWithACombiningMarkIsTheValue() throws {
        let name = "\u{301}x"
        let directory = try database(#"CREATE TABLE "\#(name)" (id TEXT PRIMARY KEY, v);"#)
        try concordOK(["enable", "a.db", "--table=\(name)"], in: directory)
        #expect(try synced(directory).hasPrefix(name))
    }
}
