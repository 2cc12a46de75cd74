import Concord
import ConcordTestSupport
import Foundation
import Testing

/// `kill -9` of a real `concord` process at a random moment — an import, a sync, or the fold
/// that the first command after many app writes does — and what the files are afterwards.
///
/// Each kind builds a few starting states (two replicas `a.db` and `b.db` of ``AppSchema``,
/// written by the `sqlite3` shell, half in rollback-journal mode and half in WAL mode) and runs
/// the steps once without interruption: that run's result is the reference, and it must hold
/// exactly the rows the apps committed (``AppWriter`` keeps the model). Then each trial copies
/// the starting files, starts the first step and kills it after a delay drawn from the seed
/// (a fraction of how long the command runs now; a trial whose command finished first only
/// teaches that, and does not count), and checks:
///
/// 1. every file the command writes passes `PRAGMA integrity_check` (read by the shell before
///    Concord opens it again) and `concord check` exits 0 (in half the trials right away, in
///    the other half after the re-run below, so the re-run meets what the kill left);
/// 2. every row the file's own app committed is there, as committed;
/// 3. re-running the killed command and the remaining steps reaches the reference state:
///    the same rows in both files (`typeof` and `quote` of every column, in key order) and the
///    same `concord export --since 0 --format json` of each file — every register, stamp and
///    value — but for two things that are not the same by design: each copied file's own node
///    id (a copy takes one of its own) and the header's version range (local versions follow
///    the physical clock, so a run at another moment numbers them higher).
///
/// CONCORD_CRASH_TRIALS sets the number of kills over the three kinds (default 102, a third of
/// them per kind), CONCORD_CRASH_SEED the seed, CONCORD_CRASH_LANES how many trials run at once
/// (default 3), CONCORD_HARNESS_KEEP a folder that receives the files of a failed trial. Every
/// failure names the seed, kind, template and trial.
@Suite("kill -9 of concord at random moments", .tags(.cli, .crash, .slow))
struct CrashTests {
    static let seed = HarnessSettings.seed("CONCORD_CRASH_SEED", default: 20_260_101)
    static let trials = HarnessSettings.integer("CONCORD_CRASH_TRIALS", default: 102)
    /// Trials running at once over all kinds: each mostly waits for its processes, but more than
    /// this on two cores only makes every process slower.
    static let slots = DispatchSemaphore(value: HarnessSettings.integer("CONCORD_CRASH_LANES", default: 3))
    /// A hang guard that grows with a longer local run (never under the shared one: see `hangGuard`).
    static let minutes = max(TimeLimitTrait.Duration.hangGuardMinutes, trials / 40)

    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case fold, `import`, sync
        var testDescription: String { rawValue }
        var number: UInt64 { UInt64(Self.allCases.firstIndex(of: self)!) + 1 }
    }

    @Test(
        "a killed command leaves consistent files and re-running it reaches the uninterrupted result",
        .timeLimit(.minutes(CrashTests.minutes)), arguments: Kind.allCases)
    func killedCommand(kind: Kind) async throws {
        try await offThePool { try run(kind) }
    }

    private func run(_ kind: Kind) throws {
        let wanted = (Self.trials + 2) / 3
        let scenarios = try (0..<max(2, wanted / 20)).map { try Scenario(kind: kind, number: $0, seed: Self.seed) }
        let clock = ContinuousClock()
        let start = clock.now
        // Two lanes per kind, and at most `slots` trials at once over all kinds.
        let tally = Tally(wanted: wanted)
        onThreads(2) { _ in
            while let attempt = tally.next() {
                Self.slots.wait()
                defer { Self.slots.signal() }
                tally.add(scenarios[attempt % scenarios.count].trial(attempt))
            }
        }
        // The lanes' threads may outlive this call and the test process with it: remove the folders now.
        for scenario in scenarios { scenario.removeFiles() }
        let (kills, attempts, failures) = tally.totals
        for message in tally.messages { Issue.record(Comment(rawValue: message)) }
        print(
            "crash harness \(kind): seed \(Self.seed), \(kills) kills in \(attempts) trials over \(scenarios.count) starting states, "
                + "\(failures) failed, \(clock.now - start)")
        #expect(
            failures > 0 || kills >= wanted,
            "only \(kills) of \(attempts) trials killed \(kind) before it finished (seed \(Self.seed)); the kill window is too late"
        )
    }
}

