/// Something interesting a simulation run may reach, under a stable kebab-case name.
///
/// A batch that passes says only that nothing broke; coverage says what was
/// tried. Each run counts the events it reached (``Coverage``), `concord
/// simulate` prints how many runs reached each one, and a scenario's
/// ``Scenario/mustReach`` fails a batch in which no run reached an event it
/// lists. Every event is observed from data the simulator already has (the
/// ledger of the apps' writes, the engine's apply reports, the disk's images
/// before and after a power loss), never logged to the trace, so coverage
/// changes no trace hash and no database byte. The names are stable (scenario
/// files list them); the order of the cases is the order reports print.
///
/// ```swift
/// let result = try Simulation(scenario: scenario, seed: 3).run()
/// result.coverage[.tornWrite]   // how many files power losses tore in this run
/// CoverageEvent(rawValue: "torn-write") == .tornWrite   // true
/// ```
public enum CoverageEvent: String, CaseIterable, Codable, Sendable {
    /// A device's delete removed rows of other tables through `ON DELETE CASCADE` (counted per row).
    case cascade = "cascade"
    /// A device deleted a parent whose `CASCADE` child was written elsewhere and had not reached it yet.
    case cascadeWhileChildInFlight = "cascade-while-child-in-flight"
    /// A trigger of the app's deleted synced rows while Concord merged a change, and the device's next fold
    /// stamped those deletes as its own (counted per row).
    case triggerDeleteOnMerge = "trigger-delete-on-merge"
    /// An apply showed again a row whose registers say deleted: a child under a `RESTRICT` key brought it back.
    case restrictRevival = "restrict-revival"
    /// A row became parked: alive but not shown (its parent had not arrived, or it broke a constraint).
    case parked = "parked"
    /// An apply showed again a row that was parked (seen by a check, or reported parked by an earlier apply).
    case parkedThenShown = "parked-then-shown"
    /// An app incremented a `counter` cell without having seen another device's increment of it.
    case concurrentCounterIncrements = "concurrent-counter-increments"
    /// The record server refused an upload with "server record changed" (counted per record).
    case serverRecordChanged = "server-record-changed"
    /// A device's clock jumped beyond the drift limit.
    case clockJump = "clock-jump"
    /// A device refused a changeset whose sender's clock ran too far ahead.
    case driftRefusal = "drift-refusal"
    /// An app's process was killed between steps (every write survived).
    case processKill = "process-kill"
    /// A device lost power (only what was synced survived, unsynced writes may have landed in part).
    case powerLoss = "power-loss"
    /// A power loss left a file with a sector of garbage: a torn write (counted per file).
    case tornWrite = "torn-write"
    /// A power loss landed some unsynced changes of a file (or the directory) and not others, none torn.
    case reorderedWrite = "reordered-write"
    /// The power failed inside an app's write statement.
    case crashMidWrite = "crash-mid-write"
    /// The power failed inside a batch of statements an app runs before one fold (``Scenario/Mix/batch``),
    /// between two of them or inside one, before the fold.
    case crashMidBatch = "crash-mid-batch"
    /// The power failed inside the apply of a changeset.
    case crashMidApply = "crash-mid-apply"
    /// The power failed inside another disk operation: a fold of the capture log, an export, a check.
    case crashMidFoldOrExport = "crash-mid-fold-or-export"
    /// A device's database file was copied to a new device.
    case fork = "fork"
    /// A device's file was copied right after its app wrote, before Concord folded the write: the copy
    /// found the write waiting in its capture log (see `CopyCredit` in the engine).
    case copyUnfolded = "copy-unfolded"
    /// A device's disk went back to an earlier backup.
    case restore = "restore"
    /// An app upgraded to a newer release (in the plan or in the liveness phase).
    case upgrade = "upgrade"
    /// A write waited while a release refused its table, and was folded once a later release undid the change.
    case refusedWriteFolded = "refused-write-folded"
    /// A copy folded writes its original's app made while a release refused their table, crediting their
    /// counter changes to the original.
    case copiedRefusedWrite = "copied-refused-write"
    /// A device held back records it fetched from the record server (their table was refused), and fetched
    /// them again from the same token until it merged them.
    case heldBackRefetched = "held-back-refetched"
    /// An upgrade's migration rebuilt a synced table (create, copy, drop, rename), dropping its capture.
    case rebuild = "table-rebuild"
    /// Taking up an upgrade's new columns wrote values of the device's own: a `max` or `min` column's
    /// DEFAULT in every row, or what the migration put there.
    case newColumnTakenUp = "new-column-taken-up"
    /// An app applied a changeset inside a transaction of its own, checked it, and rolled it back
    /// (``ConnectionQuirks/rollsBackApplies``), before applying it again.
    case applyRolledBack = "apply-rolled-back"
    /// A device's second process synced on a step (``ConnectionQuirks/secondProcess``).
    case secondProcess = "second-process"
    /// A hostile changeset was refused (by the decoder or the replica).
    case hostileRefused = "hostile-refused"
    /// A hostile changeset was accepted (by the receiver, or by a scratch copy of it).
    case hostileAccepted = "hostile-accepted"

    /// Every name, in declaration order, comma-separated: what an error lists as the valid ones.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// The event named `name`; a ``ScenarioError`` naming the valid names when there is none.
    public init(named name: String) throws {
        guard let event = Self(rawValue: name) else {
            throw ScenarioError("unknown coverage event '\(name)'; the events are \(Self.names)")
        }
        self = event
    }
}
