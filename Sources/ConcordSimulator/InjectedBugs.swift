@_spi(Testing) import Concord
import Synchronization

/// Known bugs that a test can switch on, to prove the simulator catches them.
///
/// A checker that never fails proves nothing. Each option re-creates a
/// mistake sync engines are known to make; the simulator's tests switch one
/// on and require that some seed in a bounded range fails, and that the
/// failure shrinks to a handful of steps. A bug is planted around the
/// engine's decisions, through a ``DecisionInterceptor`` (see
/// ``interceptor()``), or around what it exports, so the engine runs the
/// same code with or without one.
///
/// ```swift
/// var simulation = Simulation(scenario: .reminders, seed: 7)
/// simulation.injectedBugs = [.ignoreNodeTieBreak]
/// ```
@_spi(Testing)
public struct InjectedBugs: OptionSet, Hashable, Sendable {
    /// The set's bits, one per bug.
    public let rawValue: Int
    /// The bugs whose bits are set in `rawValue`.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Between equal clock readings the register already held wins, instead of the higher node id.
    public static let ignoreNodeTieBreak = InjectedBugs(rawValue: 1 << 0)
    /// A child arriving after its parent was deleted is shown, as if the cascade had already run.
    public static let cascadesInArrivalOrder = InjectedBugs(rawValue: 1 << 1)
    /// A child arriving before its parent is dropped instead of parked.
    public static let skipParking = InjectedBugs(rawValue: 1 << 2)
    /// Writes that applying a changeset makes to the user tables are captured as local writes.
    public static let captureMergeWrites = InjectedBugs(rawValue: 1 << 3)
    /// A row that a sender delivered before is taken for a duplicate and dropped, even when it changed.
    public static let dropDuplicateDelivery = InjectedBugs(rawValue: 1 << 4)
    /// A device exporting its changes leaves out the tables and columns its own release lacks, as an
    /// engine that does not keep unknown data would send them. It is planted in the simulator's export
    /// (`Changeset.restricted(to:)`), not in the engine, and only a workload with releases has any.
    public static let dropUnknownColumnsOnRelay = InjectedBugs(rawValue: 1 << 5)
    /// A replica whose file is a copy of another's (a fork, a restored backup) folds its writes under the
    /// node id it copied, so two devices stamp as one.
    public static let foldKeepsCopiedNodeID = InjectedBugs(rawValue: 1 << 6)
    /// Text arriving in a changeset is cut at its first NUL byte, as C string functions read it.
    public static let truncateTextAtNUL = InjectedBugs(rawValue: 1 << 7)
    /// An apply commits the registers it merged in a transaction of their own, before it shows the rows:
    /// a crash in between leaves registers that the user table does not show.
    public static let crashUnsafeWriteOrder = InjectedBugs(rawValue: 1 << 8)
    /// A row's liveness follows the register with the newer stamp, without checking which causal length
    /// is longer: a delete (or re-insert) made on a clock behind can come undone.
    public static let uncheckedCausalLength = InjectedBugs(rawValue: 1 << 9)
    /// The rows a table rebuild copied are dated when Concord noticed the rebuild, not when it last looked:
    /// the copies beat every edit other devices made in between (a bug a black-box probe found).
    public static let rebuildCopiesDatedWhenNoticed = InjectedBugs(rawValue: 1 << 10)
    /// A copy of a file whose capture log held an app's writes folds them all as its own, so a counter
    /// change made before the copy counts once on each file, twice once they sync (a bug a probe found).
    public static let copyFoldsWaitingWritesAsItsOwn = InjectedBugs(rawValue: 1 << 11)