/// Hands out trial numbers to the lanes until enough trials killed their command, and gathers what they found.
private final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private let wanted: Int
    private var kills = 0, attempts = 0, failures = 0, running = 0
    private(set) var messages: [String] = []

    init(wanted: Int) { self.wanted = wanted }

    /// The next trial's number, or nil when the trials running or done will reach the kills wanted,
    /// when trials keep finishing before the kill (three times as many as wanted), or after five failed:
    /// one broken starting state fails every trial alike, and a few reports say it all.
    func next() -> Int? {
        lock.withLock {
            guard kills + running < wanted, attempts < wanted * 3, failures < 5 else { return nil }
            attempts += 1
            running += 1
            return attempts - 1
        }
    }

    func add(_ result: Scenario.Result) {
        lock.withLock {
            running -= 1
            if result.killed { kills += 1 }
            if !result.messages.isEmpty { failures += 1 }
            messages += result.messages
        }
    }

    var totals: (kills: Int, attempts: Int, failures: Int) { lock.withLock { (kills, attempts, failures) } }
}

/// The starting files of one kind of crash, the steps run on them, and what the uninterrupted run gave.
///
/// Read-only once built (its folders are only read by trials), so lanes share it.
private struct Scenario: @unchecked Sendable {
    let kind: CrashTests.Kind
    let number: Int
    let seed: UInt64
    let journal: String
    let files = ["a.db", "b.db"]
    /// The command a trial kills, then the steps after it.
    let killed: [String]
    let rest: [[String]]
    /// The files the killed command writes.
    let touched: [String]
    /// What the apps committed, with the final state every replica must reach.
    let expected: AppState
    /// The starting files.
    let template: TemporaryDirectory
    /// Rows and JSON exports (node ids replaced by role markers, no version range) of each file after the uninterrupted run.
    private(set) var referenceRows: [String: [String]] = [:]
    private(set) var referenceExports: [String: String] = [:]
    /// The files the uninterrupted run left.
    let reference = TemporaryDirectory()
    /// How long the killed command runs uninterrupted, in seconds: first as the reference run
    /// took, then as trials that finished before their kill took (the load on the machine changes).
    let window = KillWindow()

    var label: String { "\(kind) template \(number) (\(journal))" }

    init(kind: CrashTests.Kind, number: Int, seed: UInt64) throws {
        self.kind = kind
        self.number = number
        self.seed = seed
        journal = number % 2 == 0 ? "delete" : "wal"
        let dataSeed = derivedSeed(seed, kind.number, UInt64(number))
        let template = TemporaryDirectory()
        self.template = template
        let context = "seed \(seed), \(kind) template \(number) (\(journal))"
        func shell(_ file: String, _ sql: String) throws {
            do { try sqlite3Shell(template.path(file), sql) } catch {
                throw HarnessFailure("\(context): building \(file): \(error)")
            }
        }
        func tool(_ arguments: String...) throws {
            let run = try concord(arguments, in: template)
            guard run.status == 0 else {
                throw HarnessFailure(
                    "\(context): building: concord \(arguments.joined(separator: " ")) exited \(run.status): \(run.errors)"
                )
            }
        }
        var state = AppState()
        var a = AppWriter(owner: "a", seed: derivedSeed(dataSeed, 1))
        var b = AppWriter(owner: "b", seed: derivedSeed(dataSeed, 2))
        for file in files {
            try shell(file, "PRAGMA journal_mode = \(journal);\n" + AppSchema.createSQL)
            try tool("enable", file, "--table", "items", "--table", "notes")
        }
        // History both replicas share, so the steps below update registers as well as create them.
        try shell("a.db", a.script(a.draw(60...120), maxPerTransaction: 20, &state))
        try shell("b.db", b.script(b.draw(40...100), maxPerTransaction: 20, &state))
        try tool("sync", "a.db", "b.db")
        switch kind {
        case .fold:
            // Many writes the log holds: the first command to open a.db folds them.
            try shell("a.db", a.script(a.draw(300...550), maxPerTransaction: 30, &state))
            killed = ["status", "a.db"]
            rest = [["sync", "a.db", "b.db"]]
            touched = ["a.db"]
        case .import:
            try shell("a.db", a.script(a.draw(200...350), maxPerTransaction: 30, &state))
            try tool("export", "a.db", "--output", "changes.bin")
            // b's own unfolded writes are folded by the same import.
            try shell("b.db", b.script(b.draw(100...200), maxPerTransaction: 30, &state))
            killed = ["import", "b.db", "changes.bin"]
            rest = [["sync", "a.db", "b.db"]]
            touched = ["b.db"]
        case .sync:
            try shell("a.db", a.script(a.draw(150...250), maxPerTransaction: 30, &state))
            try shell("b.db", b.script(b.draw(150...250), maxPerTransaction: 30, &state))
            killed = number % 4 < 2 ? ["sync", "a.db", "b.db"] : ["sync", "b.db", "a.db"]
            rest = []
            touched = ["a.db", "b.db"]
        }
        expected = state
        try runReference()
    }

