/// What ``Replica/sync(_:)`` did.
public struct SyncReport: Hashable, Sendable {
    /// Rounds of all-pairs exchange, the last of which moved nothing.
    public var rounds: Int
    /// Rows merged, over all replicas.
    public var applied: Int
}

extension Replica {
    /// Exchanges changes between every pair of `replicas` until none learns anything new.
    ///
    /// Each replica reads each other one from the version it last read, so a
    /// round costs what changed, not what the databases hold. When it returns,
    /// every replica holds the same registers.
    ///
    /// ```swift
    /// try Replica.sync([phone, laptop, tablet])
    /// ```
    @discardableResult
    public static func sync(_ replicas: [Replica]) throws -> SyncReport {
        var report = SyncReport(rounds: 0, applied: 0)
        var moved = true
        while moved {
            moved = false
            report.rounds += 1
            for source in replicas {
                for target in replicas where target !== source {
                    let applied = try target.apply(source.changes(since: target.peerVersion(source.nodeID))).applied
                    report.applied += applied
                    moved = moved || applied > 0
                }
            }
        }
        return report
    }
}
