import ConcordSimulator
import ConcordTesting
import Foundation

/// Regenerates failing inputs from (seed, index) and writes them, with the base replica, as reproducers.
///
/// ```swift
/// var reproducers = FuzzReproducers(seed: 1, scratch: "/tmp/run/regenerate")
/// try reproducers.save(37, into: &failure)   // concord-fuzz-1-37.bin and concord-fuzz-1-37.sqlite
/// ```
struct FuzzReproducers {
    /// Reproducers written for findings in one run, at most (traps and hangs stop the run anyway).
    static let limit = 20

    let seed: UInt64
    let scratch: String
    private var fuzzer: ChangesetFuzzer?

    init(seed: UInt64, scratch: String) {
        self.seed = seed
        self.scratch = scratch
    }

    /// Input `index`, regenerated.
    mutating func input(at index: Int) throws -> ChangesetFuzzer.Input {
        try regenerator().input(at: index)
    }

    private mutating func regenerator() throws -> ChangesetFuzzer {
        if let fuzzer { return fuzzer }
        let made = try ChangesetFuzzer(seed: seed, directory: scratch)
        fuzzer = made
        return made
    }

    /// Writes input `index` and the base replica to the current directory and names them in `failure`.
    mutating func save(_ index: Int, into failure: inout FuzzRunReport.Failure) throws {
        let fuzzer = try regenerator()
        let input = fuzzer.input(at: index)
        let name = "concord-fuzz-\(seed)-\(index)"
        let file = name + (input.mutant.format == .json ? ".json" : ".bin")
        try Data(input.mutant.bytes).write(to: URL(fileURLWithPath: file))
        try Data(fuzzer.baseBytes).write(to: URL(fileURLWithPath: name + ".sqlite"))
        failure.reproducer = file
        failure.database = name + ".sqlite"
        if !failure.message.contains(input.mutant.description) {
            failure.message += " (\(input.mutant), through the \(input.route.rawValue) route)"
        }
    }

    /// The first lines of a worker's standard error (a backtrace without its registers), for a message.
    static func tail(_ log: String, lines: Int = 40) -> String {
        // A Swift backtrace ends with registers, memory and images, which say little about an input.
        let trimmed = log.components(separatedBy: "\n\nRegisters:").first ?? log
        let all = trimmed.split(separator: "\n", omittingEmptySubsequences: false)
        let shown = all.prefix(lines).joined(separator: "\n")
        return all.count > lines ? shown + "\n[\(all.count - lines) more lines]" : shown
    }
}
