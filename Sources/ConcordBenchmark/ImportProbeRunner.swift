import Foundation

/// Imports a changeset file with `concord import` in a child process and reads its peak memory.
///
/// Issue 6 asks that a 1M-change changeset import with a peak under 200 MB,
/// streamed rather than loaded whole. Running the real CLI path in a fresh
/// process measures exactly that import, free of the benchmark's own memory.
/// A tiny changeset imported the same way gives the process's baseline.
///
/// ```swift
/// let probe = try ImportProbeRunner(executable: "/usr/local/bin/concord", directory: scratch)
///     .run(changeset: "changes.concord", rows: 1_000_000, baseline: "recent.concord")
/// probe.peakBytes   // e.g. 61_000_000
/// ```
struct ImportProbeRunner {
    /// The `concord` executable whose `import` subcommand is measured.
    let executable: String
    /// Where the fresh replicas and the child's output files go.
    let directory: URL

    func run(changeset: String, rows: Int, baseline: String) throws -> ImportProbe {
        let small = try importInChild(baseline, into: "probe-baseline.sqlite")
        let full = try importInChild(changeset, into: "probe.sqlite")
        let report = full.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        guard report.hasPrefix("applied \(rows),") else {
            throw BenchmarkTrial.Mismatch(
                description: "the child import reported '\(report)', expected \(rows) rows applied")
        }
        return ImportProbe(
            changes: rows, fileBytes: try BenchmarkDatabases.fileSize(changeset), childReport: report,
            seconds: full.seconds, peakBytes: full.peakBytes,
            peakSource: full.peakIsExact ? "wait4 ru_maxrss" : "VmHWM sampled every 2 ms",
            baselinePeakBytes: small.peakBytes)
    }

    /// Makes a fresh replica with the workload's table synced, closes it, and imports `file` into it in a child.
    private func importInChild(_ file: String, into name: String) throws -> ChildProcess {
        let database = directory.appendingPathComponent(name).path
        do { _ = try BenchmarkDatabases.openReplica(database) }
        let child = try ChildProcess.run(executable, ["import", database, file], scratch: directory)
        guard child.exitStatus == 0 else {
            throw ChildProcess.Failure(
                description: "concord import \(file) exited with \(child.exitStatus): "
                    + child.standardError.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return child
    }
}
