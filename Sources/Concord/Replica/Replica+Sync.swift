/// What ``Replica/sync(_:)`` did.
///
/// ```swift
/// let report = try Replica.sync([phone, laptop])
/// print(report.rounds, report.applied)   // the last round moved nothing
/// ```
public struct SyncReport: Hashable, Sendable {
    /// Rounds of all-pairs exchange, the last of which moved nothing unless the sync stopped at its
    /// round limit (see ``settled``).
    public var rounds: Int
    /// Whether the last round moved nothing. `false` when apps kept writing while the sync ran and it
    /// stopped at its round limit: everything the replicas held when it began was exchanged, and what
    /// was written since goes with the next sync.
    public var settled = true
    /// Rows merged, over all replicas.
    public var applied: Int
    /// Exchanges a replica refused (a peer's clock too far ahead, a table declared otherwise there), each
    /// once, in the order met; every other direction went on.
    public var refusals: [Refusal] = []
    /// What changed in each replica's user tables (by its position in the list given to ``Replica/sync(_:)``).
    public var changes: [MergeReport] = []

    /// One direction of an exchange that was refused, and why.
    public struct Refusal: Hashable, Sendable, CustomStringConvertible {
        /// The replica whose changes were refused, by its position in the list given to ``Replica/sync(_:)``.
        public var source: Int
        /// The replica that refused them, by its position in the same list.
        public var target: Int
        /// The refusal's message (a ``ClockDriftError``'s description, or a ``ReplicaError``'s).
        public var reason: String
        /// Whether the source could not send its changes at all (it could not fold its own writes: a merge
        /// function it was opened without), rather than the target refusing them.
        public var atSource = false

        /// Which replica refused which one's changes, and why, in one line.
        public var description: String {
            atSource
                ? "replica \(source) could not send its changes (to replica \(target)): \(reason)"
                : "replica \(target) refused the changes of replica \(source): \(reason)"
        }
    }
}

/// ``Replica/sync(_:maxRounds:)`` stopped on an error other than a refusal, in the exchange it names.
///
/// Each apply is atomic, so nothing is half-applied: what the exchanges before it merged stays merged.
///
/// ```swift
/// do {
///     try Replica.sync([phone, laptop])
/// } catch let stopped as SyncStopped {
///     print("\(stopped.source) -> \(stopped.target): \(stopped.error)")
/// }
/// ```
public struct SyncStopped: Error, CustomStringConvertible {
    /// The replica whose changes were going out, by its position in the list given to the sync.
    public let source: Int
    /// The replica they were going to, by its position in the same list.
    public let target: Int
    /// What went wrong (a ``SQLiteError`` such as a lock another process held, ...).
    public let error: any Error
    /// What the sync did before it stopped.
    public let report: SyncReport

    /// The direction, then the error.
    public var description: String {
        "sync stopped while replica \(source)'s changes went to replica \(target): \(error)"
    }
}

/// ``Replica/sync(_:)`` exchanged everything it could, but some directions were refused.
///
/// ```swift
/// do {
///     try Replica.sync([phone, laptop])
/// } catch let incomplete as SyncIncomplete {
///     for refusal in incomplete.report.refusals { print(refusal) }
/// }
/// ```
public struct SyncIncomplete: Error, CustomStringConvertible {
    /// What was done, refusals included.
    public let report: SyncReport

    /// How much the sync merged, then every refusal, separated by semicolons.
    public var description: String {
        "sync finished every exchange it could (\(report.applied) rows merged in \(report.rounds) rounds), but "
            + report.refusals.map(\.description).joined(separator: "; ")
    }
}

extension Replica {
    /// The rounds ``sync(_:maxRounds:)`` runs at most: without writes made meanwhile it settles in two or
    /// three (what one round merges, a cascade or a parent brought back, goes out in the next).
    public static let defaultMaxSyncRounds = 10

    /// Exchanges changes between every pair of `replicas` until none learns anything new.
    ///
    /// Each replica reads each other one from the version it last read, so a
    /// round costs what changed, not what the databases hold. When it returns,
    /// every replica holds the same registers — unless apps kept writing
    /// faster than a round ran: each round then moves their new writes, and
    /// the sync stops after `maxRounds` (``SyncReport/settled`` is `false`).
    /// The first round already exchanged everything the replicas held when it
    /// began; a sync that ran until the apps stopped could run for ever.
    ///
    /// A direction a replica refuses because the other's clock runs too far
    /// ahead, or because the two declare a table otherwise (another policy,
    /// merge or columns; ``isRefusalOfOneDirection(_:)``), does not stop the
    /// rest: every other pair still exchanges, and then ``SyncIncomplete``
    /// reports what was refused. Any other error stops the sync at once, as a
    /// ``SyncStopped`` naming the exchange (each apply is atomic, so nothing
    /// is half-applied).
    ///
    /// ```swift
    /// try Replica.sync([phone, laptop, tablet])
    /// ```
    @discardableResult
    public static func sync(_ replicas: [Replica], maxRounds: Int = defaultMaxSyncRounds) throws -> SyncReport {
        var report = SyncReport(rounds: 0, applied: 0)
        report.changes = Array(repeating: MergeReport(), count: replicas.count)
        var refused: Set<[Int]> = []
        var moved = true
        while moved {
            guard report.rounds < max(1, maxRounds) else {
                report.settled = false
                break
            }
            moved = false
            report.rounds += 1
            for (s, source) in replicas.enumerated() {
                for (t, target) in replicas.enumerated() where target !== source && !refused.contains([s, t]) {
                    var exporting = true
                    do {
                        let changeset = try source.changes(since: target.peerVersion(source.nodeID))
                        exporting = false
                        let applyReport = try target.apply(changeset)
                        // The source learns how far the target has read it (for `status()`), unless rows were
                        // held back and must come again.
                        if applyReport.heldBack == 0 {
                            try source.recordDelivery(to: target.nodeID, upTo: changeset.upTo)
                        }
                        let applied = applyReport.applied
                        report.applied += applied
                        report.changes[t] = report.changes[t].followed(by: applyReport.changes)
                        moved = moved || applied > 0
                    } catch let error where Self.isRefusalOfOneDirection(error) {
                        refused.insert([s, t])
                        report.refusals.append(.init(source: s, target: t, reason: "\(error)", atSource: exporting))
                    } catch {
                        throw SyncStopped(source: s, target: t, error: error, report: report)
                    }
                }
            }
        }
        guard report.refusals.isEmpty else { throw SyncIncomplete(report: report) }
        return report
    }

    /// Whether `error`, met applying one replica's changes to another, refuses that direction only: the
    /// target's clock would run too far ahead, or the two declare a table otherwise. Nothing was applied,
    /// and every other pair can still exchange.
    static func isRefusalOfOneDirection(_ error: any Error) -> Bool {
        if error is ClockDriftError { return true }
        switch error as? ReplicaError {
        case .schemaMismatch, .policyMismatch, .invalidMerge, .unregisteredMerge: return true
        default: return false
        }
    }
}
