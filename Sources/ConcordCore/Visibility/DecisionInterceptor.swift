/// Wraps merge and visibility decisions from outside, to show that the simulator's checks catch known bugs.
///
/// A checker that never fails proves nothing, so the simulator's tests plant
/// mistakes sync engines are known to make and require that some seed fails.
/// They plant them here, around the engine's decisions, not inside it: a
/// replica with no interceptor (every app) runs exactly the code a replica
/// with one runs, and each hook's answer is what the engine would have done
/// otherwise unless the interceptor changes it. Reachable only through
/// `@_spi(Testing)`.
///
/// ```swift
/// var configuration = Replica.Configuration(clock: clock)
/// configuration.interceptor = InjectedBugs([.ignoreNodeTieBreak])   // ConcordSimulator's interceptor
/// ```
@_spi(Testing)
public protocol DecisionInterceptor: Sendable {
    /// The registers a changeset row is merged as, given what is stored; `nil` drops the row.
    ///
    /// `isKnown` tells whether this replica holds registers for a row.
    func incoming(
        _ remote: RowRegisters, stored: RowRegisters?, row: RowChange, source: NodeID, parents: [ForeignKey],
        isKnown: (RowRef) throws -> Bool
    ) throws -> RowRegisters?

    /// Whether a parent that is not visible hides `child` (the engine's answer: always).
    func parentHides(_ child: RowRef, parentKnown: Bool, arrivedNow: Bool) -> Bool

    /// Whether merging suspends capture, so the merge's writes are not taken for the app's (the engine's answer: yes).
    var suspendsCapture: Bool { get }
}
