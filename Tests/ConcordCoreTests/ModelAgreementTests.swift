import ConcordCore
import ConcordTestTraits
import ConcordTesting
import Testing

/// The core's merge, fold arithmetic and visibility against the independent reference model, with no
/// SQLite: three devices write and sync at random, and once they have exchanged everything each must
/// hold exactly the registers the model derives from the ledger of writes, and show what it says.
@Suite("Core and reference model agree", .tags(.core, .property), .timeLimit(.hangGuard))
struct ModelAgreementTests {
    static let lists = TableSchema(
        name: "lists", key: "id", columns: ["name", "rank"], policy: .column, merges: [.lww, .max])
    static let items = TableSchema(
        name: "items", key: "id", columns: ["list", "title", "low", "tags", "count"],
        policy: .column, merges: [.lww, .lww, .min, .union, .counter])
    static let notes = TableSchema(name: "notes", key: "id", columns: ["item", "body"], policy: .row)
    static let keys: [SQLiteValue] = ["a", "b", "c"]
    static let scalars: [SQLiteValue] = [
        .null, .integer(0), .real(0), .integer(2), .real(-0.0), .text("x"), .text("y"), .blob([1]),
    ]
    static let tagSets: [SQLiteValue] = [.text("[]"), .text(#"["a"]"#), .text(#"["b",1]"#), .text(#"[2,"a"]"#)]

    /// A history: the foreign keys' actions, then steps of writes and syncs.
    static func history(_ source: inout ChoiceSource) throws -> (
        devices: [PureDevice], ledger: Ledger, keys: [ForeignKey]
    ) {
        let actions: [ForeignKey.Action] = [.cascade, .restrict, .noAction, .setNull]
        let foreignKeys = [
            ForeignKey(child: "items", column: 0, parent: "lists", action: actions[source.int(in: 0...3)]),
            ForeignKey(child: "notes", column: 0, parent: "items", action: actions[source.int(in: 0...3)]),
        ]
        let devices = (1...3).map {
            PureDevice(
                node: NodeID(bytes: Array(repeating: UInt8($0), count: 16))!,
                tables: [lists, items, notes], foreignKeys: foreignKeys, time: 1_000)
        }
        var ledger = Ledger()
        for _ in 0..<source.int(in: 1...30) {
            let device = devices[source.int(in: 0...2)]
            device.time += Int64(source.int(in: 0...2))
            if source.int(in: 0...4) == 0 {
                try device.receive(from: devices[source.int(in: 0...2)])
            } else {
                try write(on: device, &ledger, &source)
            }
        }
        for _ in 0..<2 { for a in devices { for b in devices where a !== b { try b.receive(from: a) } } }
        return (devices, ledger, foreignKeys)
    }

    static func write(on device: PureDevice, _ ledger: inout Ledger, _ source: inout ChoiceSource) throws {
        let table = [lists, items, notes][source.int(in: 0...2)]
        let row = RowRef(table: table.name, key: keys[source.int(in: 0...2)])
        // An app can update only a row its table has: never one unknown here, sometimes a deleted one
        // (brought back by a child), and it inserts a key its registers hold alive when the row is parked.
        let known = device.rows[row]
        let alive = known?.liveness.isAlive ?? false
        let kind: Ledger.Kind =
            known == nil
            ? .insert
            : !alive
                ? (source.bool(probability: 0.8) ? .insert : .update)
                : [.update, .update, .delete, .insert][source.int(in: 0...3)]
        guard kind != .delete else { return try device.write(.delete, row, values: [:], ledger: &ledger) }
        var values: [Int: SQLiteValue] = [:]
        for index in table.columns.indices where kind == .insert || table.policy == .row || source.bool() {
            values[index] = value(table, index, held: device.rows[row]?.columns[index]?.value, &source)
        }
        guard !values.isEmpty else { return }
        try device.write(kind, row, values: values, ledger: &ledger)
    }

    /// A value for a column: a key of the parent table (or NULL) for a reference, small changes for a counter.
    static func value(_ table: TableSchema, _ index: Int, held: SQLiteValue?, _ source: inout ChoiceSource)
        -> SQLiteValue
    {
        if table.name != "lists" && index == 0 {
            return source.bool(probability: 0.2) ? .null : keys[source.int(in: 0...2)]
        }
        switch table.policy == .row ? .lww : table.merges[index] {
        case .counter: return .integer(Int64(source.int(in: -2...3)))
        case .union: return tagSets[source.int(in: 0...tagSets.count - 1)]
        default:
            return table.policy == .row && source.bool()
                ? held ?? .null : scalars[source.int(in: 0...scalars.count - 1)]
        }
    }

    /// 10,000 histories in all (20 batches of 500, run in parallel); a failure prints its seed and shrinks.
    @Test(arguments: 0..<20 as Range<UInt64>)
    func propertyTenThousandHistoriesAgree(batch: UInt64) throws {
        try Property.check(seed: 0xA6_0000 + batch, iterations: 500) { source in
            let (devices, ledger, foreignKeys) = try Self.history(&source)
            let model = ReferenceModel(
                tables: [Self.lists, Self.items, Self.notes], foreignKeys: foreignKeys, ledger: ledger)
            for device in devices {
                try Property.require(device.rows == model.registers, Self.difference(device.rows, model.registers))
                var visibility = Visibility(graph: device)
                for row in model.registers.keys.sorted(by: { ($0.table, $0.key) < ($1.table, $1.key) }) {
                    let shown = ModelPlacement(
                        try visibility.placement(of: row), alive: device.rows[row]!.liveness.isAlive)
                    try Property.require(
                        shown == model.placement(of: row),
                        "\(row): the core places it \(shown), the model \(model.placement(of: row))")
                }
            }
        }
    }

    static func difference(_ core: [RowRef: RowRegisters], _ model: [RowRef: RowRegisters]) -> String {
        let rows = Set(core.keys).union(model.keys).sorted { ($0.table, $0.key) < ($1.table, $1.key) }
        return rows.filter { core[$0] != model[$0] }.prefix(3).map {
            "\($0):\n  core  \(core[$0].map { "\($0)" } ?? "none")\n  model \(model[$0].map { "\($0)" } ?? "none")"
        }.joined(separator: "\n")
    }
}