    /// Runs the steps without interruption on a copy, and keeps what they gave.
    private mutating func runReference() throws {
        let directory = reference
        try copy(into: directory)
        let first = try ChildProcess.concord(killed, in: directory.url, label: "reference")
        let outcome = first.wait()
        window.finished(after: first.elapsed)
        #expect(
            outcome.status == 0 && !outcome.killed,
            "seed \(seed), \(label): uninterrupted \(killed.joined(separator: " ")): \(outcome)")
        for step in rest {
            let run = try concord(step, in: directory)
            #expect(
                run.status == 0, "seed \(seed), \(label): uninterrupted \(step.joined(separator: " ")): \(run.errors)")
        }
        for file in files {
            let view = try ShellView(directory.path(file))
            #expect(
                view.integrity == "ok",
                "seed \(seed), \(label): uninterrupted run leaves \(file) with integrity \(view.integrity)")
            // Without any crash, every row the apps committed must be there, exactly.
            #expect(
                view.rows == expected.dump,
                Comment(
                    rawValue:
                        "\(label) seed \(seed): the uninterrupted run's \(file) differs from what the apps committed: "
                        + ShellView.difference(view.rows, expected.dump)))
            let check = try concord(["check", file], in: directory)
            #expect(
                check.status == 0,
                "seed \(seed), \(label): uninterrupted run, concord check \(file): \(check.text)\(check.errors)")
            referenceRows[file] = view.rows
        }
        referenceExports = try exports(in: directory)
    }

    /// Removes the starting files and the reference run's.
    func removeFiles() {
        for directory in [template, reference] { try? FileManager.default.removeItem(at: directory.url) }
    }

    /// Copies the starting files into `directory`.
    private func copy(into directory: TemporaryDirectory) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: template.url.path)
        where !name.hasSuffix(".stdout") && !name.hasSuffix(".stderr") {
            try FileManager.default.copyItem(atPath: template.path(name), toPath: directory.path(name))
        }
    }

    /// `concord export --since 0` of every file in the JSON form, with each file's node id replaced
    /// by a marker of its role, so a copy that takes a node id of its own (as the design asks of
    /// copied files) compares equal, and without the header's `upTo`, a local version.
    private func exports(in directory: TemporaryDirectory) throws -> [String: String] {
        var exports: [String: String] = [:]
        var nodes: [(node: String, marker: String)] = []
        for (index, file) in files.enumerated() {
            let run = try concord(["export", file, "--since", "0", "--format", "json"], in: directory)
            guard run.status == 0 else {
                exports[file] = "concord export \(file) exited \(run.status): \(run.errors)"
                continue
            }
            exports[file] = run.text.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.contains("\"upTo\"") }.joined(separator: "\n")
            if let source = run.text.split(separator: "\n").first(where: { $0.contains("\"source\"") }),
                let node = source.split(separator: "\"").dropFirst(3).first
            {
                nodes.append((String(node), String(repeating: String(UnicodeScalar(UInt8(0x61 + index))), count: 32)))
            }
        }
        for (node, marker) in nodes { exports = exports.mapValues { $0.replacingOccurrences(of: node, with: marker) } }
        return exports
    }

    struct Result {
        var killed = false
        /// What went wrong, each naming the seed, template and trial.
        var messages: [String] = []
    }

    /// One trial: copy, start the first step, kill it after a drawn delay, recover, re-run, compare.
    func trial(_ attempt: Int) -> Result {
        var result = Result()
        var random = SeededGenerator(seed: derivedSeed(seed, kind.number, 1_000 + UInt64(attempt)))
        // From just after start-up to the uninterrupted run's end.
        let span = window.seconds
        let delay = span * Double.random(in: 0.05...1.02, using: &random)
        var command = killed
        var input = ChildProcess.Input.none
        switch kind {
        case .fold where attempt % 2 == 1: command = ["check", "a.db"]
        case .import where attempt % 2 == 1:
            command = ["import", "b.db", "-"]
            input = .file(template.path("changes.bin"))
        default: break
        }
        // Half the trials check first (so check meets what the kill left, and folds it); the
        // other half leave that to the re-run, and check after it.
        let checkFirst = attempt % 4 < 2
        let context =
            "seed \(seed), \(label), trial \(attempt): `concord \(command.joined(separator: " "))` killed after "
            + String(format: "%.1f ms (uninterrupted about %.1f ms)", delay * 1000, span * 1000)
            + (checkFirst ? ", checked before the re-run" : ", checked after the re-run")
        // Trials run on lanes outside the test's task, so failures are handed back and recorded there.
        func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
            if !condition { result.messages.append("\(context): \(message())") }
        }

        let directory = TemporaryDirectory()
        func steps() throws {
            try copy(into: directory)
            let child = try ChildProcess.concord(
                command, in: directory.url, label: "killed", input: input,
                environment: ["TMPDIR": directory.url.path])
            let wait = delay - child.elapsed
            if wait > 0 { Thread.sleep(forTimeInterval: wait) }
            child.kill9()
            let outcome = child.wait()
            result.killed = outcome.killed
            guard outcome.killed else {
                // It finished before the kill: not a crash trial, only a lesson about how long it takes now.
                window.finished(after: child.elapsed)
                expect(outcome.status == 0, "it ended on its own, not with success: \(outcome)")
                return
            }

            // 1. What the kill left is a consistent database, before and after Concord opens it.
            for file in touched {
                let view = try ShellView(directory.path(file))
                expect(view.integrity == "ok", "\(file): PRAGMA integrity_check says \(view.integrity)")
                // 2. Every row this file's app committed is there, as committed (the apps turn foreign
                //    keys on, so no fold still has to delete anything they show).
                let owner = "'" + String(file.prefix(1)) + "-"
                let owned = { (rows: [String]) in
                    rows.filter { $0.split(separator: "|").dropFirst().first?.hasPrefix(owner) == true }
                }
                expect(
                    owned(view.rows) == owned(expected.dump),
                    "\(file) after the kill lost or changed its app's writes: "
                        + ShellView.difference(owned(view.rows), owned(expected.dump)))
            }
            func check() throws {
                for file in touched {
                    let check = try concord(["check", file], in: directory)
                    expect(
                        check.status == 0, "concord check \(file) exited \(check.status): \(check.text)\(check.errors)")
                }
            }
            if checkFirst { try check() }

            // 3. Running the interrupted command again, and the steps after it, ends where the uninterrupted run did.
            for step in [command] + rest {
                let run = try concord(step, input: input.data, in: directory)
                expect(
                    run.status == 0,
                    "re-running concord \(step.joined(separator: " ")) exited \(run.status): \(run.errors)")
            }
            if !checkFirst { try check() }
            let exported = try exports(in: directory)
            for file in files {
                let rows = try ShellView(directory.path(file)).rows
                expect(
                    rows == referenceRows[file],
                    "\(file) after the re-run differs from the uninterrupted run: "
                        + ShellView.difference(rows, referenceRows[file] ?? []))
                if exported[file] != referenceExports[file] {
                    let difference = firstDifference(exported[file] ?? "", referenceExports[file] ?? "")
                    expect(
                        false,
                        "\(file): the export after the re-run differs from the uninterrupted run's; in JSON, \(difference)"
                    )
                }
            }
        }
        do {
            try steps()
        } catch {
            expect(false, "\(error)")
        }
        if !result.messages.isEmpty { keep(directory, as: "crash-\(kind)-seed\(seed)-trial\(attempt)") }
        return result
    }
}

