import ConcordTestSupport
import ConcordTesting
import Foundation
import Testing

@testable import Concord

/// Disabling sync on a table and enabling it again, at any point of a history, loses and revives nothing.
///
/// A device disables and enables its table now and then, writing while sync is off as a migration would
/// (inserts, updates, deletes, inserting again keys deleted long ago), between random folds and syncs.
/// With that device the only writer, every device must end up showing exactly its table; with both
/// devices bumping counters, every counter must end up with every bump counted once.
@Suite(.tags(.replica, .property))
struct DisableEnableAgainPropertyTests {
    /// The synced table's name and its untyped column's: `notes` and `body`, or drawn (any name SQLite takes).
    private struct Names {
        var table = "notes"
        var body = "body"
        var schema: String {
            "CREATE TABLE \(quoteIdentifier(table)) (id TEXT PRIMARY KEY NOT NULL, \(quoteIdentifier(body)), "
                + "n INTEGER NOT NULL DEFAULT 0)"
        }
    }

    private static func notes(_ replica: Replica, _ names: Names = Names()) throws -> [[SQLiteValue]] {
        try replica.database.query(
            "SELECT id, \(quoteIdentifier(names.body)), n FROM \(quoteIdentifier(names.table)) ORDER BY id")
    }

    private static func pair(_ clock: ManualClock, _ names: Names = Names()) throws -> [Replica] {
        try (1...2 as ClosedRange<UInt8>).map { id in
            let replica = try Replica.inMemory(configuration: configuration(node: id, clock: clock))
            try replica.database.execute(names.schema)
            try replica.enableSync(on: names.table, merges: ["n": .counter])
            return replica
        }
    }

    /// Requires every replica to show `expected` (what `what` says it is) and to pass its check.
    private static func requireEveryDevice(
        _ replicas: [Replica], shows expected: [[SQLiteValue]], _ what: String, _ names: Names = Names()
    ) throws {
        for (index, replica) in replicas.enumerated() {
            let shown = try notes(replica, names)
            try Property.require(shown == expected, "device \(index) shows \(shown), \(what) \(expected)")
            let report = try replica.check()
            try Property.require(report.isConsistent, "device \(index): \(report)")
        }
    }

    /// Turns sync on the table off on `replica` when it is on, and on again when it is off.
    private static func toggle(_ replica: Replica, source: inout ChoiceSource, _ names: Names = Names()) throws {
        if replica.tables.isEmpty {
            source.note("enable")
            try replica.enableSync(on: names.table, merges: ["n": .counter])
        } else {
            source.note("disable")
            try replica.disableSync(on: names.table)
        }
    }

    /// Names, keys and values are drawn from the whole space half the time: names SQLite takes that extend
    /// or mimic Concord's own, keys of any bytes, values of every type (NUL and invalid UTF-8 in text, -0.0,
    /// integer extremes), which enabling again must tell apart from what was kept.
    @Test func propertyEveryDeviceShowsTheSingleWritersTable() throws {
        try Property.check(seed: 0xD15AB1E, iterations: 150) { source in
            let clock = ManualClock(unixMilliseconds: epoch2026)
            let hostile = source.bool()
            var names = Names()
            if hostile {
                (names.table, names.body) = (source.draw(Gen.sqliteIdentifier), source.draw(Gen.sqliteIdentifier))
                source.note("table \(names.table), column \(names.body)")
            }
            // A drawn name SQLite or Concord refuses (the key's, the counter's, one of Concord's) is no history.
            guard let replicas = try? Self.pair(clock, names) else { return }
            let writer = replicas[0]
            let keys = hostile ? source.draw(Gen.sqliteKeys(count: 1...4)) : (1...4).map { .text("k\($0)") }
            let (table, body) = (quoteIdentifier(names.table), quoteIdentifier(names.body))
            for _ in 0..<source.int(in: 1...20) {
                clock.advance(by: 1)
                let key = keys[source.int(in: 0...keys.count - 1)].sqlLiteral
                let value =
                    hostile
                    ? source.draw(Gen.anySQLiteValue(largeLengths: nil)).sqlLiteral : "'b\(source.int(in: 0...9))'"
                let statement: String
                switch source.index(weights: [3, 2, 2, 2, 1, 2, 2]) {
                case 0: statement = "INSERT OR IGNORE INTO \(table) (id, \(body)) VALUES (\(key), \(value))"
                case 1: statement = "UPDATE \(table) SET \(body) = \(value) WHERE id = \(key)"
                case 2: statement = "UPDATE \(table) SET n = n + \(source.int(in: 1...5)) WHERE id = \(key)"
                case 3: statement = "DELETE FROM \(table) WHERE id = \(key)"
                case 4:
                    source.note("fold")
                    if !writer.tables.isEmpty { try writer.foldLocalWrites() }
                    continue
                case 5:
                    try Self.toggle(writer, source: &source, names)
                    continue
                default:
                    source.note("sync")
                    try Replica.sync(replicas)
                    continue
                }
                source.note(statement)
                try writer.database.execute(statement)
            }
            if writer.tables.isEmpty { try Self.toggle(writer, source: &source, names) }
            clock.advance(by: 1)
            let expected = try Self.notes(writer, names)
            try Replica.sync(replicas)
            try Self.requireEveryDevice(replicas, shows: expected, "the app left", names)
        }
    }

