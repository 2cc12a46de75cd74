import ConcordTestSupport
import Foundation
import Testing

/// Another process holds the database longer than Concord's busy timeout (5 s): every `concord`
/// command on it waits that long, once, then fails with a clear busy error and writes nothing: not to
/// the database files, and not to the file an export was asked to write.
@Suite("A lock held past the busy timeout", .tags(.cli, .concurrency, .slow))
struct LockTimeoutTests {
    @Test(
        "commands fail with 'database is locked' after the timeout and leave every file byte-identical",
        .timeLimit(.hangGuard), arguments: ["wal", "delete"])
    func commandsFailClearlyAndChangeNothing(journal: String) async throws {
        try await offThePool { try run(journal: journal) }
    }

    private func run(journal: String) throws {
        let directory = TemporaryDirectory()
        for file in ["a.db", "b.db"] {
            try sqlite3Shell(directory.path(file), "PRAGMA journal_mode = \(journal);\n" + AppSchema.createSQL)
            try concordOK(["enable", file] + AppSchema.enableArguments, in: directory)
        }
        try sqlite3Shell(directory.path("a.db"), "INSERT INTO items (id, n) VALUES ('a-1', 1), ('a-2', 2);")
        try concordOK("sync", "a.db", "b.db", in: directory)
        // A changeset a.db has not seen, and writes a.db's log holds: every command below would write.
        try sqlite3Shell(directory.path("b.db"), "INSERT INTO items (id, n) VALUES ('b-1', 1);")
        try concordOK("export", "b.db", "--output", "from-b.bin", in: directory)
        try sqlite3Shell(
            directory.path("a.db"), "UPDATE items SET n = 10 WHERE id = 'a-1'; INSERT INTO items (id) VALUES ('a-3');")
        // The file a failed export names already holds an earlier changeset, which must survive.
        try FileManager.default.copyItem(atPath: directory.path("from-b.bin"), toPath: directory.path("out.bin"))

        let holder = try ChildProcess.sqlite3(directory.path("a.db"), script: nil, in: directory.url, label: "holder")
        try holder.write("BEGIN EXCLUSIVE;\n.shell touch locked\n")
        #expect(
            ChildProcess.poll(timeout: 10) { FileManager.default.fileExists(atPath: directory.path("locked")) },
            "\(journal): the sqlite3 shell did not take the lock")
        let files = ["a.db", "a.db-wal", "a.db-journal", "b.db", "b.db-wal", "b.db-journal", "out.bin"]
        let before = files.map { try? fileBytes(directory.path($0)) }

        let commands = [
            ["check", "a.db"], ["status", "a.db"], ["export", "a.db", "--output", "out.bin"],
            ["import", "a.db", "from-b.bin"], ["sync", "a.db", "b.db"],
        ]
        let started = try commands.enumerated().map { index, arguments in
            try ChildProcess.concord(arguments, in: directory.url, label: "command\(index)")
        }
        var report: [String] = []
        for (arguments, child) in zip(commands, started) {
            let outcome = child.wait()
            let elapsed = child.elapsed
            let name = "\(journal): concord \(arguments.joined(separator: " "))"
            report.append(
                "\(name) -> exit \(outcome.status) after \(String(format: "%.1f", elapsed)) s: "
                    + outcome.errors.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(!outcome.killed && outcome.status == 1, "\(name): \(outcome)")
            #expect(
                outcome.errors.hasPrefix("Error: ") && outcome.errors.contains("database is locked"),
                "\(name) did not say the database is busy: \(outcome)")
            // It waited for the lock, as long as the busy timeout, before giving up.
            #expect(elapsed >= 4.5, "\(name) gave up after \(elapsed) s, before the 5 s busy timeout")
            // Once: opening the replica does not wait for the lock too (its checkpoint of a write-ahead log
            // once waited the whole timeout, and every command took 10 s).
            #expect(elapsed < 8.5, "\(name) gave up after \(elapsed) s: it waited for the lock more than once")
        }
        print(report.joined(separator: "\n"))
        for (file, bytes) in zip(files, before) {
            let after = try? fileBytes(directory.path(file))
            let sizes =
                "\(bytes.map { "\($0.count) bytes" } ?? "absent") before, \(after.map { "\($0.count) bytes" } ?? "absent") after"
            #expect(after == bytes, "\(journal): \(file) changed while the lock was held (\(sizes))")
        }

        try holder.write("ROLLBACK;\n")
        let released = holder.wait()
        #expect(released.status == 0 && released.errors.isEmpty, "\(journal): lock holder: \(released)")
        // Once the lock is gone, the same commands work.
        try concordOK("import", "a.db", "from-b.bin", in: directory)
        try concordOK("sync", "a.db", "b.db", in: directory)
        for file in ["a.db", "b.db"] { try concordOK("check", file, in: directory) }
    }
}
