import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A process started without waiting for it: a `concord` command to kill at some moment,
/// an app writing with the `sqlite3` shell, or a shell holding a lock.
///
/// Standard output and error go to files in `directory` (no pipe to drain, so a child never
/// blocks on a full pipe and a killed one leaves what it printed); standard input is a file,
/// `/dev/null`, or a pipe the test writes to (``write(_:)``, ``closeInput()``).
public final class ChildProcess {
    /// How a finished child ended, and what it printed.
    public struct Outcome: Sendable, CustomStringConvertible {
        /// The exit status, or the signal number when ``killed``.
        public var status: Int32
        /// Whether a signal ended it (`kill -9`), rather than its own exit.
        public var killed: Bool
        public var output: String
        public var errors: String

        public var description: String {
            (killed ? "killed by signal \(status)" : "exit \(status)")
                + (output.isEmpty ? "" : "; stdout: \(output.trimmingCharacters(in: .whitespacesAndNewlines))")
                + (errors.isEmpty ? "" : "; stderr: \(errors.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
    }

    /// What the child reads on standard input.
    public enum Input {
        case none
        case file(String)
        /// A pipe the caller writes to and closes.
        case pipe
    }

    public let process = Process()
    public let label: String
    private let outputPath: String
    private let errorPath: String
    private let inputPipe: Pipe?
    /// When the child was started, by the monotonic clock.
    public let started: DispatchTime

    /// Starts `executable` with `arguments` in `directory`; `label` names its output files.
    public init(
        _ executable: URL, _ arguments: [String], in directory: URL, label: String, input: Input = .none,
        environment: [String: String] = [:]
    ) throws {
        self.label = label
        outputPath = directory.appendingPathComponent("\(label).stdout").path
        errorPath = directory.appendingPathComponent("\(label).stderr").path
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        let stdout = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        let stderr = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        defer {
            try? stdout.close()
            try? stderr.close()
        }
        process.standardOutput = stdout
        process.standardError = stderr
        var inputFile: FileHandle?
        switch input {
        case .none:
            inputPipe = nil
            process.standardInput = FileHandle.nullDevice
        case .file(let path):
            inputPipe = nil
            inputFile = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            process.standardInput = inputFile
        case .pipe:
            let pipe = Pipe()
            inputPipe = pipe
            process.standardInput = pipe
        }
        defer { try? inputFile?.close() }
        started = .now()
        try process.run()
    }

    /// Starts the `concord` tool SwiftPM built.
    public static func concord(
        _ arguments: [String], in directory: URL, label: String, input: Input = .none,
        environment: [String: String] = [:]
    ) throws -> ChildProcess {
        try ChildProcess(
            concordExecutable, arguments, in: directory, label: label, input: input, environment: environment)
    }

    /// Starts the `sqlite3` shell on `database`, reading SQL from `script` (a file) or from a pipe.
    public static func sqlite3(_ database: String, script: String?, in directory: URL, label: String) throws
        -> ChildProcess
    {
        try ChildProcess(
            sqlite3ShellURL, ["-batch", "-bail", database], in: directory,
            label: label, input: script.map { .file($0) } ?? .pipe)
    }

    /// The child's process id.
    public var pid: Int32 { process.processIdentifier }

    /// Whether the child has not finished yet.
    public var isRunning: Bool { process.isRunning }

    /// Sends SIGKILL — `kill -9` — to this child only, if it still runs; returns whether it was sent.
    ///
    /// Only the child's own pid is signalled, and only while `Process` has not reaped it.
    @discardableResult
    public func kill9() -> Bool {
        guard process.isRunning else { return false }
        return kill(process.processIdentifier, SIGKILL) == 0
    }

    /// Writes `text` to the child's standard input (a ``Input/pipe`` child only).
    /// Throws when the child no longer reads it (it exited).
    public func write(_ text: String) throws {
        try inputPipe?.fileHandleForWriting.write(contentsOf: Data(text.utf8))
    }

    /// Closes the child's standard input, so a shell reading it reaches its end.
    public func closeInput() {
        try? inputPipe?.fileHandleForWriting.close()
    }

    /// Seconds since the child was started.
    public var elapsed: Double { Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9 }

    /// Waits for the child to end and reads what it printed.
    public func wait() -> Outcome {
        closeInput()
        process.waitUntilExit()
        let killed = process.terminationReason == .uncaughtSignal
        return Outcome(
            status: process.terminationStatus, killed: killed,
            output: (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "",
            errors: (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "")
    }

    /// Runs `body` until it returns true or `timeout` seconds pass; returns whether it did.
    public static func poll(timeout: Double, every interval: Double = 0.01, _ body: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if body() { return true }
            Thread.sleep(forTimeInterval: interval)
        }
        return body()
    }
}

/// Knobs a longer local run turns through the environment (see `Scripts/crash-and-concurrency.sh`).
public enum HarnessSettings {
    /// The integer in environment variable `name`, or `fallback` when it is unset or not a number.
    public static func integer(_ name: String, default fallback: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap { Int($0) } ?? fallback
    }

    /// The seed in environment variable `name`, or `fallback`.
    public static func seed(_ name: String, default fallback: UInt64) -> UInt64 {
        ProcessInfo.processInfo.environment[name].flatMap { UInt64($0) } ?? fallback
    }
}

/// Runs a test's blocking work — waiting for processes, sleeping until a kill — on a thread of
/// its own instead of Swift concurrency's shared pool, which has only as many threads as cores.
///
/// A test that blocks a pool thread for many seconds holds up every other test, and the time
/// limit of a test waiting for a free thread may run out before its body starts. (It still
/// resumes on the pool when the body ends, so its limit should be no shorter than `hangGuard`.)
/// The body stays in the test's task, so `#expect` and `Issue.record` are attributed to the test
/// as usual.
///
/// ```swift
/// @Test(.timeLimit(.hangGuard)) func slow() async throws {
///     try await offThePool { try runManyProcesses() }
/// }
/// ```
public func offThePool<T>(_ body: () throws -> T) async throws -> T {
    try await withTaskExecutorPreference(DedicatedThreadExecutor()) { try body() }
}

/// A task executor that runs every job on one serial Dispatch queue, outside the cooperative pool.
final class DedicatedThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let queue = DispatchQueue(label: "concord.tests.blocking")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// Runs `body(lane)` for each of `count` lanes, each on a thread of its own, and waits for all.
///
/// Unlike `DispatchQueue.concurrentPerform`, whose lanes share a pool sized to the cores, every
/// lane runs at once however many tests do the same: lanes mostly wait for child processes.
public func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for lane in 0..<count {
        group.enter()
        Thread.detachNewThread {
            body(lane)
            group.leave()
        }
    }
    group.wait()
}
