import ConcordTesting
import Foundation

#if canImport(Glibc)
    import ConcordSimulator
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs `concord fuzz` inputs in child processes and notices when one traps or hangs.
///
/// A trap kills the process that hits it, and a hang never returns, so
/// neither can be caught where the inputs run. The supervisor starts this
/// same executable as workers (`concord fuzz --worker DIR ...`), each on a
/// contiguous share of the inputs with its output in files, and watches
/// each worker's ``FuzzProgressFile``: a worker that dies of a signal or
/// exits with a failure crashed at the input it last recorded, and one whose
/// index stays the same longer than the per-input timeout is killed and
/// reported as hung at that input. Without keep-going the first failure (a
/// crash, or a worker reporting a finding) stops every worker; with it, a
/// crashed worker is started again from its last checkpoint, skipping the
/// input that crashed it. Each input's outcome
/// depends only on the seed and its index, so the counts add up to the same
/// totals whatever the number of workers.
///
/// ```swift
/// let outcome = try FuzzSupervisor(directory: run, executable: currentExecutablePath(), seed: 1, inputs: 0..<10_000,
///                                  jobs: 2, keepGoing: false, timeout: 10)
///     .run { done in print(done, "inputs done") }
/// ```
struct FuzzSupervisor {
    /// A fresh directory for the workers' files; the caller removes it.
    let directory: String
    /// The `concord` executable the workers run (`concord fuzz --worker DIR ...`).
    let executable: String
    let seed: UInt64
    let inputs: Range<Int>
    /// Workers run at once.
    let jobs: Int
    let keepGoing: Bool
    /// Seconds one input may take.
    let timeout: Double

    /// A worker that trapped, failed or hung at an input.
    struct Crash {
        var index: Int
        var hung: Bool
        /// "was killed by signal 4 (SIGILL, a Swift trap)", "exited with status 1", ...
        var how: String
        /// The worker's standard error.
        var log: String
    }

    /// What the workers reported (the inputs that crashed one are not in it) and every crash.
    struct Outcome {
        var report: FuzzWorker.Report
        var crashes: [Crash]
        /// Whether every input ran (false when a failure stopped the run).
        var complete: Bool
    }

    /// Crashes after which even a keep-going run stops.
    static let crashLimit = 200
    /// Crashes that get a backtrace; later workers start with Swift's backtracer off, as it takes seconds.
    static let backtraceLimit = 3

