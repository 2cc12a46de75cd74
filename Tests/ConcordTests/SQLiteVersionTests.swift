import ConcordTestSupport
import Testing

@testable import Concord

/// A replica refuses an SQLite older than the oldest it works with, saying which and what to do, before it
/// reads or writes the file: on such a library its metadata statements (`RETURNING`, `DROP COLUMN`) would
/// fail as syntax errors in the middle of an operation.
@Suite(.tags(.replica))
struct SQLiteVersionTests {
    @Test(arguments: [(3_034_001, "3.34.1"), (3_031_001, "3.31.1"), (3_007_017, "3.7.17")])
    func anOlderSQLiteIsRefusedNamingBothVersions(number: Int, text: String) {
        let error = #expect(throws: ReplicaError.self) {
            try Replica.requireSupportedSQLite(number: number, text: text)
        }
        #expect(error == .unsupportedSQLite(found: text, oldest: "3.35.0"))
        #expect(error?.description.contains("SQLite \(text)") == true, "\(String(describing: error))")
        #expect(error?.description.contains("3.35.0 or later") == true, "\(String(describing: error))")
    }

    @Test(arguments: [(3_035_000, "3.35.0"), (3_040_001, "3.40.1"), (3_051_000, "3.51.0")])
    func theOldestAndNewerAreTaken(number: Int, text: String) throws {
        try Replica.requireSupportedSQLite(number: number, text: text)
    }

    /// The library this process links opens replicas (CI's is 3.40.1).
    @Test func theLinkedSQLiteIsTaken() throws {
        #expect(Database.libraryVersionNumber >= Replica.oldestSQLite.number, "\(Database.libraryVersion)")
        _ = try Replica.inMemory(configuration: configuration(node: 1, clock: ManualClock(unixMilliseconds: epoch2026)))
    }
}
