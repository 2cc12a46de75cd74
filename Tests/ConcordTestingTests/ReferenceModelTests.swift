import Concord
import ConcordTestSupport
import ConcordTesting
import Testing

/// The reference model alone, from hand-built ledgers: causal lengths from what each writer had seen,
/// a RESTRICT child bringing back a deleted parent, SET NULL stand-ins, counters restarting with a new
/// life, and rows parked for a NULL their NOT NULL columns refuse.
@Suite("Reference model", .tags(.concordTesting), .timeLimit(.hangGuard))
struct ReferenceModelTests {
    static let ann = NodeID(bytes: Array(repeating: 1, count: 16))!
    static let bob = NodeID(bytes: Array(repeating: 2, count: 16))!
    static let people = TableSchema(name: "people", key: "id", columns: ["name"], policy: .column)
    static let projects = TableSchema(
        name: "projects", key: "id", columns: ["name", "score"], policy: .column, merges: [.lww, .counter])
    static let tasks = TableSchema(
        name: "tasks", key: "id", columns: ["project_id", "owner", "title"], policy: .column)
    static let keys = [
        ForeignKey(child: "tasks", column: 0, parent: "projects", action: .restrict),
        ForeignKey(child: "tasks", column: 1, parent: "people", action: .setNull),
    ]

    /// Writes recorded at increasing stamps, each device seeing what the test says it saw.
    struct History {
        var ledger = Ledger()
        var hlc: UInt64 = 1_000

        @discardableResult
        mutating func write(
            _ node: NodeID, _ kind: Ledger.Kind, _ table: String, _ key: SQLiteValue,
            _ values: [Int: SQLiteValue] = [:], seen: Set<Int>
        ) -> Int {
            hlc += 1
            return ledger.record(
                node: node, stamp: Stamp(hlc: HLCTimestamp(rawValue: hlc), node: node),
                row: RowRef(table: table, key: key), kind: kind, values: values, seen: seen)
        }

        func model(notNull: [String: Set<Int>] = [:]) -> ReferenceModel {
            ReferenceModel(
                tables: [people, projects, tasks], foreignKeys: keys, ledger: ledger, notNull: notNull)
        }
    }

    @Test func causalLengthsComeFromWhatEachWriterHadSeen() {
        var history = History()
        let insert = history.write(Self.ann, .insert, "people", "p", [0: "Ann"], seen: [])
        let delete = history.write(Self.ann, .delete, "people", "p", seen: [insert])
        // Bob saw the insert only: his update does not bring the row back.
        let update = history.write(Self.bob, .update, "people", "p", [0: "Anne"], seen: [insert])
        let model = history.model()
        #expect([insert, delete, update].map(model.causalLength(after:)) == [1, 2, 1])
        #expect(model.registers[RowRef(table: "people", key: "p")]?.liveness.causalLength == 2)
        #expect(model.placement(of: RowRef(table: "people", key: "p")) == .deleted)
        // An insert by a device that saw the delete starts the next life.
        let again = history.write(Self.bob, .insert, "people", "p", [0: "Ann"], seen: [insert, delete, update])
        #expect(history.model().causalLength(after: again) == 3)
        #expect(history.model().placement(of: RowRef(table: "people", key: "p")) == .shown(overrides: [:]))
    }

    /// The scenario the simulator's old model was tested on, now on the model alone.
    @Test func aRestrictChildWrittenAfterTheDeleteBringsTheProjectBack() {
        var history = History()
        let person = history.write(Self.ann, .insert, "people", "ann", [0: "Ann"], seen: [])
        let project = history.write(Self.ann, .insert, "projects", "p", [0: "Garden", 1: 0], seen: [])
        history.write(Self.bob, .update, "projects", "p", [1: 2], seen: [project])
        let counted = history.write(Self.bob, .update, "projects", "p", [0: "Lawn", 1: 5], seen: [project])
        history.write(Self.bob, .insert, "tasks", "t1", [0: "p", 1: "ann", 2: "mow"], seen: [])
        history.write(Self.ann, .delete, "people", "ann", seen: [person])
        history.write(Self.ann, .delete, "projects", "p", seen: [project])
        // Written after the delete by a device that never saw it: it brings the project back.
        let late = history.write(Self.bob, .insert, "tasks", "t2", [0: "p", 1: .null, 2: "rake"], seen: [])
        let model = history.model()
        let p = RowRef(table: "projects", key: "p")
        #expect(model.placement(of: p) == .shown(overrides: [:]))
        #expect(model.registers[p]?.columns.map { $0?.value } == ["Lawn", 0], "the count belongs to the deleted life")
        #expect(model.registers[p]?.liveness.causalLength == 2)
        #expect(model.causalLength(after: counted) == 1)
        // t1's owner shows NULL while its register keeps "ann".
        let t1 = RowRef(table: "tasks", key: "t1")
        #expect(model.placement(of: t1) == .shown(overrides: [1: .null]))
        #expect(model.registers[t1]?.columns[1]?.value == "ann")
        // Without the late task nothing brings the project back, and t1 hides with it.
        var partial = Ledger()
        for operation in history.ledger.operations where operation.id != late {
            partial.record(
                node: operation.node, stamp: operation.stamp, row: operation.row, kind: operation.kind,
                values: operation.values, seen: operation.seen)
        }
        let without = ReferenceModel(
            tables: [Self.people, Self.projects, Self.tasks], foreignKeys: Self.keys, ledger: partial)
        #expect(without.placement(of: p) == .deleted)
        #expect(without.placement(of: t1) == .parked)
    }