/// How long a command runs uninterrupted, learnt from the runs that finished.
private final class KillWindow: @unchecked Sendable {
    private let lock = NSLock()
    private var estimate: Double?

    var seconds: Double { lock.withLock { estimate ?? 0.1 } }

    func finished(after seconds: Double) {
        lock.withLock { estimate = estimate.map { ($0 + seconds) / 2 } ?? seconds }
    }
}

extension ChildProcess.Input {
    /// The bytes a synchronous re-run reads on standard input.
    var data: Data {
        if case .file(let path) = self { return (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data() }
        return Data()
    }
}

/// Where two texts first differ, with a little context, for a failure message.
func firstDifference(_ actual: String, _ expected: String) -> String {
    let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
    let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
    for index in 0..<max(a.count, e.count) where index >= a.count || index >= e.count || a[index] != e[index] {
        let got = index < a.count ? String(a[index]) : "<end>"
        let want = index < e.count ? String(e[index]) : "<end>"
        return
            "line \(index + 1): got `\(got.trimmingCharacters(in: .whitespaces))`, expected `\(want.trimmingCharacters(in: .whitespaces))`"
    }
    return "no difference"
}

/// A failure of the harness's own steps, with the seed and trial that met it.
struct HarnessFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Copies a failed trial's files to CONCORD_HARNESS_KEEP, when it is set, for a closer look.
func keep(_ directory: TemporaryDirectory, as name: String) {
    guard let folder = ProcessInfo.processInfo.environment["CONCORD_HARNESS_KEEP"] else { return }
    let target = URL(fileURLWithPath: folder).appendingPathComponent(name)
    try? FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
    try? FileManager.default.removeItem(at: target)
    try? FileManager.default.copyItem(at: directory.url, to: target)
}
