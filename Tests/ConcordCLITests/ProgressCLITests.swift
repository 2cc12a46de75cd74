import Concord
import ConcordTestSupport
import Foundation
import Testing

@testable import ConcordCLI

/// Long commands' progress: never on a pipe, never in `--json` output, and the streamed import's two passes.
@Suite("concord progress lines", .tags(.cli), .timeLimit(.hangGuard))
struct ProgressCLITests {
    /// Replicas `a.db` (holding `rows` reminders) and `b.db` (empty), both synced, made with the tool itself.
    private func twoReplicas(rows: Int) throws -> TemporaryDirectory {
        let directory = TemporaryDirectory()
        for name in ["a.db", "b.db"] {
            try sqlite3Shell(directory.path(name), "CREATE TABLE reminders (id TEXT PRIMARY KEY, title TEXT);")
            try concordOK("enable", name, "--table", "reminders", in: directory)
        }
        try sqlite3Shell(
            directory.path("a.db"),
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows)) "
                + "INSERT INTO reminders SELECT 'r' || i, 'title ' || i FROM n;")
        return directory
    }

    @Test func pipedCommandsPrintNoProgressAndTheirJSONParses() throws {
        let directory = try twoReplicas(rows: 500)
        let export = try concordOK("export", "a.db", "-o", "a.bin", in: directory)
        #expect(export.errors.isEmpty && export.output.isEmpty)
        let runs: [[String]] = [
            ["import", "b.db", "a.bin", "--json"],
            ["sync", "a.db", "b.db", "--json"],
            ["simulate", "--seeds", "1..2", "--steps", "20", "--json"],
            ["bench", "--rows", "200", "--runs", "1", "--no-import-probe", "--json"],
        ]
        for arguments in runs {
            let run = try concordOK(arguments, in: directory)
            #expect(run.errors.isEmpty, "\(arguments): \(run.errors)")
            #expect(!run.output.contains(0x1B), "\(arguments): no escape sequence on standard output")
            #expect(
                (try? JSONSerialization.jsonObject(with: run.output)) != nil, "\(arguments) printed: \(run.text)")
        }
    }

    @Test func everyLongCommandTakesQuiet() throws {
        let directory = try twoReplicas(rows: 10)
        try concordOK("export", "a.db", "-o", "a.bin", "--quiet", in: directory)
        let imported = try concordOK("import", "b.db", "a.bin", "-q", in: directory)
        #expect(imported.text == "applied 10, ignored 0\n")
        try concordOK("sync", "a.db", "b.db", "--quiet", in: directory)
        try concordOK("simulate", "--seed", "1", "--steps", "10", "--quiet", in: directory)
        try concordOK("bench", "--rows", "50", "--runs", "1", "--no-import-probe", "--quiet", in: directory)
        try concordOK("fuzz", "--inputs", "5", "--jobs", "1", "--quiet", in: directory)
    }

    @Test func aStreamedImportShowsBothPassesAndAppliesAsTheLibraryDoes() throws {
        let directory = try twoReplicas(rows: 300)
        try concordOK("export", "a.db", "-o", "a.bin", in: directory)
        let err = MemoryByteSink()
        var output = Output(standardOutput: MemoryByteSink(), standardError: err)
        output.standardError = TextStream(sink: err, isTerminal: true)
        let replica = try Replica(path: directory.path("b.db"), create: false)
        let progress = output.progressLine("import", unit: .bytes)
        let report = try importChangeset(atPath: directory.path("a.bin"), into: replica, progress, inMemoryUpTo: 0)
        #expect(report.applied == 300)
        let text = String(decoding: err.bytes, as: UTF8.self)
        #expect(text.contains("validated 300 rows"), "\(text)")
        #expect(text.contains("merged 300 rows"), "\(text)")
        // The decoder reads 64 KiB at a time, so validating the first row reads this whole small file: half the total,
        // which counts the bytes of both passes.
        #expect(text.contains("import: 50% 11.9 kB/23.7 kB"), "\(text)")
        let again = try importChangeset(
            atPath: directory.path("a.bin"), into: replica, output.progressLine("import", unit: .bytes),
            inMemoryUpTo: 0)
        #expect(again.applied == 0 && again.ignored == 300, "applying it twice changes nothing")
        #expect(try sqlite3Shell(directory.path("b.db"), "SELECT count(*) FROM reminders;") == "300\n")
    }
}
