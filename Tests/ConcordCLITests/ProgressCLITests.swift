import Concord
import ConcordTestSupport
import Foundation
import Testing

/// Long commands' progress: never on a pipe, never in `--json` output.
@Suite("concord progress lines", .tags(.cli), .timeLimit(.hangGuard))
struct ProgressCLITests {
    @Test func pipedCommandsPrintNoProgressAndTheirJSONParses() throws {
        let directory = try twoReminderReplicas(rows: 500)
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
        let directory = try twoReminderReplicas(rows: 10)
        try concordOK("export", "a.db", "-o", "a.bin", "--quiet", in: directory)
        let imported = try concordOK("import", "b.db", "a.bin", "-q", in: directory)
        #expect(imported.text == "applied 10, ignored 0\n")
        try concordOK("sync", "a.db", "b.db", "--quiet", in: directory)
        try concordOK("simulate", "--seed", "1", "--steps", "10", "--quiet", in: directory)
        try concordOK("bench", "--rows", "50", "--runs", "1", "--no-import-probe", "--quiet", in: directory)
        try concordOK("fuzz", "--inputs", "5", "--jobs", "1", "--quiet", in: directory)
    }
}