    /// Both devices edit the same rows; one disables and enables its table now and then, editing while sync
    /// is off. Every value ends as the newest write made it, where an edit made while sync was off is made
    /// when sync is enabled again (nothing captured it before), and a value the device left as it was when
    /// sync stopped is no write at all.
    @Test func propertyTheNewestEditWinsAcrossDisablingAndEnabling() throws {
        try Property.check(seed: 0xED17, iterations: 150) { source in
            let clock = ManualClock(unixMilliseconds: epoch2026)
            let replicas = try Self.pair(clock)
            let keys = ["k1", "k2", "k3"]
            try replicas[0].database.execute(
                "INSERT INTO notes (id, body) VALUES ('k1', 'a'), ('k2', 'a'), ('k3', 'a')")
            try Replica.sync(replicas)
            // The newest write of each row's body, as (time, value).
            var newest = Dictionary(
                uniqueKeysWithValues: keys.map { ($0, (time: clock.unixMilliseconds(), value: "a")) })
            var atDisable: [String: String] = [:]
            func body(_ key: String, on device: Int = 0) throws -> String {
                try replicas[device].database.scalar("SELECT body FROM notes WHERE id = ?", [.text(key)])?.textValue
                    ?? ""
            }
            for _ in 0..<source.int(in: 1...24) {
                clock.advance(by: 1)
                switch source.index(weights: [5, 2, 2]) {
                case 0:
                    let (device, key, value) = (
                        source.int(in: 0...1), keys[source.int(in: 0...2)], "v\(source.int(in: 0...5))"
                    )
                    source.note("device \(device): \(key) = \(value)")
                    // Writing the value the row holds changes nothing, and is no write.
                    let changes = try body(key, on: device) != value
                    try replicas[device].database.execute(
                        "UPDATE notes SET body = ? WHERE id = ?", [.text(value), .text(key)])
                    if changes && (device == 1 || !replicas[0].tables.isEmpty) {
                        newest[key] = (clock.unixMilliseconds(), value)
                    }
                case 1:
                    if replicas[0].tables.isEmpty {
                        for key in keys where try body(key) != atDisable[key] {
                            newest[key] = (clock.unixMilliseconds(), try body(key))
                        }
                    } else {
                        for key in keys { atDisable[key] = try body(key) }
                    }
                    try Self.toggle(replicas[0], source: &source)
                default:
                    source.note("sync")
                    try Replica.sync(replicas)
                }
            }
            clock.advance(by: 1)
            if replicas[0].tables.isEmpty {
                for key in keys where try body(key) != atDisable[key] {
                    newest[key] = (clock.unixMilliseconds(), try body(key))
                }
                try Self.toggle(replicas[0], source: &source)
            }
            clock.advance(by: 1)
            try Replica.sync(replicas)
            let expected: [[SQLiteValue]] = keys.map { [.text($0), .text(newest[$0]!.value), 0] }
            try Self.requireEveryDevice(replicas, shows: expected, "the newest writes")
        }
    }

    @Test func propertyEveryCounterBumpCountsOnce() throws {
        try Property.check(seed: 0xC0C0, iterations: 150) { source in
            let clock = ManualClock(unixMilliseconds: epoch2026)
            let replicas = try Self.pair(clock)
            try replicas[0].database.execute("INSERT INTO notes (id) VALUES ('k1'), ('k2')")
            try Replica.sync(replicas)
            var bumps: [String: Int64] = ["k1": 0, "k2": 0]
            for _ in 0..<source.int(in: 1...20) {
                clock.advance(by: 1)
                switch source.index(weights: [4, 1, 2]) {
                case 0:
                    let (device, key, amount) = (
                        source.int(in: 0...1), "k\(source.int(in: 1...2))", source.int64(in: -3...5)
                    )
                    source.note("device \(device): \(key) + \(amount)")
                    try replicas[device].database.execute("UPDATE notes SET n = n + \(amount) WHERE id = '\(key)'")
                    bumps[key, default: 0] += amount
                case 1:
                    try Self.toggle(replicas[0], source: &source)
                default:
                    source.note("sync")
                    try Replica.sync(replicas)
                }
            }
            if replicas[0].tables.isEmpty { try Self.toggle(replicas[0], source: &source) }
            clock.advance(by: 1)
            try Replica.sync(replicas)
            let expected: [[SQLiteValue]] = [
                ["k1", .null, .integer(bumps["k1"]!)], ["k2", .null, .integer(bumps["k2"]!)],
            ]
            try Self.requireEveryDevice(replicas, shows: expected, "the bumps add up to")
        }
    }
}
