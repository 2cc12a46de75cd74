import Foundation

/// The path of the running `concord` executable (Linux: `/proc/self/exe`).
///
/// Commands that run the tool again in a child process — the fuzzer's
/// workers, the benchmark's streamed import — pass this path on explicitly,
/// so the libraries never guess which executable to start.
///
/// ```swift
/// runner.importProbeExecutable = currentExecutablePath()
/// ```
func currentExecutablePath() -> String {
    if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
        return resolved
    }
    return Bundle.main.executablePath ?? CommandLine.arguments[0]
}