    @Test func aNullANotNullColumnRefusesParksTheRowAndItsChildren() {
        var history = History()
        let person = history.write(Self.ann, .insert, "people", "ann", [0: "Ann"], seen: [])
        history.write(Self.ann, .insert, "projects", "p", [0: "Garden", 1: 0], seen: [])
        history.write(Self.ann, .insert, "tasks", "t1", [0: "p", 1: "ann", 2: "mow"], seen: [])
        let delete = history.write(Self.ann, .delete, "people", "ann", seen: [person])
        let t1 = RowRef(table: "tasks", key: "t1")
        // Nullable, the owner shows NULL in the deleted person's place.
        #expect(history.model().placement(of: t1) == .shown(overrides: [1: .null]))
        // NOT NULL, the task cannot show that NULL: it is parked until the person comes back.
        let strict = history.model(notNull: ["tasks": [1]])
        #expect(strict.placement(of: t1) == .parked)
        #expect(strict.placement(of: RowRef(table: "projects", key: "p")) == .shown(overrides: [:]))
        history.write(Self.bob, .insert, "people", "ann", [0: "Ann"], seen: [person, delete])
        #expect(history.model(notNull: ["tasks": [1]]).placement(of: t1) == .shown(overrides: [:]))
    }

    /// Two edits that are each fine may merge into values a CHECK refuses: the row is parked until an edit mends it.
    @Test func valuesTheTableRefusesParkTheRowUntilAnEditMendsThem() {
        var history = History()
        let insert = history.write(Self.ann, .insert, "projects", "p", [0: "Garden", 1: 0], seen: [])
        // Ann names it, Bob concurrently scores it; the merge holds both.
        history.write(Self.ann, .update, "projects", "p", [0: "Garden!"], seen: [insert])
        let score = history.write(Self.bob, .update, "projects", "p", [1: 5], seen: [insert])
        let p = RowRef(table: "projects", key: "p")
        // "a name ending in '!' scores nothing": each edit alone was fine.
        let check: @Sendable (String, SQLiteValue, [SQLiteValue]) -> Bool = { table, _, values in
            table != "projects" || !(values[0].textValue ?? "").hasSuffix("!") || values[1] == .integer(0)
        }
        let model = {
            ReferenceModel(
                tables: [Self.people, Self.projects, Self.tasks], foreignKeys: Self.keys, ledger: $0, accepts: check)
        }
        #expect(history.model().placement(of: p) == .shown(overrides: [:]))
        #expect(model(history.ledger).placement(of: p) == .parked)
        #expect(model(history.ledger).shownColumns(of: p) == nil)
        history.write(Self.bob, .update, "projects", "p", [0: "Garden"], seen: [insert, score])
        #expect(model(history.ledger).shownColumns(of: p) == ["Garden", 5])
    }

    @Test func aParkedRowHidesItsChildrenThroughHidingKeys() {
        let lists = TableSchema(name: "lists", key: "id", columns: ["title"], policy: .column)
        let items = TableSchema(name: "items", key: "id", columns: ["list_id"], policy: .column)
        var ledger = Ledger()
        let stamp = { (hlc: UInt64) in Stamp(hlc: HLCTimestamp(rawValue: hlc), node: Self.ann) }
        ledger.record(
            node: Self.ann, stamp: stamp(1), row: RowRef(table: "lists", key: "l"), kind: .insert,
            values: [0: .null], seen: [])
        ledger.record(
            node: Self.ann, stamp: stamp(2), row: RowRef(table: "items", key: "i"), kind: .insert,
            values: [0: "l"], seen: [])
        let model = ReferenceModel(
            tables: [lists, items],
            foreignKeys: [ForeignKey(child: "items", column: 0, parent: "lists", action: .cascade)],
            ledger: ledger, notNull: ["lists": [0]])
        #expect(model.placement(of: RowRef(table: "lists", key: "l")) == .parked)
        #expect(model.placement(of: RowRef(table: "items", key: "i")) == .parked)
    }

    /// A column a migration added after the row was written has no register: the row shows the
    /// column's DEFAULT there (a NOT NULL column with a default parks nothing), and the register
    /// joins once someone writes it.
    @Test func aColumnNoWriteHasSetShowsItsDefault() {
        let older = TableSchema(name: "reminders", key: "id", columns: ["title"], policy: .column)
        let newer = TableSchema(
            name: "reminders", key: "id", columns: ["title", "priority"], policy: .column, merges: [.lww, .lww])
        var history = History()
        let insert = history.write(Self.ann, .insert, "reminders", "r1", [0: "milk"], seen: [])
        let r1 = RowRef(table: "reminders", key: "r1")
        func model(_ table: TableSchema, defaults: [String: [Int: SQLiteValue]]) -> ReferenceModel {
            ReferenceModel(
                tables: [table], foreignKeys: [], ledger: history.ledger,
                notNull: ["reminders": Set(table.columns.indices)], defaults: defaults)
        }
        let upgraded = model(newer, defaults: ["reminders": [1: 0]])
        #expect(upgraded.registers[r1]?.columns.map { $0?.value } == ["milk", nil])
        #expect(upgraded.shownColumns(of: r1) == ["milk", 0])
        // Without its default the NULL would break NOT NULL, and the row would be parked.
        #expect(model(newer, defaults: [:]).placement(of: r1) == .parked)
        // The older schema's model is the projection: the same row, without the column.
        #expect(model(older, defaults: [:]).shownColumns(of: r1) == ["milk"])
        history.write(Self.bob, .update, "reminders", "r1", [1: 3], seen: [insert])
        #expect(model(newer, defaults: ["reminders": [1: 0]]).shownColumns(of: r1) == ["milk", 3])
    }
}
