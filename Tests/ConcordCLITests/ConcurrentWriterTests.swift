import ConcordTestSupport
import Foundation
import Testing

/// Several app processes write the synced tables of one file while `concord` commands run on
/// it, in WAL and in rollback-journal mode.
///
/// Each writer is a `sqlite3` shell (`.timeout 5000` by default, `-bail`) running a seeded script of small
/// `BEGIN IMMEDIATE` transactions over its own keys (``AppWriter``), half of them also adding 1
/// to a counter row every writer shares, with pauses of up to 30 ms between them; half the
/// writers turn foreign keys on, half leave the notes of a deleted item to Concord's fold. One
/// more writer writes the second replica, so each sync merges its rows into the first while
/// the apps write. The file also holds a 9 MB local table Concord does not sync, as apps'
/// databases do. Meanwhile a loop runs `concord check` (every other command), `status`,
/// `export` and `sync` with the second replica on the file. Then:
///
/// - every writer committed everything (exit 0, nothing on standard error);
/// - no command failed, except with a clear "database is locked" error, and `check` never
///   reported a problem: a replica that apps are writing is not damaged;
/// - after a final sync both replicas pass `check` and show exactly the rows the writers
///   committed, the counter equal to the number of increments.
///
/// CONCORD_WRITERS (at least 4), CONCORD_WRITER_TRANSACTIONS and CONCORD_WRITER_TIMEOUT_MS size
/// a longer local run, CONCORD_CONCURRENCY_SEED picks the scripts; every failure names the seed
/// and journal mode.
@Suite("App writers and concord commands on one file", .tags(.cli, .concurrency, .slow))
struct ConcurrentWriterTests {
    static let seed = HarnessSettings.seed("CONCORD_CONCURRENCY_SEED", default: 20_260_202)
    static let writers = max(4, HarnessSettings.integer("CONCORD_WRITERS", default: 4))
    static let transactions = HarnessSettings.integer("CONCORD_WRITER_TRANSACTIONS", default: 80)
    /// A hang guard that grows with a longer local run (never under the shared one: see `hangGuard`).
    static let minutes = max(TimeLimitTrait.Duration.hangGuardMinutes, writers * transactions / 400)
    /// How long a writer waits for the lock, in milliseconds (`.timeout`), like Concord's 5 s by default.
    ///
    /// In rollback-journal mode SQLite's locks are not fair: with eight writers and a reader
    /// that never stops, a writer can wait past 5 s without Concord (a plain `PRAGMA
    /// integrity_check` loop did that to one of eight), so longer runs give writers more.
    static let writerTimeout = HarnessSettings.integer("CONCORD_WRITER_TIMEOUT_MS", default: 5_000)

    /// What one `concord` command in the loop did.
    private struct CommandRun {
        var arguments: [String]
        var status: Int32
        var text: String
        var errors: String
        /// Seconds since the writers started.
        var at: Double
    }

    @Test(
        "writers commit everything, commands never report a false problem, and everything reaches the second replica",
        .timeLimit(.minutes(ConcurrentWriterTests.minutes)), arguments: ["wal", "delete"])
    func writersAndCommandsShareOneFile(journal: String) async throws {
        try await offThePool { try run(journal: journal) }
    }

