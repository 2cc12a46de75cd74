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

    /// Whether a replica whose file is a copy takes a new node id before stamping (the engine's answer: yes).
    var detectsCopies: Bool { get }

    /// Whether a copy credits the counter changes its capture log held when it noticed it was one to the
    /// original (the engine's answer: yes), rather than folding them as its own.
    var creditsCopiedWrites: Bool { get }

    /// Whether an apply commits the registers it merged before it shows the rows, in a transaction of
    /// their own (the engine's answer: no; rows and registers commit together).
    var commitsRegistersBeforeRows: Bool { get }

    /// Whether the rows a table rebuild copied are dated when Concord last looked at the table, the earliest
    /// the rebuild can have happened (the engine's answer: yes), rather than when it noticed the rebuild.
    var datesRebuildsAtLastLook: Bool { get }
}

@_spi(Testing)
extension DecisionInterceptor {
    /// The engine's answer.
    public var detectsCopies: Bool { true }
    /// The engine's answer.
    public var creditsCopiedWrites: Bool { true }
    /// The engine's answer.
    public var commitsRegistersBeforeRows: Bool { false }
    /// The engine's answer.
    public var datesRebuildsAtLastLook: Bool { true }
}
