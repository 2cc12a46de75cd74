@_spi(Simulation) import Concord
import ConcordTesting
import Foundation

/// Applies hostile changesets to a scratch replica and checks that each is refused cleanly or merged consistently.
///
/// A peer can send anything, so every changeset a replica is given must end
/// one of two ways: refused with an error, the database file byte-identical
/// to before and no journal left behind; or accepted, after which
/// `Replica.check()` finds nothing wrong, applying the same input again
/// changes no byte (idempotence), and, when it changed something, the app's
/// own writes on top of it (a counter increment, then a delete of every shown
/// row; for every ``localWritesEvery``-th input) still leave the replica
/// consistent. Anything else is a ``FuzzFinding``. A trap
/// or a hang cannot be caught in-process; `concord fuzz` runs the fuzzer in a
/// child process for that.
///
/// The fuzzer builds its base replica and its seeds from a fixed clock and
/// fixed node ids (see `FuzzBase`), and input `i` under seed `s` is the mutant
/// a `ChoiceSource` seeded from `(s, i)` draws, applied through one of three
/// routes in turn: decoded in memory and passed to `Replica.apply(_:)`,
/// written to a file for `Replica.applyChangeset(atPath:)`, or (binary only)
/// streamed from the file through a `ChangesetDecoder` as imports larger
/// than memory are. So a run is deterministic and any input can be
/// regenerated from its index. The replica object is reused after a refusal;
/// after an acceptance the base file is restored and the replica reopened.
///
/// ```swift
/// let fuzzer = try ChangesetFuzzer(seed: 1, directory: "/tmp/fuzz")
/// let summary = try fuzzer.run(inputs: 0..<10_000)   // throws the first FuzzFinding
/// print(summary.accepted, summary.refused)
/// ```
public final class ChangesetFuzzer {
    /// How an input reaches the replica.
    public enum Route: String, Sendable, Hashable, CaseIterable, Codable {
        /// `Changeset(decoding:)` or `Changeset(json:)`, then `Replica.apply(_:)`.
        case memory
        /// Written to a file, then `Replica.applyChangeset(atPath:)`.
        case file
        /// Written to a file, then streamed twice through `ChangesetDecoder` (binary only).
        case stream
    }

    /// One input: which it is, its bytes, and its route.
    public struct Input: Sendable, Hashable {
        /// Its index under the fuzzer's seed; `nil` for bytes given from outside.
        public var index: Int?
        /// The bytes, the form they claim, and the edits that made them.
        public var mutant: ChangesetMutator.Mutant
        /// How the bytes reach the replica.
        public var route: Route

        /// An input; ``ChangesetFuzzer/input(at:)`` makes the ones of a seed, this any other (a replayed file).
        public init(index: Int?, mutant: ChangesetMutator.Mutant, route: Route) {
            self.index = index
            self.mutant = mutant
            self.route = route
        }
    }

    /// The seed inputs are drawn from.
    public let seed: UInt64
    /// The scratch directory: the base copy, the working replica, input files.
    public let directory: String
    /// Makes the inputs, by mutating changesets exported from the base replica.
    public let mutator: ChangesetMutator
    /// The base replica's file, restored after every accepted input.
    public let baseBytes: [UInt8]
    /// The node id of the base replica.
    public let nodeID: NodeID

    /// The app's writes on top of an accepted input are tried for inputs whose index is a multiple
    /// of this (and for inputs given without an index): folding them costs more than every other
    /// check of an input together.
    public var localWritesEvery = 4

    /// The working replica's file.
    public var databasePath: String { directory + "/replica.sqlite" }
    private var inputPath: String { directory + "/input" }
    private let configuration: Replica.Configuration
    private var replica: Replica?
    /// The working file's bytes as last read, while they are known.
    private var knownBytes: [UInt8]?

    /// Builds the base replica and the seeds in `directory` (created if needed; its fuzz files are replaced).
    public init(seed: UInt64, directory: String) throws {
        self.seed = seed
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let basePath = directory + "/base.sqlite"
        for suffix in ["", "-journal", "-wal", "-shm"] { FuzzFiles.remove(basePath + suffix) }
        let base = try FuzzBase.build(at: basePath)
        baseBytes = base.bytes
        nodeID = FuzzBase.baseNode
        configuration = FuzzBase.scratchConfiguration(clock: ManualClock(unixMilliseconds: base.now))
        mutator = try ChangesetMutator(seeds: base.seeds, extraNodes: [FuzzBase.baseNode] + FuzzBase.peerNodes)
        try restoreBase()
        // Every input starts from here, and an input that changes nothing is not checked again.
        let report = try openReplica().check()
        guard report.isConsistent, try FuzzFiles.read(databasePath) == baseBytes else {
            throw FuzzFiles.Failure(description: "the fuzzer's base replica is not consistent:\n\(report)")
        }
    }