    /// Where run directories go: `/dev/shm` when it is a writable directory, else the temporary directory.
    ///
    /// A worker rewrites its scratch replica after every accepted input and
    /// writes every input to a file; on a disk (an ext4 mounted with `discard`,
    /// say) the truncations alone made a run several times slower than on a
    /// memory file system.
    static func scratchRoot() -> String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isDirectory), isDirectory.boolValue,
            FileManager.default.isWritableFile(atPath: "/dev/shm")
        {
            return "/dev/shm"
        }
        return FileManager.default.temporaryDirectory.path
    }

    /// Seconds a worker may take to build its base replica before running its first input.
    static let setupTimeout = 120.0

    private struct Worker {
        var pid: pid_t = 0
        /// Its share of the inputs.
        var inputs: Range<Int>
        var directory: String
        /// Where the current process started, and the inputs it skips.
        var start: Int
        var skip: Set<Int> = []
        /// Counts of earlier processes of this worker, up to `start`.
        var earlier: FuzzWorker.Report
        var last = Int.min
        var lastChange = ContinuousClock.now
        var report: FuzzWorker.Report?

        var indexPath: String { FuzzWorker.progressPath(in: directory) }
        var outPath: String { directory + "/worker.out" }
        var errPath: String { directory + "/worker.err" }
        /// Inputs this worker has finished, by its progress file.
        var done: Int { report != nil ? inputs.count : max(start, min(last, inputs.upperBound)) - inputs.lowerBound }
    }

    /// Starts the workers and waits for them, calling `progress` with the inputs done about every 0.2 s.
    ///
    /// - Throws: ``FuzzSetupFailure`` when a worker fails before running any input.
    func run(progress: (Int) -> Void = { _ in }) throws -> Outcome {
        var workers: [Worker] = []
        defer {
            for worker in workers where worker.report == nil && worker.pid != 0 { Self.stop(worker.pid) }
        }
        try startWorkers(into: &workers)
        var crashes: [Crash] = []
        var lastReport = ContinuousClock.now
        while workers.contains(where: { $0.report == nil }) {
            for k in workers.indices where workers[k].report == nil {
                switch try poll(&workers[k]) {
                case .running:
                    continue
                case .finished(let report):
                    // Without keep-going the first failure ends the run: the other workers stop where they are.
                    if !keepGoing && !report.findings.isEmpty { return outcome(workers, crashes, complete: false) }
                case .crashed(let crash):
                    crashes.append(crash)
                    guard keepGoing, crashes.count < Self.crashLimit else {
                        return outcome(workers, crashes, complete: false)
                    }
                    try restart(&workers[k], after: crash.index, backtrace: crashes.count < Self.backtraceLimit)
                }
            }
            if ContinuousClock.now - lastReport > .milliseconds(200) {
                lastReport = ContinuousClock.now
                progress(workers.reduce(0) { $0 + $1.done } - crashes.count)
            }
            usleep(10_000)
        }
        return outcome(workers, crashes, complete: true)
    }

    /// Gives each worker a contiguous share of the inputs and starts it.
    private func startWorkers(into workers: inout [Worker]) throws {
        let count = max(1, min(jobs, inputs.count))
        for k in 0..<count {
            let lower = inputs.lowerBound + inputs.count * k / count
            let upper = inputs.lowerBound + inputs.count * (k + 1) / count
            var worker = Worker(
                inputs: lower..<upper, directory: directory + "/worker-\(k)", start: lower,
                earlier: FuzzWorker.Report(seed: seed))
            try FileManager.default.createDirectory(atPath: worker.directory, withIntermediateDirectories: true)
            try start(&worker)
            workers.append(worker)
        }
    }

    /// What one look at a running worker found.
    private enum Poll {
        case running
        case finished(FuzzWorker.Report)
        case crashed(Crash)
    }

    /// Reaps the worker if it exited and stops it if it hung; a worker that failed outside its inputs ends the run.
    private func poll(_ worker: inout Worker) throws -> Poll {
        var status: Int32 = 0
        let reaped = waitpid(worker.pid, &status, WNOHANG)
        if reaped < 0 && errno != EINTR {
            throw FuzzSetupFailure(message: "waiting for a fuzz worker: \(String(cString: strerror(errno)))")
        }
        let index = FuzzProgressFile.read(path: worker.indexPath)
        let now = ContinuousClock.now
        if index != worker.last {
            worker.last = index
            worker.lastChange = now
        }
        let started = index >= worker.start
        let crash: Crash
        if reaped == worker.pid {
            worker.pid = 0
            switch Self.ending(status, worker: worker) {
            case .success(var report):
                report.add(worker.earlier)
                worker.report = report
                return .finished(report)
            case .failure(let how):
                crash = Crash(index: index, hung: false, how: how, log: Self.read(worker.errPath))
            }
        } else if now - worker.lastChange
            > .milliseconds(Int((started ? timeout : max(timeout, Self.setupTimeout)) * 1000))
        {
            Self.stop(worker.pid)
            worker.pid = 0
            crash = Crash(index: index, hung: true, how: "hung", log: Self.read(worker.errPath))
        } else {
            return .running
        }
        guard started else {
            throw FuzzSetupFailure(
                message: "a fuzz worker \(crash.how) before running any input:\n" + FuzzReproducers.tail(crash.log))
        }
        guard crash.index < worker.inputs.upperBound else {
            throw FuzzSetupFailure(
                message: "a fuzz worker \(crash.how) after its last input:\n" + FuzzReproducers.tail(crash.log))
        }
        return .crashed(crash)
    }

    /// The counts every worker reported so far (its earlier processes' for one still running), and the crashes.
    private func outcome(_ workers: [Worker], _ crashes: [Crash], complete: Bool) -> Outcome {
        var total = FuzzWorker.Report(seed: seed)
        for worker in workers { total.add(worker.report ?? worker.earlier) }
        return Outcome(report: total, crashes: crashes, complete: complete)
    }

    /// Starts a process for the worker from `worker.start`.
    private func start(_ worker: inout Worker, backtrace: Bool = true) throws {
        try FuzzProgressFile.reset(path: worker.indexPath)
        worker.last = Int.min
        worker.lastChange = ContinuousClock.now
        var arguments = [
            "fuzz", "--worker", worker.directory, "--seed", String(seed), "--first", String(worker.start),
            "--inputs", String(worker.inputs.upperBound - worker.start),
        ]
        let skipped = worker.skip.filter { $0 >= worker.start }.sorted()
        if !skipped.isEmpty { arguments += ["--skip", skipped.map(String.init).joined(separator: ",")] }
        if keepGoing { arguments.append("--keep-going") }
        var environment = ProcessInfo.processInfo.environment
        if !backtrace { environment["SWIFT_BACKTRACE"] = "enable=no" }
        worker.pid = try spawn(
            executable, arguments, environment: environment,
            stdout: worker.outPath, stderr: worker.errPath)
    }

    /// Starts the worker again from its last checkpoint, skipping the input that crashed it.
    private func restart(_ worker: inout Worker, after crash: Int, backtrace: Bool) throws {
        let path = FuzzWorker.checkpointPath(in: worker.directory)
        if let data = FileManager.default.contents(atPath: path),
            let checkpoint = try? JSONDecoder().decode(FuzzWorker.Checkpoint.self, from: data),
            checkpoint.next > worker.start, checkpoint.next <= crash
        {
            worker.earlier.add(checkpoint.report)
            worker.start = checkpoint.next
        }
        try? FileManager.default.removeItem(atPath: path)
        worker.skip.insert(crash)
        try start(&worker, backtrace: backtrace)
    }

    private enum Ending {
        case success(FuzzWorker.Report)
        case failure(String)
    }

    /// What a reaped worker's wait status and output say.
    private static func ending(_ status: Int32, worker: Worker) -> Ending {
        let signal = status & 0x7F
        if signal != 0 { return .failure("was killed by signal \(signal) (\(signalName(signal)))") }
        let exitStatus = (status >> 8) & 0xFF
        guard exitStatus == 0 else { return .failure("exited with status \(exitStatus)") }
        guard let report = try? JSONDecoder().decode(FuzzWorker.Report.self, from: Data(read(worker.outPath).utf8))
        else {
            return .failure("exited without a readable report")
        }
        return .success(report)
    }

    /// Kills a worker and reaps it.
    private static func stop(_ pid: pid_t) {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    private func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String],
        stdout: String, stderr: String
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] =
            environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw FuzzSetupFailure(message: "could not start \(executable): \(String(cString: strerror(spawned)))")
        }
        return pid
    }

    private static func read(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGILL: "SIGILL, a Swift trap"
        case SIGTRAP: "SIGTRAP, a Swift trap"
        case SIGABRT: "SIGABRT"
        case SIGSEGV: "SIGSEGV"
        case SIGBUS: "SIGBUS"
        case SIGFPE: "SIGFPE"
        case SIGKILL: "SIGKILL"
        default: "signal \(signal)"
        }
    }
}
