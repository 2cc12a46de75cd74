/// What one simulation run did and found.
///
/// Counts feed `concord simulate`'s summary; `failure` names the first
/// invariant that broke, with its step and device; the hashes fingerprint the
/// run, so equal seeds must give equal hashes.
///
/// ```swift
/// let result = try Simulation(scenario: .default, seed: 7).run()
/// print(result.passed, result.rowsMerged, result.conflicts)
/// ```
public struct SimulationResult: Codable, Equatable, Sendable {
    /// Which invariant broke.
    public enum FailureKind: String, Codable, Sendable {
        /// Foreign-key or integrity check, projection, or clock monotonicity, on one device after one step.
        case safety
        /// A device stamped writes its app did not make (merges captured as local writes).
        case ownStamps
        /// Devices ended with different canonical dumps.
        case convergence
        /// The common state differs from the reference model's.
        case oracle
        /// An accepted write is neither visible, superseded, deleted nor parked.
        case loss
        /// The engine threw where it must not.
        case error
    }

    /// The first invariant that broke: which, when, and what was seen.
    public struct Failure: Codable, Equatable, Sendable, CustomStringConvertible {
        /// Which invariant broke.
        public var kind: FailureKind
        /// The step it broke at (`nil`: after the liveness phase).
        public var step: Int?
        /// What was seen, naming the device and, where there is one, the row.
        public var message: String
        /// The kind, the step (or the liveness phase), and the message, in one line.
        public var description: String {
            "\(kind.rawValue) failure \(step.map { "at step \($0)" } ?? "after the liveness phase"): \(message)"
        }
    }

    /// The seed the run was drawn from.
    public var seed: UInt64
    /// The scenario's name.
    public var scenario: String
    /// The plan's number of steps.
    public var steps: Int
    /// App operations the devices accepted, and those their schema refused.
    public var writes = 0
    /// App operations a device's database refused (a constraint failed, say); they changed nothing.
    public var rejectedWrites = 0
    /// Mesh changesets sent, duplicated, lost; cloud uploads and fetches.
    public var messagesSent = 0
    /// Mesh changesets delivered a second time.
    public var messagesDuplicated = 0
    /// Mesh changesets that never arrived.
    public var messagesLost = 0
    /// Cloud uploads.
    public var uploads = 0
    /// Cloud fetches.
    public var fetches = 0
    /// Uploads refused with "server record changed", then fetched, merged and retried.
    public var serverRecordChanged = 0
    /// Push notifications of an upload that did not reach another device (lost, or the device was offline).
    public var pushesLost = 0
    /// Rows whose registers changed by applying changesets.
    public var rowsMerged = 0
    /// Columns where an incoming register and the local one disagreed, by merge (`lww`, `counter`, …, `row`).
    public var conflicts: [String: Int] = [:]
    /// Deletes a local delete cascaded to other rows.
    public var cascades = 0
    /// Rows that became parked, and parked rows that were shown again.
    public var parked = 0
    /// Parked rows that were shown again.
    public var unparked = 0
    /// Times an app was killed and relaunched.
    public var crashes = 0
    /// Crashes that were power losses (the rest killed the app's process only).
    public var powerLosses = 0
    /// Power losses that found unsynced writes on the disk, which they could tear or reorder.
    public var powerLossesWithUnsyncedWrites = 0
    /// Power failures that struck inside an operation (an app write, an apply, a fold, an export).
    public var midOperationCrashes = 0
    /// Backups restored onto a device (its database went back in time).
    public var restores = 0
    /// Links cut and devices gone offline.
    public var partitions = 0
    /// Clock jumps beyond the drift limit, and changesets refused for them (retried later).
    public var clockJumps = 0
    /// Changesets refused because their sender's clock ran too far ahead (retried later).
    public var driftRefusals = 0
    /// Hostile changesets refused (by the decoder or the replica; the file byte-identical).
    public var hostileRefused = 0
    /// Hostile changesets accepted (by the receiver, or by a scratch copy of it; see `SimulationRun+Hostile.swift`).
    public var hostileAccepted = 0
    /// Devices copied to new devices.
    public var forks = 0
    /// Apps upgraded to a newer release, during the plan and in the liveness phase.
    public var upgrades = 0
    /// Rounds of exchange the liveness phase needed.
    public var roundsToConverge = 0
    /// Accepted writes by what became of them: visible, superseded, deleted, parked.
    public var fates: [String: Int] = [:]
    /// How often the run reached each ``CoverageEvent`` (the same for the same seed).
    public var coverage = Coverage()
    /// Whether every device ended with the same canonical dump.
    public var converged = false
    /// The first invariant that broke, if any did.
    public var failure: Failure?
    /// A hash (FNV-1a, in hex) of the event trace: equal for equal runs.
    public var traceHash = ""
    /// A hash (FNV-1a, in hex) of every device's canonical dump at the end.
    public var dumpHash = ""
    /// A hash (FNV-1a, in hex) of the bytes of every device's database file at the end, as its disk holds it.
    public var databaseFilesHash = ""
    /// The event trace, when the run was asked to keep it.
    public var trace: [String]?

    /// Whether no invariant broke and the devices converged.
    public var passed: Bool { failure == nil && converged }

    /// What went wrong, in one line: the failure, or that the devices did not converge.
    ///
    /// A run that did not pass always has one, so a report never prints an
    /// empty reason.
    ///
    /// ```swift
    /// if !result.passed { print("seed \(result.seed): \(result.failureDescription)") }
    /// ```
    public var failureDescription: String { failure?.description ?? "did not converge" }
}