    /// Input `index` of this fuzzer's seed: the same on every run.
    public func input(at index: Int) -> Input {
        var source = ChoiceSource(seed: Property.iterationSeed(masterSeed: seed, iteration: index), maxChoices: 1 << 20)
        let mutant = mutator.mutant(using: &source)
        return Input(index: index, mutant: mutant, route: Self.route(for: mutant.format, index: index))
    }

    /// The routes in turn: memory, file, stream for binary; memory, file for JSON.
    public static func route(for format: ChangesetMutator.Format, index: Int) -> Route {
        format == .binary ? [Route.memory, .file, .stream][index % 3] : [Route.memory, .file][index % 2]
    }

    /// Runs inputs `indices` in order, calling `willRun` before each.
    ///
    /// Without `onFinding` the first ``FuzzFinding`` is thrown; with it, each
    /// finding is passed to `onFinding`, counted in ``FuzzSummary/findings``,
    /// and the run goes on from the base replica.
    public func run(
        inputs indices: Range<Int>, willRun: (Int) -> Void = { _ in },
        onFinding: ((FuzzFinding) throws -> Void)? = nil
    ) throws -> FuzzSummary {
        var summary = FuzzSummary(seed: seed)
        for index in indices {
            willRun(index)
            let input = input(at: index)
            do {
                summary.record(input, try run(input))
            } catch let finding as FuzzFinding {
                guard let onFinding else { throw finding }
                summary.recordFinding(input)
                try onFinding(finding)
            }
        }
        return summary
    }

    /// Applies one input and checks the promise; throws a ``FuzzFinding`` when it is broken.
    ///
    /// Other errors (a scratch file that cannot be written) are the harness's own and are thrown as they are.
    public func run(_ input: Input) throws -> FuzzOutcome {
        do {
            let outcome = try check(input)
            if case .accepted = outcome, knownBytes == nil {
                replica = nil
                try restoreBase()
            }
            return outcome
        } catch {
            // Whatever happened, the next input starts from the base again.
            replica = nil
            try? restoreBase()
            throw error
        }
    }

    /// Applies the input and checks the outcome, leaving the replica open; `knownBytes` is left `nil`
    /// when the input changed the file, which must then be restored.
    private func check(_ input: Input) throws -> FuzzOutcome {
        let replica = try openReplica()
        let before = try knownBytes ?? FuzzFiles.read(databasePath)
        knownBytes = nil
        let report: ApplyReport
        do {
            report = try apply(input, to: replica)
        } catch {
            return try refusal(input, error, before: before, replica: replica)
        }
        let applied = try appliedBytes(input, report, replica: replica)
        if applied == before {
            // Nothing was written: the replica is as consistent as it was, and need not be restored.
            knownBytes = applied
            return .accepted(applied: report.applied, ignored: report.ignored)
        }
        try checkConsistent(input, report, applied: applied, replica: replica)
        guard report.applied > 0, (input.index ?? 0) % localWritesEvery == 0 else {
            return .accepted(applied: report.applied, ignored: report.ignored)
        }
        try checkLocalWrites(input, report, replica: replica)
        return .accepted(applied: report.applied, ignored: report.ignored)
    }

    /// The outcome of a refusal, once it is clean: the file unchanged, no side file, no transaction left open.
    private func refusal(_ input: Input, _ error: any Error, before: [UInt8], replica: Replica) throws -> FuzzOutcome {
        let after = try FuzzFiles.read(databasePath)
        if after != before {
            throw input.finding("refused (\(error)) but the database file changed: \(Self.difference(before, after))")
        }
        if let side = sideFileProblem() { throw input.finding("refused (\(error)) but \(side)") }
        if replica.database.inTransaction { throw input.finding("refused (\(error)) but left a transaction open") }
        knownBytes = after
        return .refused(reason: FuzzOutcome.reason(of: error), message: String(describing: error))
    }

    /// The file after an accepted input, once no side file is left and applying the input again changes no byte.
    private func appliedBytes(_ input: Input, _ report: ApplyReport, replica: Replica) throws -> [UInt8] {
        let applied = try FuzzFiles.read(databasePath)
        if let side = sideFileProblem() { throw input.finding("accepted (\(report)) but \(side)") }
        do {
            let again = try apply(input, to: replica)
            let after = try FuzzFiles.read(databasePath)
            if after != applied {
                throw input.finding(
                    "accepted (\(report)), but applying it again (\(again)) changed the file: "
                        + Self.difference(applied, after))
            }
        } catch let error as FuzzFinding {
            throw error
        } catch {
            throw input.finding("accepted (\(report)), but applying it again was refused: \(error)")
        }
        return applied
    }

