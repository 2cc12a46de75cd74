import ConcordTestTraits
import Synchronization
import Testing

@_spi(Testing) @testable import ConcordCore

private typealias Rows = InMemoryRowGraph

private func stamp(_ time: UInt64) -> Stamp { Stamp(hlc: HLCTimestamp(rawValue: time), node: node(1)) }

private func row(_ table: String, _ key: SQLiteValue) -> RowRef { RowRef(table: table, key: key) }

/// One table per kind of reference to `lists`, and `folders`, which references itself.
private let schema = [
    ForeignKey(child: "reminders", column: 1, parent: "lists", action: .cascade),
    ForeignKey(child: "notes", column: 0, parent: "lists", action: .setNull),
    ForeignKey(child: "tags", column: 0, parent: "lists", action: .setDefault, defaultValue: "inbox"),
    ForeignKey(child: "items", column: 0, parent: "lists", action: .restrict),
    ForeignKey(child: "steps", column: 0, parent: "lists", action: .noAction),
    ForeignKey(child: "folders", column: 0, parent: "folders", action: .cascade),
]

/// An interceptor that records what it was asked and answers `hides`.
private final class Recorder: DecisionInterceptor {
    let hides: Bool
    let asked = Mutex<[String]>([])

    init(hides: Bool) { self.hides = hides }

    func incoming(
        _ remote: RowRegisters, stored: RowRegisters?, row: RowChange, source: NodeID, parents: [ForeignKey],
        isKnown: (RowRef) throws -> Bool
    ) throws -> RowRegisters? { remote }

    func parentHides(_ child: RowRef, parentKnown: Bool, arrivedNow: Bool) -> Bool {
        asked.withLock { $0.append("\(child) known:\(parentKnown) arrived:\(arrivedNow)") }
        return hides
    }

    var suspendsCapture: Bool { true }
}

/// Which rows show, and why the others do not, decided from registers and foreign keys alone.
@Suite("Visibility", .tags(.core))
struct VisibilityTests {
    @Test func rowsWithoutParentsShowExactlyWhenAlive() throws {
        let rows = Rows(schema)
        rows.put("lists", "l1", [nil])
        rows.put("lists", "l2", deleted: true, [nil])
        var visibility = Visibility(graph: rows)
        #expect(try visibility.placement(of: row("lists", "l1")) == .shown(overrides: [:]))
        #expect(try visibility.placement(of: row("lists", "l2")) == .hidden(nil))
        #expect(try visibility.placement(of: row("lists", "never")) == .hidden(nil))
        #expect(Placement.withoutRelations(rows.rows[row("lists", "l1")]!) == .shown)
        #expect(Placement.withoutRelations(rows.rows[row("lists", "l2")]!) == .hidden(nil))
        #expect(Placement.shown.isShown && Placement.shown(overrides: [0: .null]).isShown)
        #expect(!Placement.hidden(nil).isShown && !Placement.hidden(.constraint("x")).isShown)
    }

