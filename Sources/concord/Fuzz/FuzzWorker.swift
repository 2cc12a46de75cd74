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

/// The child process of `concord fuzz`: runs the inputs and reports their counts as JSON on standard output.
///
/// It stores the index of each input in a ``FuzzProgressFile`` before
/// running it, so that the supervisor can name the input that crashed or
/// hung it. Findings (a refusal that changed the file, an inconsistent
/// replica, ...) are not crashes: the worker reports them and either stops
/// or, with keep-going, goes on. With keep-going it also writes its counts
/// so far to a checkpoint every ``checkpointInterval`` inputs, so that a
/// supervisor restarting it after a crash (skipping the input that crashed
/// it) loses no counts.
///
/// Two environment variables exist only so that the tests can prove the
/// supervisor catches a worker that traps or hangs: `CONCORD_TEST_FUZZ_TRAP_AT_INPUT=i`
/// makes the worker trap, and `CONCORD_TEST_FUZZ_HANG_AT_INPUT=i` makes it
/// sleep forever, just before input `i`. They are read only in worker mode
/// (`--worker`, which the supervisor passes), are named for tests so nobody
/// sets them by accident, and change nothing else.
///
/// ```swift
/// let report = try FuzzWorker(directory: dir, seed: 1, inputs: 0..<10_000, skip: [], keepGoing: false).run()
/// ```
struct FuzzWorker {
    /// Test-only: trap just before this input index.
    static let trapVariable = "CONCORD_TEST_FUZZ_TRAP_AT_INPUT"
    /// Test-only: hang just before this input index.
    static let hangVariable = "CONCORD_TEST_FUZZ_HANG_AT_INPUT"
    /// Inputs between two checkpoints.
    static let checkpointInterval = 500

    /// The worker's directory: `index` (the progress file), `checkpoint.json` and `fuzz/` (the scratch replica).
    let directory: String
    let seed: UInt64
    let inputs: Range<Int>
    /// Inputs not to run (they crashed an earlier worker); they are not counted.
    let skip: Set<Int>
    let keepGoing: Bool

    /// What a worker tells its supervisor.
    struct Report: Codable {
        var summary: FuzzSummary
        var findings: [Finding]

        init(seed: UInt64) {
            summary = FuzzSummary(seed: seed)
            findings = []
        }

        mutating func add(_ other: Report) {
            summary.add(other.summary)
            findings += other.findings
        }
    }

    /// A finding as the supervisor needs it: the input's index, and what went wrong.
    struct Finding: Codable {
        var index: Int
        var description: String
    }

    /// The counts of the inputs before `next`.
    struct Checkpoint: Codable {
        var next: Int
        var report: Report
    }

    static func progressPath(in directory: String) -> String { directory + "/index" }
    static func checkpointPath(in directory: String) -> String { directory + "/checkpoint.json" }

    func run() throws -> Report {
        let progress = try FuzzProgressFile(path: Self.progressPath(in: directory))
        let fuzzer = try ChangesetFuzzer(seed: seed, directory: directory + "/fuzz")
        let environment = ProcessInfo.processInfo.environment
        let trapAt = environment[Self.trapVariable].flatMap { Int($0) }
        let hangAt = environment[Self.hangVariable].flatMap { Int($0) }
        var report = Report(seed: seed)
        for index in inputs {
            if keepGoing, index > inputs.lowerBound, (index - inputs.lowerBound) % Self.checkpointInterval == 0 {
                let checkpoint = try JSONEncoder().encode(Checkpoint(next: index, report: report))
                try checkpoint.write(to: URL(fileURLWithPath: Self.checkpointPath(in: directory)), options: .atomic)
            }
            progress.store(index)
            if skip.contains(index) { continue }
            if index == trapAt {
                fatalError("\(Self.trapVariable)=\(index): trapping on purpose, to test the supervisor")
            }
            if index == hangAt { while true { sleep(60) } }
            let input = fuzzer.input(at: index)
            do {
                report.summary.record(input, try fuzzer.run(input))
            } catch let finding as FuzzFinding {
                report.summary.recordFinding(input)
                report.findings.append(Finding(index: index, description: finding.description))
                if !keepGoing { break }
            }
        }
        progress.store(inputs.upperBound)
        return report
    }
}
