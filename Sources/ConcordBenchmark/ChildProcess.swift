import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs an executable as a child process and reports its peak memory.
///
/// The streamed-import check needs the import's own peak resident set, not
/// the benchmark's (which holds the whole workload). Linux carries the
/// parent's peak into a spawned child's `ru_maxrss` (it is kept across
/// `exec`), so `wait4`'s figure is the child's own only when it exceeds the
/// parent's; otherwise the child's `VmHWM`, sampled every 2 ms while it runs,
/// is used. `VmHWM` is a high-water mark, so only growth in the last 2 ms
/// before exit can escape it.
///
/// ```swift
/// let result = try ChildProcess.run("/usr/local/bin/concord", ["import", "fresh.sqlite", "changes.bin"], scratch: directory)
/// result.peakBytes   // the child's own peak resident set, in bytes
/// ```
struct ChildProcess {
    var exitStatus: Int32
    var standardOutput: String
    var standardError: String
    var seconds: Double
    /// The child's peak resident set, in bytes.
    var peakBytes: Int
    /// Whether `peakBytes` is the kernel's own figure (`ru_maxrss`) rather than `VmHWM` sampled every 2 ms.
    var peakIsExact: Bool

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Bytes per unit of `ru_maxrss`: kibibytes on Linux, bytes on Darwin.
    #if canImport(Darwin)
        static let maxRSSUnit = 1
    #else
        static let maxRSSUnit = 1024
    #endif

    /// Runs `executable` with `arguments` and waits for it; its output goes through files in `scratch`.
    static func run(_ executable: String, _ arguments: [String], scratch: URL) throws -> ChildProcess {
        let outPath = scratch.appendingPathComponent("child-\(UUID().uuidString).out").path
        let errPath = scratch.appendingPathComponent("child-\(UUID().uuidString).err").path
        defer {
            try? FileManager.default.removeItem(atPath: outPath)
            try? FileManager.default.removeItem(atPath: errPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let environment = ProcessInfo.processInfo.environment.sorted { $0.key < $1.key }
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }

        var pid = pid_t()
        var status: Int32 = 0
        var usage = rusage()
        var sampled = 0
        let parentPeak = Self.highWaterMark(of: "self") ?? 0
        let seconds = try Stopwatch.time {
            let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
            guard spawned == 0 else {
                throw Failure(description: "could not start \(executable): \(String(cString: strerror(spawned)))")
            }
            // VmHWM only grows, so the last sample before exit is the highest the child reached so far.
            while true {
                let reaped = wait4(pid, &status, WNOHANG, &usage)
                if reaped == pid { break }
                if reaped < 0 && errno != EINTR {
                    throw Failure(description: "waiting for \(executable): \(String(cString: strerror(errno)))")
                }
                sampled = max(sampled, Self.highWaterMark(of: "\(pid)") ?? 0)
                usleep(2_000)
            }
        }
        // A spawned child's ru_maxrss starts at the parent's peak (Linux keeps it across exec),
        // so it is the child's own peak only when it is higher than the parent's.
        let reported = Int(usage.ru_maxrss) * maxRSSUnit
        let peak = reported > parentPeak ? reported : sampled
        let read = { (path: String) in (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        // Exited normally: low 7 bits zero, status in the next byte; otherwise report 128 + signal.
        let exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return ChildProcess(
            exitStatus: exitStatus, standardOutput: read(outPath), standardError: read(errPath),
            seconds: seconds, peakBytes: peak, peakIsExact: reported > parentPeak)
    }

    /// `VmHWM` of `/proc/<process>/status` in bytes: the peak resident set of its current image.
    static func highWaterMark(of process: String) -> Int? {
        guard let file = FileHandle(forReadingAtPath: "/proc/\(process)/status") else { return nil }
        defer { try? file.close() }
        let status = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        return fields.count >= 2 ? Int(fields[1]).map { $0 * 1_024 } : nil
    }
}
