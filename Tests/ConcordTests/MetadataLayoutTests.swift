import ConcordTestSupport
import Testing
@testable import Concord

@Suite("Metadata layouts")
struct MetadataLayoutTests {
    @Test func aLayout3ReplicaIsUpgradedWhenOpenedAndKeepsItsUnfoldedWrites() throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock(unixMilliseconds: epoch2026)
        var replica: Replica? = try makeReplica(directory, "a.sqlite", node: 1, clock: clock)
        try replica!.database.execute("INSERT INTO reminders (id, title) VALUES ('r1', 'a')")
        // What layout 3 left: write times in Unix milliseconds, and capture triggers of its own.
        try replica!.database.execute("""
            UPDATE _concord_log SET at = CAST(round((at - 2440587.5) * 86400000.0) AS INTEGER);
            UPDATE _concord_state SET layout = 3;
            DROP TRIGGER _concord_reminders_update;
            """)
        replica = nil
        clock.advance(by: 5_000)

        let upgraded = try Replica(path: directory.path("a.sqlite"), configuration: configuration(node: 1, clock: clock))
        #expect(try upgraded.database.scalar("SELECT layout FROM _concord_state") == .integer(Metadata.layoutVersion))
        #expect(try upgraded.database.scalar(
            "SELECT count(*) FROM sqlite_schema WHERE name = '_concord_reminders_update'") == .integer(1))
        #expect(try upgraded.foldLocalWrites() == 1)
        let stamp = try upgraded.database.scalar("SELECT hlc FROM _concord_rows_reminders")?.integerValue ?? 0
        #expect(HLCTimestamp(sqliteValue: stamp) == HLCTimestamp(milliseconds: UInt64(epoch2026), counter: 0),
                "the write keeps the time it was made, not the time of the upgrade")
        try upgraded.database.execute("UPDATE reminders SET title = 'b' WHERE id = 'r1'")
        #expect(try upgraded.foldLocalWrites() == 1, "the remade update trigger captures")
        #expect(try upgraded.check().isConsistent)
    }

    @Test(arguments: [Int64(2), Metadata.layoutVersion + 1])
    func aLayoutThisBuildCannotReadIsRefusedUntouched(layout: Int64) throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock(unixMilliseconds: epoch2026)
        var replica: Replica? = try makeReplica(directory, "a.sqlite", node: 1, clock: clock)
        try replica!.database.execute("UPDATE _concord_state SET layout = \(layout)")
        replica = nil
        #expect(throws: ReplicaError.unsupportedLayout(found: layout, supported: Metadata.layoutVersion)) {
            _ = try Replica(path: directory.path("a.sqlite"), configuration: configuration(node: 1, clock: clock))
        }
        let database = try Database(path: directory.path("a.sqlite"))
        #expect(try database.scalar("SELECT layout FROM _concord_state") == .integer(layout))
    }
}