    @Test func aCascadeChildIsParkedBehindAParentThatDoesNotShow() throws {
        let rows = Rows(schema)
        rows.put("lists", "deleted", deleted: true, [nil])
        rows.put("lists", "alive", [nil])
        rows.put("reminders", "r1", ["a", "missing"])
        rows.put("reminders", "r2", ["b", "deleted"])
        rows.put("reminders", "r3", ["c", "alive"])
        rows.put("reminders", "r4", ["d", .null])
        rows.put("reminders", "r5", ["e", nil])
        var visibility = Visibility(graph: rows)
        #expect(
            try visibility.placement(of: row("reminders", "r1"))
                == .hidden(.missingParent(table: "lists", key: "missing")))
        #expect(
            try visibility.placement(of: row("reminders", "r2"))
                == .hidden(.hiddenParent(table: "lists", key: "deleted")))
        #expect(try visibility.placement(of: row("reminders", "r3")) == .shown)
        #expect(try visibility.placement(of: row("reminders", "r4")) == .shown, "a NULL reference references nothing")
        #expect(try visibility.placement(of: row("reminders", "r5")) == .shown, "nor does a column never written")

        // Through a chain: each row is parked behind the one above it.
        rows.put("folders", "top", deleted: true, [.null])
        rows.put("folders", "middle", ["top"])
        rows.put("folders", "bottom", ["middle"])
        #expect(
            try visibility.placement(of: row("folders", "bottom"))
                == .hidden(.hiddenParent(table: "folders", key: "middle")))
        #expect(
            try visibility.placement(of: row("folders", "middle"))
                == .hidden(.hiddenParent(table: "folders", key: "top")))
    }

    @Test func rowsOnACycleNeverShow() throws {
        let rows = Rows(schema)
        rows.put("folders", "self", ["self"])
        rows.put("folders", "b", ["c"])
        rows.put("folders", "c", ["b"])
        rows.put("folders", "child", ["b"])
        var visibility = Visibility(graph: rows)
        #expect(
            try visibility.placement(of: row("folders", "self")) == .hidden(.onCycle(table: "folders", key: "self")))
        // Each row of the two-cycle names its parent on the cycle, whichever is asked first, so replicas with the
        // same registers give the same reasons; a row below the cycle is not on it.
        #expect(try visibility.placement(of: row("folders", "b")) == .hidden(.onCycle(table: "folders", key: "c")))
        #expect(try visibility.placement(of: row("folders", "c")) == .hidden(.onCycle(table: "folders", key: "b")))
        #expect(
            try visibility.placement(of: row("folders", "child")) == .hidden(.hiddenParent(table: "folders", key: "b")))
        var otherOrder = Visibility(graph: rows)
        #expect(
            try otherOrder.placement(of: row("folders", "child")) == .hidden(.hiddenParent(table: "folders", key: "b")))
        #expect(try otherOrder.placement(of: row("folders", "c")) == .hidden(.onCycle(table: "folders", key: "b")))
        #expect(try otherOrder.placement(of: row("folders", "b")) == .hidden(.onCycle(table: "folders", key: "c")))
    }

    @Test func setNullAndSetDefaultChildrenShowAStandIn() throws {
        let rows = Rows(schema)
        rows.put("lists", "alive", [nil])
        rows.put("lists", "deleted", deleted: true, [nil])
        rows.put("lists", "inbox", [nil])
        rows.put("notes", "n1", ["missing"])
        rows.put("notes", "n2", ["deleted"])
        rows.put("notes", "n3", ["alive"])
        rows.put("tags", "t1", ["missing"])
        rows.put("tags", "t2", ["alive"])
        var visibility = Visibility(graph: rows)
        #expect(try visibility.placement(of: row("notes", "n1")) == .shown(overrides: [0: .null]))
        #expect(try visibility.placement(of: row("notes", "n2")) == .shown(overrides: [0: .null]))
        #expect(try visibility.placement(of: row("notes", "n3")) == .shown(overrides: [:]))
        #expect(try visibility.placement(of: row("tags", "t1")) == .shown(overrides: [0: "inbox"]))
        #expect(try visibility.placement(of: row("tags", "t2")) == .shown(overrides: [:]))
        // The register keeps the real reference; only what shows stands in.
        #expect(rows.rows[row("notes", "n1")]?.columns[0]?.value == "missing")
    }

    /// Keys that lead back to the row being decided end there: a `SET DEFAULT` table whose default row
    /// hangs below the row asked about (it used to recurse until the stack ran out), and two tables whose
    /// defaults name each other's rows, each with its parent gone.
    @Test func setDefaultKeysThatLeadBackEndThere() throws {
        let folders = [
            ForeignKey(child: "folders", column: 0, parent: "folders", action: .setDefault, defaultValue: "root")
        ]
        let rows = Rows(folders)
        rows.put("folders", "root", ["c"])
        rows.put("folders", "c", ["p"])
        rows.put("folders", "p", deleted: true, [nil])
        var visibility = Visibility(graph: rows)
        #expect(try visibility.placement(of: row("folders", "c")) == .shown(overrides: [0: "root"]))
        #expect(try visibility.placement(of: row("folders", "root")) == .shown(overrides: [:]))

        let crossed = [
            ForeignKey(child: "a", column: 0, parent: "b", action: .setDefault, defaultValue: "b0"),
            ForeignKey(child: "b", column: 0, parent: "a", action: .setDefault, defaultValue: "a0"),
        ]
        let pairs = Rows(crossed)
        pairs.put("a", "a0", ["gone"])
        pairs.put("b", "b0", ["gone"])
        var both = Visibility(graph: pairs)
        #expect(try both.placement(of: row("a", "a0")) == .hidden(.hiddenParent(table: "b", key: "b0")))
        #expect(try both.placement(of: row("b", "b0")) == .hidden(.onCycle(table: "a", key: "a0")))
    }

    /// A `SET DEFAULT` stand-in must name a row that shows: SQLite never lets a default break its key.
    @Test(arguments: [false, true])
    func aSetDefaultStandInNamingARowThatDoesNotShowParks(defaultRowDeleted: Bool) throws {
        let rows = Rows(schema)
        if defaultRowDeleted { rows.put("lists", "inbox", deleted: true, [nil]) }
        rows.put("tags", "t1", ["missing"])
        var visibility = Visibility(graph: rows)
        #expect(
            try visibility.placement(of: row("tags", "t1"))
                == .hidden(
                    defaultRowDeleted
                        ? .hiddenParent(table: "lists", key: "inbox") : .missingParent(table: "lists", key: "inbox")))
    }

    @Test func aRestrictChildWrittenAfterTheDeleteBringsItsParentBack() throws {
        let rows = Rows(schema)
        for list in ["revived", "stays", "deadChild", "cascade", "noAction"] {
            rows.put("lists", .text(list), deleted: true, at: 20, [nil])
        }
        rows.put("items", "after", at: 5, columnTime: 30, ["revived"])
        rows.put("items", "before", at: 5, columnTime: 10, ["stays"])
        rows.put("items", "deleted", deleted: true, at: 5, columnTime: 30, ["deadChild"])
        rows.put("reminders", "r", at: 5, columnTime: 30, ["x", "cascade"])
        rows.put("steps", "s", at: 5, columnTime: 30, ["noAction"])
        rows.put("items", "orphan", ["never"])
        var visibility = Visibility(graph: rows)
        #expect(try visibility.placement(of: row("lists", "revived")) == .shown)
        #expect(try visibility.placement(of: row("items", "after")) == .shown)
        #expect(try visibility.placement(of: row("lists", "stays")) == .hidden(nil))
        #expect(
            try visibility.placement(of: row("items", "before")) == .hidden(.hiddenParent(table: "lists", key: "stays"))
        )
        #expect(
            try visibility.placement(of: row("lists", "deadChild")) == .hidden(nil), "a deleted child revives nothing")
        #expect(try visibility.placement(of: row("lists", "cascade")) == .hidden(nil), "CASCADE never revives")
        #expect(try visibility.placement(of: row("lists", "noAction")) == .shown, "NO ACTION syncs as RESTRICT")
        #expect(
            try visibility.placement(of: row("items", "orphan"))
                == .hidden(.missingParent(table: "lists", key: "never")))
        // A row never written by anyone has no delete to undo.
        #expect(try !visibility.isRevived(row("lists", "x"), RowRegisters(liveness: .unknown, columns: [nil])))
    }

    @Test func actionsSayWhetherTheyHideAndRevive() {
        let actions: [ForeignKey.Action] = [.cascade, .restrict, .noAction, .setNull, .setDefault]
        #expect(actions.map(\.rawValue) == ["CASCADE", "RESTRICT", "NO ACTION", "SET NULL", "SET DEFAULT"])
        #expect(actions.map(\.hidesChild) == [true, true, true, false, false])
        #expect(actions.map(\.revivesParent) == [false, true, true, false, false])
        #expect(ForeignKey.Action(rawValue: "set null") == nil, "the raw value is SQLite's spelling, exactly")
    }

    @Test func aRowBreakingAConstraintStaysParkedUntilItIsRetried() throws {
        let rows = Rows(schema)
        let message = "NOT NULL constraint failed: lists.name"
        rows.put("lists", "l1", [.null])
        rows.put("reminders", "r1", ["a", "l1"])
        rows.constraints[row("lists", "l1")] = message
        var visibility = Visibility(graph: rows)
        #expect(try visibility.placement(of: row("lists", "l1")) == .hidden(.constraint(message)))
        #expect(
            try visibility.placement(of: row("reminders", "r1")) == .hidden(.hiddenParent(table: "lists", key: "l1")))
        // Rematerializing after its registers changed: the old parking is not taken as the answer.
        var retry = Visibility(graph: rows)
        retry.retrying = [row("lists", "l1")]
        #expect(try retry.placement(of: row("lists", "l1")) == .shown)
        #expect(try retry.placement(of: row("reminders", "r1")) == .shown)
    }

    @Test func answersAreRememberedUntilTheRowIsForgotten() throws {
        let rows = Rows(schema)
        let list = row("lists", "l1")
        rows.put("lists", "l1", [nil])
        var visibility = Visibility(graph: rows)
        #expect(try visibility.placement(of: list) == .shown)
        rows.put("lists", "l1", deleted: true, at: 20, [nil])
        #expect(try visibility.placement(of: list) == .shown, "remembered")
        visibility.forget(list)
        #expect(try visibility.placement(of: list) == .hidden(nil))
        // Where materializing put a row is the answer from then on, whatever the graph says.
        visibility.settle(list, at: .hidden(.constraint("CHECK constraint failed: x")))
        #expect(try visibility.placement(of: list) == .hidden(.constraint("CHECK constraint failed: x")))
        visibility.settle(row("lists", "unknown"), at: .shown)
        #expect(try visibility.placement(of: row("lists", "unknown")) == .shown)
    }

    @Test func anInterceptorDecidesWhetherAHiddenParentHides() throws {
        let rows = Rows(schema)
        rows.put("lists", "deleted", deleted: true, [nil])
        rows.put("reminders", "r1", ["a", "missing"])
        rows.put("reminders", "r2", ["b", "deleted"])
        let recorder = Recorder(hides: false)
        var visibility = Visibility(graph: rows)
        visibility.interceptor = recorder
        visibility.arrived = [row("reminders", "r1")]
        #expect(try visibility.placement(of: row("reminders", "r1")) == .shown)
        #expect(try visibility.placement(of: row("reminders", "r2")) == .shown)
        #expect(
            recorder.asked.withLock { $0 } == [
                "reminders/r1 known:false arrived:true", "reminders/r2 known:true arrived:false",
            ])
        // One that agrees with the engine changes nothing.
        var agreeing = Visibility(graph: rows)
        agreeing.interceptor = Recorder(hides: true)
        #expect(
            try agreeing.placement(of: row("reminders", "r1"))
                == .hidden(.missingParent(table: "lists", key: "missing")))
    }

    @Test func rowsPrintAsTableSlashKey() {
        #expect(row("reminders", "r1").description == "reminders/r1")
        #expect(row("reminders", 42).description == "reminders/42")
        #expect(row("reminders", .blob([0x01, 0xAB])).description == "reminders/X'01AB'")
        #expect(
            row("reminders", .text(SQLiteText(bytes: [0x72, 0xFF]))).description == "reminders/CAST(X'72FF' AS TEXT)")
        #expect(row("reminders", "it's").description == "reminders/it's", "text as is, not as a literal")
    }
}
