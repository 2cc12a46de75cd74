/// What one simulation run did and found.
///
/// Counts feed `concord simulate`'s summary; `failure` names the first
/// invariant that broke, with its step and device; the hashes fingerprint the
/// run, so equal seeds must give equal hashes.
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

    public struct Failure: Codable, Equatable, Sendable, CustomStringConvertible {
        public var kind: FailureKind
        /// The step it broke at (`nil`: after the liveness phase).
        public var step: Int?
        public var message: String
        public var description: String {
            "\(kind.rawValue) failure \(step.map { "at step \($0)" } ?? "after the liveness phase"): \(message)"
        }
    }

    public var seed: UInt64
    public var scenario: String
    public var steps: Int
    /// App operations the devices accepted, and those their schema refused.
    public var writes = 0
    public var rejectedWrites = 0
    /// Mesh changesets sent, duplicated, lost; cloud uploads and fetches.
    public var messagesSent = 0
    public var messagesDuplicated = 0
    public var messagesLost = 0
    public var uploads = 0
    public var fetches = 0
    /// Uploads refused with "server record changed", then fetched, merged and retried.
    public var serverRecordChanged = 0
    public var pushesLost = 0
    /// Rows whose registers changed by applying changesets.
    public var rowsMerged = 0
    /// Columns where an incoming register and the local one disagreed, by merge (`lww`, `counter`, …, `row`).
    public var conflicts: [String: Int] = [:]
    /// Deletes a local delete cascaded to other rows.
    public var cascades = 0
    /// Rows that became parked, and parked rows that were shown again.
    public var parked = 0
    public var unparked = 0
    public var crashes = 0
    public var partitions = 0
    /// Clock jumps beyond the drift limit, and changesets refused for them (retried later).
    public var clockJumps = 0
    public var driftRefusals = 0
    public var forks = 0
    /// Rounds of exchange the liveness phase needed.
    public var roundsToConverge = 0
    /// Accepted writes by what became of them: visible, superseded, deleted, parked.
    public var fates: [String: Int] = [:]
    public var converged = false
    public var failure: Failure?
    public var traceHash = ""
    public var dumpHash = ""
    /// The event trace, when the run was asked to keep it.
    public var trace: [String]?

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