    /// Every bug by its name, in declaration order.
    public static let named: [(name: String, bug: InjectedBugs)] = [
        ("ignore-node-tie-break", .ignoreNodeTieBreak),
        ("cascades-in-arrival-order", .cascadesInArrivalOrder),
        ("skip-parking", .skipParking),
        ("capture-merge-writes", .captureMergeWrites),
        ("drop-duplicate-delivery", .dropDuplicateDelivery),
        ("drops-unknown-columns-on-relay", .dropUnknownColumnsOnRelay),
        ("fold-keeps-copied-node-id", .foldKeepsCopiedNodeID),
        ("truncates-text-at-nul", .truncateTextAtNUL),
        ("crash-unsafe-write-order", .crashUnsafeWriteOrder),
        ("unchecked-causal-length", .uncheckedCausalLength),
        ("rebuild-copies-dated-when-noticed", .rebuildCopiesDatedWhenNoticed),
        ("copy-folds-waiting-writes-as-its-own", .copyFoldsWaitingWritesAsItsOwn),
    ]

    /// The names of the bugs set, in declaration order.
    public var names: [String] { Self.named.filter { contains($0.bug) }.map(\.name) }

    /// An interceptor that plants these bugs in one replica (`nil` when none of them is the engine's).
    public func interceptor() -> (any DecisionInterceptor)? {
        subtracting(.dropUnknownColumnsOnRelay).isEmpty ? nil : BugInterceptor(bugs: self)
    }
}

/// The decisions ``InjectedBugs`` changes, wrapped around the engine's.
final class BugInterceptor: DecisionInterceptor {
    let bugs: InjectedBugs
    /// Rows delivered so far, for ``InjectedBugs/dropDuplicateDelivery``.
    private let delivered = Mutex<Set<DeliveredRow>>([])

    init(bugs: InjectedBugs) { self.bugs = bugs }

    func incoming(
        _ remote: RowRegisters, stored: RowRegisters?, row: RowChange, source: NodeID, parents: [ForeignKey],
        isKnown: (RowRef) throws -> Bool
    ) throws -> RowRegisters? {
        if bugs.contains(.dropDuplicateDelivery) {
            let delivery = DeliveredRow(source: source, table: row.table, key: row.key)
            guard delivered.withLock({ $0.insert(delivery).inserted }) else { return nil }
        }
        if bugs.contains(.skipParking) {
            for key in parents where key.action.hidesChild {
                guard let value = remote.columns[key.column]?.value, !value.isNull else { continue }
                if try !isKnown(RowRef(table: key.parent, key: key.parentKey(of: value))) { return nil }
            }
        }
        var remote = remote
        if bugs.contains(.truncateTextAtNUL) {
            for index in remote.columns.indices {
                guard case .text(let text)? = remote.columns[index]?.value, let nul = text.bytes.firstIndex(of: 0)
                else { continue }
                remote.columns[index]?.value = .text(SQLiteText(bytes: Array(text.bytes[..<nul])))
            }
        }
        if bugs.contains(.uncheckedCausalLength), let ours = stored?.liveness.stamp,
            let theirs = remote.liveness.stamp, theirs < ours
        {
            remote.liveness = stored!.liveness
        }
        guard bugs.contains(.ignoreNodeTieBreak), let stored else { return remote }
        for index in remote.columns.indices {
            if let theirs = remote.columns[index], let ours = stored.columns[index],
                theirs.stamp.hlc == ours.stamp.hlc, theirs.stamp.node != ours.stamp.node
            {
                remote.columns[index] = ours
            }
        }
        return remote
    }

    func parentHides(_ child: RowRef, parentKnown: Bool, arrivedNow: Bool) -> Bool {
        !(bugs.contains(.cascadesInArrivalOrder) && arrivedNow && parentKnown)
    }

    var suspendsCapture: Bool { !bugs.contains(.captureMergeWrites) }

    var detectsCopies: Bool { !bugs.contains(.foldKeepsCopiedNodeID) }

    var creditsCopiedWrites: Bool { !bugs.contains(.copyFoldsWaitingWritesAsItsOwn) }

    var commitsRegistersBeforeRows: Bool { bugs.contains(.crashUnsafeWriteOrder) }

    var datesRebuildsAtLastLook: Bool { !bugs.contains(.rebuildCopiesDatedWhenNoticed) }
}

/// A row as one sender delivered it, for the `dropDuplicateDelivery` bug.
struct DeliveredRow: Hashable {
    let source: NodeID
    let table: String
    let key: SQLiteValue
}