    private func run(journal: String) throws {
        let directory = TemporaryDirectory()
        let seed = derivedSeed(Self.seed, journal == "wal" ? 1 : 2)
        let context = "seed \(Self.seed) (\(journal) mode, \(Self.writers) writers × \(Self.transactions) transactions)"
        for file in ["a.db", "b.db"] {
            try sqlite3Shell(directory.path(file), "PRAGMA journal_mode = \(journal);\n" + AppSchema.createSQL)
            try concordOK(["enable", file] + AppSchema.enableArguments, in: directory)
        }
        var state = AppState()
        try sqlite3Shell(
            directory.path("a.db"), "INSERT INTO items (id, n, s, b) VALUES ('shared', 0, 'counter', NULL);")
        // The app also keeps a local table Concord does not sync: 9 MB that every check's
        // integrity check reads, as it would in an app's real database.
        try sqlite3Shell(
            directory.path("a.db"),
            """
            CREATE TABLE local_cache (id INTEGER PRIMARY KEY, body TEXT);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40000)
            INSERT INTO local_cache SELECT i, printf('%0100d', i) FROM n;
            CREATE INDEX local_cache_body ON local_cache (body);
            """)
        try concordOK("sync", "a.db", "b.db", in: directory)

        // Each writer's script, and the rows they commit (their keys differ, so in any interleaving).
        // The writers of a.db share a counter; one more writer on b.db gives each sync something to merge into a.db.
        var increments: Int64 = 0
        let files = Array(repeating: "a.db", count: Self.writers) + ["b.db"]
        for (index, file) in files.enumerated() {
            let onA = file == "a.db"
            var writer = AppWriter(owner: onA ? "w\(index)" : "b0", seed: derivedSeed(seed, UInt64(index)))
            var lines = [".timeout \(Self.writerTimeout)", "PRAGMA foreign_keys = \(index % 2 == 0 ? "ON" : "OFF");"]
            for _ in 0..<Self.transactions {
                lines.append("BEGIN IMMEDIATE;")
                lines += writer.statements(writer.draw(1...4), &state)
                if onA && writer.draw(0...1) == 0 {
                    lines.append("UPDATE items SET n = n + 1 WHERE id = 'shared';")
                    increments += 1
                }
                lines.append("COMMIT;")
                // An app pauses between transactions; a writer that never does starves every other connection.
                lines.append(".shell sleep 0.0\(writer.draw(0...2))\(writer.draw(0...9))")
            }
            try (lines.joined(separator: "\n") + "\n").write(
                toFile: directory.path("writer\(index).sql"), atomically: true, encoding: .utf8)
        }
        state.rows["items", default: [:]]["shared"] = [.integer(increments), .text("counter"), .null]

        let clock = ContinuousClock()
        let start = clock.now
        let writers = try files.enumerated().map { index, file in
            try ChildProcess.sqlite3(
                directory.path(file), script: directory.path("writer\(index).sql"), in: directory.url,
                label: "writer\(index)")
        }
        // Every other command is a check: false alarms are what this looks for most.
        let loop: [[String]] = [
            ["check", "a.db"], ["status", "a.db"], ["check", "a.db"],
            ["export", "a.db", "--output", "changes.bin"], ["check", "a.db"], ["sync", "a.db", "b.db"],
        ]
        var runs: [CommandRun] = []
        while writers.contains(where: \.isRunning) {
            let arguments = loop[runs.count % loop.count]
            let at = clock.now - start
            var command = CommandRun(
                arguments: arguments, status: -1, text: "", errors: "",
                at: Double(at.components.seconds) + Double(at.components.attoseconds) / 1e18)
            do {
                let run = try concord(arguments, in: directory)
                (command.status, command.text, command.errors) = (run.status, run.text, run.errors)
            } catch {
                command.errors = "could not run concord: \(error)"
            }
            runs.append(command)
        }
        let writing = clock.now - start
        for (index, writer) in writers.enumerated() {
            let outcome = writer.wait()
            #expect(
                outcome.status == 0 && !outcome.killed && outcome.errors.isEmpty,
                "\(context): writer \(index) of \(files[index]) did not commit all its transactions: \(outcome)")
        }

        var busy = 0
        var problems: [String] = []
        for (index, run) in runs.enumerated() {
            let name =
                "command \(index) `concord \(run.arguments.joined(separator: " "))` at \(String(format: "%.2f", run.at)) s"
            if run.status == 0 { continue }
            if run.status == 1 && Self.isBusy(run.errors) {
                busy += 1
                continue
            }
            problems.append("\(name) exited \(run.status): \(run.text.prefix(600))\(run.errors.prefix(600))")
        }
        #expect(
            problems.isEmpty,
            Comment(
                rawValue: "\(context): \(problems.count) of \(runs.count) concord commands run while apps wrote "
                    + "failed other than busy; the first: \n" + problems.prefix(5).joined(separator: "\n")))

        // The writers are done: one more sync, and both replicas hold exactly what they committed.
        try concordOK("sync", "a.db", "b.db", in: directory)
        for file in ["a.db", "b.db"] {
            let check = try concord(["check", file], in: directory)
            #expect(check.status == 0, "\(context): final concord check \(file): \(check.text)\(check.errors)")
            let view = try ShellView(directory.path(file))
            #expect(view.integrity == "ok", "\(context): \(file) integrity \(view.integrity)")
            #expect(
                view.rows == state.dump,
                Comment(
                    rawValue: "\(context): \(file) after the final sync differs from what the writers committed: "
                        + ShellView.difference(view.rows, state.dump)))
        }
        print(
            "concurrency harness \(journal): seed \(Self.seed), \(Self.writers) writers × \(Self.transactions) transactions "
                + "(\(increments) shared increments) in \(writing), \(runs.count) concord commands meanwhile, \(busy) busy, "
                + "\(problems.count) failed")
    }

    /// Whether `errors` is SQLite's busy error, the one failure allowed while apps hold the file.
    static func isBusy(_ errors: String) -> Bool {
        errors.contains("database is locked") || errors.contains("database is busy")
    }
}
