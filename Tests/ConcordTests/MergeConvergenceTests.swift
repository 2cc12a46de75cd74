import ConcordTestSupport
import ConcordTesting
import Foundation
import Testing

@testable import Concord

/// Random histories of concurrent writes on three replicas, delivered in random
/// orders with duplicates, must converge to what ConcordTesting's `ReferenceModel` derives from
/// the ledger of the apps' writes alone (what each device had seen of a row when it wrote, never
/// the causal lengths or registers the engine stored).
@Suite("Convergence of every policy and merge to the reference model", .tags(.replica, .slow), .timeLimit(.hangGuard))
struct MergeConvergenceTests {
    static let schema = """
        CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, l, hi, lo, n INTEGER NOT NULL DEFAULT 0, tags TEXT);
        CREATE TABLE prefs (id TEXT PRIMARY KEY NOT NULL, a TEXT, b INTEGER);
        """
    static let itemMerges: [ColumnMerge] = [.lww, .max, .min, .counter, .union]
    static let keys = ["k1", "k2"]
    static let scalars: [SQLiteValue] = [.null, .integer(0), .real(0), .integer(2), .real(2.5), .text("x"), .text("y")]
    /// The untyped columns (`l`, `hi`, `lo`) store any value as it is, so they take the whole value space.
    static let anyValue = Gen.anySQLiteValue(largeLengths: nil)
    static let tagSets: [SQLiteValue] = [.text("[]"), .text(#"["a"]"#), .text(#"["b",1]"#), .text(#"[2,"a"]"#)]

    /// One history: the devices, what they did, and what the model expects.
    final class World {
        let clocks = (0..<3).map { _ in ManualClock(unixMilliseconds: epoch2026) }
        var replicas: [Replica] = []
        var ledger = Ledger()
        /// Per device, the ledger ids of the writes it has made or received.
        var known: [Set<Int>] = [[], [], []]
        /// Every changeset sent, with what its source knew when it exported it.
        var sent: [(source: Int, changeset: Changeset, known: Set<Int>)] = []

        /// Applying a changeset teaches the receiver everything its source knew of each row in it.
        func deliver(_ changeset: Changeset, knownAtSource: Set<Int>, to device: Int) throws -> ApplyReport {
            let report = try replicas[device].apply(changeset)
            let rows = Set(changeset.rows.map { RowRef(table: $0.table, key: $0.key) })
            known[device].formUnion(knownAtSource.filter { rows.contains(ledger.operations[$0].row) })
            return report
        }

        var model: ReferenceModel {
            ReferenceModel(
                tables: [
                    TableSchema(
                        name: "items", key: "id", columns: ["l", "hi", "lo", "n", "tags"], policy: .column,
                        merges: MergeConvergenceTests.itemMerges),
                    TableSchema(name: "prefs", key: "id", columns: ["a", "b"], policy: .row),
                ], foreignKeys: [], ledger: ledger)
        }

        init() throws {
            for (index, clock) in clocks.enumerated() {
                let replica = try Replica.inMemory(configuration: configuration(node: UInt8(index + 1), clock: clock))
                try replica.database.execute(MergeConvergenceTests.schema)
                try replica.enableSync(on: "items", merges: ["hi": .max, "lo": .min, "n": .counter, "tags": .union])
                try replica.enableSync(on: "prefs", policy: .row)
                replicas.append(replica)
            }
        }
    }

    /// 16 batches of 8 seeded histories; a failure prints its seed and shrinks to a short history.
    @Test(arguments: 0..<16 as Range<UInt64>)
    func randomHistoriesConvergeToTheModel(batch: UInt64) throws {
        try Property.check(seed: 0xC0_4C0D + batch, iterations: 8) { source in
            let world = try World()
            let steps = source.int(in: 10...40)
            for _ in 0..<steps { try Self.step(world, &source) }
            try Replica.sync(world.replicas)
            try Self.compare(world)
        }
    }

    static func step(_ world: World, _ source: inout ChoiceSource) throws {
        let device = source.int(in: 0...2)
        let replica = world.replicas[device]
        world.clocks[device].advance(by: Int64(source.int(in: 0...3)))
        switch source.int(in: 0...9) {
        case 0...5: try write(world, device, &source)
        case 6...7:
            // A fresh changeset from one device to another, from a random starting version.
            let from = source.int(in: 0...2)
            let changes = try world.replicas[from].changes(
                since: source.bool() ? 0 : replica.peerVersion(world.replicas[from].nodeID))
            world.sent.append((from, changes, world.known[from]))
            let report = try world.deliver(changes, knownAtSource: world.known[from], to: device)
            source.note("device \(from) -> \(device): changes since \(changes.since), \(report)")
        default:
            // A changeset sent earlier, delivered again or late.
            guard !world.sent.isEmpty else { return }
            let index = source.int(in: 0...world.sent.count - 1)
            let report = try world.deliver(
                world.sent[index].changeset, knownAtSource: world.sent[index].known, to: device)
            source.note("device \(world.sent[index].source) -> \(device): changeset #\(index) again, \(report)")
        }
    }

    /// One local write through plain SQL, recorded in the model with the stamp it got.
    static func write(_ world: World, _ device: Int, _ source: inout ChoiceSource) throws {
        let replica = world.replicas[device]
        let table = source.bool() ? "items" : "prefs"
        let key = keys[source.int(in: 0...1)]
        let columns = table == "items" ? ["l", "hi", "lo", "n", "tags"] : ["a", "b"]
        let current = try replica.database.query(
            "SELECT \(columns.joined(separator: ", ")) FROM \(table) WHERE id = ?",
            [.text(key)]
        ).first
        func draw(_ column: Int) -> SQLiteValue {
            if table == "prefs" {
                return column == 0 ? scalars[source.int(in: 5...6)] : .integer(Int64(source.int(in: 0...3)))
            }
            switch itemMerges[column] {
            case .counter: return .integer(Int64(source.int(in: -3...3)))
            case .union: return tagSets[source.int(in: 0...tagSets.count - 1)]
            default:
                // Mostly a few values, so writes collide; sometimes any value SQLite can store (NUL and
                // non-UTF-8 text, -0.0, int64 extremes, empty blobs), so merges see the whole value space.
                return source.int(in: 0...3) == 0
                    ? Self.anyValue.generate(using: &source) : scalars[source.int(in: 0...scalars.count - 1)]
            }
        }
        var written: [Int: SQLiteValue] = [:]
        let kind: Ledger.Kind
        if current == nil {
            kind = .insert
            for column in columns.indices { written[column] = draw(column) }
            let values = columns.indices.map { written[$0]! }
            try replica.database.execute(
                "INSERT INTO \(table) (id, \(columns.joined(separator: ", "))) VALUES (?\(String(repeating: ", ?", count: columns.count)))",
                [.text(key)] + values)
        } else if source.int(in: 0...3) == 0 {
            kind = .delete
            try replica.database.execute("DELETE FROM \(table) WHERE id = ?", [.text(key)])
        } else {
            kind = .update
            var assignments: [String] = []
            var values: [SQLiteValue] = []
            for column in columns.indices where source.bool() {
                let value = draw(column)
                if table == "items" && itemMerges[column] == .counter {
                    assignments.append("n = n + ?")
                    if value != .integer(0) { written[column] = value }
                } else {
                    assignments.append("\(columns[column]) = ?")
                    if value != current![column] { written[column] = value }
                }
                values.append(value)
            }
            guard !assignments.isEmpty else { return }
            try replica.database.execute(
                "UPDATE \(table) SET \(assignments.joined(separator: ", ")) WHERE id = ?",
                values + [.text(key)])
            guard !written.isEmpty else { return }
            if table == "prefs" {
                // A row-policy write supplies the whole row.
                let row = try replica.database.query("SELECT a, b FROM prefs WHERE id = ?", [.text(key)])[0]
                written = [0: row[0], 1: row[1]]
            }
        }
        _ = try replica.registers(of: table, key: .text(key))
        // Reading the registers folded the write; it was the last reading of the replica's clock.
        let stamp = Stamp(hlc: try replica.clock.last, node: replica.nodeID)
        source.note(
            "device \(device): \(kind) \(table) \(key) \(written.sorted { $0.key < $1.key }.map { "\(columns[$0.key])=\($0.value)" })"
        )
        let row = RowRef(table: table, key: .text(key))
        let seen = world.known[device].filter { world.ledger.operations[$0].row == row }
        let id = world.ledger.record(
            node: replica.nodeID, stamp: stamp, row: row, kind: kind, values: written, seen: seen)
        world.known[device].insert(id)
    }

    static func compare(_ world: World) throws {
        let dumps = try world.replicas.map { try $0.canonicalDump() }
        try Property.require(Set(dumps).count == 1, "replicas diverged:\n\(dumps.joined(separator: "\n---\n"))")
        for replica in world.replicas {
            let report = try replica.check()
            try Property.require(report.isConsistent, "check failed: \(report)")
        }
        let replica = world.replicas[0]
        let model = world.model
        for table in ["items", "prefs"] {
            for key in keys {
                let row = RowRef(table: table, key: .text(key))
                let expected = model.registers[row]
                let actual = try replica.registers(of: table, key: .text(key))
                try Property.require(
                    actual == expected,
                    "\(row): replicas hold \(actual.map { "\($0)" } ?? "nothing"), "
                        + "the model expects \(expected.map { "\($0)" } ?? "nothing")")
                let shown = try replica.database.query("SELECT * FROM \(table) WHERE id = ?", [.text(key)]).first
                let placement = model.placement(of: row)
                try Property.require(
                    (shown != nil) == (placement == .shown(overrides: [:])),
                    "\(row): shown is \(shown != nil), the model places it \(placement)")
                if let shown, let expected {
                    try Property.require(
                        Array(shown.dropFirst()) == expected.columns.map { $0?.value ?? .null },
                        "\(row): shows \(shown), the model expects \(expected)")
                }
            }
        }
    }
}
