import Concord
import ConcordTestSupport
import Testing

/// The test process's own SQLite set-up, which every suite's speed side by side depends on.
@Suite("The test process", .tags(.replica))
struct TestProcessSetUpTests {
    /// Set when the bundle loads, before any connection: afterwards SQLite refuses the setting, and tests
    /// running two at a time would take turns on the lock that counts every allocation (three times slower).
    @Test func sqliteKeepsNoMemoryStatistics() throws {
        #expect(sqliteMemoryStatisticsAreOff)
        _ = try Database.inMemory()
        #expect(!Database.disableMemoryStatistics(), "too late once SQLite is initialized, as the set-up must not be")
    }
}
