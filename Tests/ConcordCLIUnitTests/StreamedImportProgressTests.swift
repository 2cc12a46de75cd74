import Concord
import ConcordTestSupport
import Testing

@testable import ConcordCLI

/// The streamed import's progress on a terminal: both passes, validating and merging, count toward one total.
@Suite("Streamed import progress", .tags(.cli), .timeLimit(.hangGuard))
struct StreamedImportProgressTests {
    @Test func aStreamedImportShowsBothPassesAndAppliesAsTheLibraryDoes() throws {
        let directory = try twoReminderReplicas(rows: 300)
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
