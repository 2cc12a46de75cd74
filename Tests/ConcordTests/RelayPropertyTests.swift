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
            source.note(
                "table \(visible(table)) key \(visible(key)) columns \(columns.map(visible)) "
                    + "\(policy.rawValue) policy, older device knows \(known) column(s)")
            func create(_ count: Int) -> String {
                let declared =
                    ["\(quoteIdentifier(key)) TEXT PRIMARY KEY NOT NULL"] + columns.prefix(count).map(quoteIdentifier)
                return "CREATE TABLE \(quoteIdentifier(table)) (\(declared.joined(separator: ", ")))"
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
            // The third device migrates: it shows what the newer one shows, before hearing from it.
            try devices[2].database.execute(create(columns.count))
            try devices[2].enableSync(on: table, policy: policy)
            _ = try deliver(from: devices[1], to: devices[0], as: .binary)
            _ = try deliver(from: devices[1], to: devices[2], as: .binary)
            let select = "SELECT * FROM \(quoteIdentifier(table)) ORDER BY 1"
            let expected = try devices[0].database.query(select)
            guard try devices[2].database.query(select) == expected else {
                throw PredicateFailed(
                    "the third device shows \(try devices[2].database.query(select)), not \(expected)")
            }
            // The older device migrates too: everyone holds the same registers.
            if known >= 0 {
                for column in columns[known...] {
                    try devices[1].database.execute(
                        "ALTER TABLE \(quoteIdentifier(table)) ADD COLUMN \(quoteIdentifier(column))")
                }
            } else {
                try devices[1].database.execute(create(columns.count))
            }
            try devices[1].enableSync(on: table, policy: policy)
            try Replica.sync(devices)
            for device in devices {
                guard try device.database.query(select) == expected,
                    try device.canonicalDump() == devices[0].canonicalDump()
                else { throw PredicateFailed("device \(device.nodeID) differs after everyone migrated") }
            }
        }
    }
}