    /// Checks a replica an accepted input changed: `check()` finds it consistent and writes nothing.
    private func checkConsistent(_ input: Input, _ report: ApplyReport, applied: [UInt8], replica: Replica) throws {
        let check: CheckReport
        do {
            check = try replica.check()
        } catch {
            throw input.finding("accepted (\(report)), but check() failed: \(error)")
        }
        guard check.isConsistent else {
            throw input.finding("accepted (\(report)), but the replica is inconsistent:\n\(check)")
        }
        if try FuzzFiles.read(databasePath) != applied {
            throw input.finding("accepted (\(report)), and check() then changed the file")
        }
    }

    /// Folds the app's writes on top of an accepted input and checks that the replica is still consistent.
    private func checkLocalWrites(_ input: Input, _ report: ApplyReport, replica: Replica) throws {
        // The app's writes on top of what was merged: the fold's arithmetic (the next causal length,
        // counter contributions, the next stamp) meets whatever extreme values the input brought.
        for batch in [FuzzBase.localUpdates, FuzzBase.localDeletes] {
            for sql in batch {
                // Concord may refuse a write (a counter pushed past Int64.max becomes a real); the app sees
                // that error, and the replica must still be consistent.
                do { try replica.database.execute(sql) } catch is SQLiteError {}
            }
            do {
                try replica.foldLocalWrites()
            } catch {
                throw input.finding(
                    "accepted (\(report)), but folding the app's writes afterwards failed: \(error)")
            }
        }
        let afterWrites: CheckReport
        do {
            afterWrites = try replica.check()
        } catch {
            throw input.finding("accepted (\(report)), but check() after local writes failed: \(error)")
        }
        guard afterWrites.isConsistent else {
            throw input.finding(
                "accepted (\(report)), but after local writes the replica is inconsistent:\n\(afterWrites)")
        }
    }

    private func apply(_ input: Input, to replica: Replica) throws -> ApplyReport {
        let bytes = input.mutant.bytes
        switch input.route {
        case .memory:
            return try replica.apply(input.mutant.format == .json ? Changeset(json: bytes) : Changeset(decoding: bytes))
        case .file:
            try FuzzFiles.write(bytes, to: inputPath)
            return try replica.applyChangeset(atPath: inputPath)
        case .stream:
            // The path `applyChangeset(atPath:)` takes with a binary file larger than it decodes in memory.
            try FuzzFiles.write(bytes, to: inputPath)
            return try replica.applyChangeset(atPath: inputPath, decodingInMemoryUpTo: 0)
        }
    }

    private func openReplica() throws -> Replica {
        if let replica { return replica }
        let opened = try Replica(path: databasePath, configuration: configuration, create: false)
        // No fsync: the scratch file need not survive a power cut, and syncing every accepted
        // input's commit costs ten times the rest of the work. What is written is the same.
        try opened.database.execute("PRAGMA synchronous = OFF")
        replica = opened
        return opened
    }

    /// Writes the base bytes over the working file (the replica must be closed).
    private func restoreBase() throws {
        for suffix in ["-journal", "-wal", "-shm"] { FuzzFiles.remove(databasePath + suffix) }
        try FuzzFiles.write(baseBytes, to: databasePath)
        knownBytes = baseBytes
    }

    /// A journal or WAL file with content next to the database, described; `nil` when there is none.
    private func sideFileProblem() -> String? {
        for suffix in ["-journal", "-wal"] {
            if let size = FuzzFiles.size(databasePath + suffix), size > 0 {
                return "left \(size) bytes in the side file \(suffix)"
            }
        }
        return nil
    }

    /// Where two files differ: sizes, how many bytes, the first offset.
    static func difference(_ a: [UInt8], _ b: [UInt8]) -> String {
        let common = min(a.count, b.count)
        let differing = (0..<common).filter { a[$0] != b[$0] }
        let first = differing.first ?? common
        return "\(differing.count + abs(a.count - b.count)) bytes differ, the first at offset \(first) "
            + "(size \(a.count) before, \(b.count) after)"
    }
}

extension ChangesetFuzzer.Input {
    /// The finding that this input broke the promise as `problem` says.
    fileprivate func finding(_ problem: String) -> FuzzFinding {
        FuzzFinding(index: index, mutant: mutant, route: route, problem: problem)
    }
}
