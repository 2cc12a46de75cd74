import ConcordTestSupport
import ConcordTesting
import Foundation
import Testing

@testable import Concord

/// Whatever names and values a newer peer uses, a device that lacks its table or columns passes them on
/// byte for byte, and shows them the same once it migrates.
@Suite("Relaying generated names and values", .tags(.replica, .property), .timeLimit(.hangGuard))
struct RelayPropertyTests {
    @Test func propertyAnOlderDeviceRelaysWhatItLacksByteForByte() throws {
        try Property.check(seed: 0x4E_1A70, iterations: 40) { source in
            // (The empty name is refused where sync is enabled: changesets name every table and column.)
            let names = Gen.sqliteIdentifiers(count: 3...6).generate(using: &source).map { $0.isEmpty ? "e" : $0 }
            let (table, key, columns) = (names[0], names[1], Array(names[2...]))
            let policy: TablePolicy = source.bool() ? .row : .column
            // The older device has the first `known` columns, or not the table at all (-1).
            let known = source.int(in: -1...columns.count - 1)
            // The DEFAULTs: one that changes (`CURRENT_TIMESTAMP`) gives each device its own value.
            let defaults = columns.map { _ in Gen.columnDefault.generate(using: &source) }
            source.note(
                "table \(visible(table)) key \(visible(key)) columns \(columns.map(visible)) "
                    + "defaults \(defaults.map { $0 ?? "none" }) "
                    + "\(policy.rawValue) policy, older device knows \(known) column(s)")
            func declaration(_ column: Int) -> String {
                quoteIdentifier(columns[column]) + (defaults[column].map { " DEFAULT \($0)" } ?? "")
            }
            func create(_ count: Int, named name: String? = nil) -> String {
                let declared = ["\(quoteIdentifier(key)) TEXT PRIMARY KEY NOT NULL"] + (0..<count).map(declaration)
                return "CREATE TABLE \(quoteIdentifier(name ?? table)) (\(declared.joined(separator: ", ")))"
            }
            let clock = ManualClock(unixMilliseconds: epoch2026)
            let devices = try (1...3).map {
                try Replica.inMemory(configuration: configuration(node: UInt8($0), clock: clock))
            }
            try devices[0].database.execute(create(columns.count))
            try devices[0].enableSync(on: table, policy: policy)
            if known >= 0 {
                try devices[1].database.execute(create(known))
                try devices[1].enableSync(on: table, policy: policy)
            }
            // The newer device writes; the older one writes the columns it has; the older one is the only link.
            let values = Gen.anySQLiteValue(largeLengths: nil)
            for _ in 0..<source.int(in: 1...6) {
                clock.advance(by: Int64(source.int(in: 0...2)))
                let writer = known >= 0 && source.bool(probability: 0.3) ? 1 : 0
                let count = writer == 0 ? columns.count : known
                let row: [SQLiteValue] =
                    [.text(SQLiteText("k\(source.int(in: 1...3))"))]
                    + (0..<count).map { _ in values.generate(using: &source) }
                let placeholders = Array(repeating: "?", count: row.count).joined(separator: ", ")
                try devices[writer].database.execute(
                    "INSERT OR REPLACE INTO \(quoteIdentifier(table)) VALUES (\(placeholders))", row)
                if source.bool() { _ = try deliver(from: devices[0], to: devices[1], as: .binary) }
                if source.bool(probability: 0.3) { _ = try deliver(from: devices[1], to: devices[0], as: .json) }
            }
            _ = try deliver(from: devices[0], to: devices[1], as: .binary)
            _ = try deliver(from: devices[1], to: devices[2], as: .json)
            // The third device migrates: it shows what the newer one shows, before hearing from it (where no
            // DEFAULT changes: until they hear from each other, each shows a value of its own there).
            try devices[2].database.execute(create(columns.count))
            try devices[2].enableSync(on: table, policy: policy)
            _ = try deliver(from: devices[1], to: devices[0], as: .binary)
            _ = try deliver(from: devices[1], to: devices[2], as: .binary)
            let select = "SELECT * FROM \(quoteIdentifier(table)) ORDER BY 1"
            let expected = try devices[0].database.query(select)
            let volatile = defaults.contains { !Gen<String?>.addableDefault($0) }
            guard try volatile || devices[2].database.query(select) == expected else {
                throw PredicateFailed(
                    "the third device shows \(try devices[2].database.query(select)), not \(expected)")
            }
            // The older device migrates too, adding columns, or rebuilding the table where SQLite cannot add
            // one (or as apps often do): everyone then holds the same registers and shows the same rows.
            if known < 0 {
                try devices[1].database.execute(create(columns.count))
            } else if columns.indices.dropFirst(known).allSatisfy({ Gen<String?>.addableDefault(defaults[$0]) })
                && source.bool()
            {
                for column in columns.indices.dropFirst(known) {
                    try devices[1].database.execute(
                        "ALTER TABLE \(quoteIdentifier(table)) ADD COLUMN \(declaration(column))")
                }
            } else {
                clock.advance(by: 2_000)
                let kept = ([key] + columns.prefix(known)).map(quoteIdentifier).joined(separator: ", ")
                try devices[1].database.execute(
                    create(columns.count, named: "_rebuilt")
                        + "; INSERT INTO \"_rebuilt\" (\(kept)) SELECT \(kept) FROM "
                        + "\(quoteIdentifier(table)); DROP TABLE \(quoteIdentifier(table)); "
                        + "ALTER TABLE \"_rebuilt\" RENAME TO \(quoteIdentifier(table))")
            }
            try devices[1].enableSync(on: table, policy: policy)
            try Replica.sync(devices)
            let settled = try devices[0].database.query(select)
            guard volatile || settled == expected else {
                throw PredicateFailed("device 0 shows \(settled) after everyone migrated, not \(expected)")
            }
            for device in devices {
                guard try device.database.query(select) == settled,
                    try device.canonicalDump() == devices[0].canonicalDump(), try device.check().isConsistent
                else { throw PredicateFailed("device \(device.nodeID) differs after everyone migrated") }
            }
        }
    }
}
