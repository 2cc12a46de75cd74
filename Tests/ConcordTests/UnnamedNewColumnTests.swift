import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// A column the app adds later whose name is empty stops its table only, as one declared so is refused.
///
/// Changesets name every column they carry, so such a column cannot sync. Adopted as any new column, it
/// made every export fail (the encoder refused the empty name) and so stopped every table of the file.
@Suite(.tags(.replica))
struct UnnamedNewColumnTests {
    @Test func aNewColumnWithAnEmptyNameStopsItsTableAndTheOthersSync() throws {
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let replica = try Replica.inMemory(configuration: configuration(node: 1, clock: clock))
        try replica.database.execute(
            "CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, title TEXT); CREATE TABLE u (id TEXT PRIMARY KEY NOT NULL)")
        try replica.enableSync(on: "t")
        try replica.enableSync(on: "u")
        try replica.database.execute("INSERT INTO t VALUES ('r1', 'hello')")
        try replica.foldLocalWrites()
        let before = try replica.version
        try replica.database.execute("ALTER TABLE t ADD COLUMN \"\" TEXT; INSERT INTO u VALUES ('u1')")
        let changes = try replica.changes(since: before)
        #expect(changes.rows.map(\.table) == ["u"])
        let refusal = replica.schemaRefusals.map { "\($0)" }.joined()
        #expect(refusal.contains("table 't'") && refusal.contains("its new column's name is empty"))
        #expect(refusal.contains("To fix: rename the new column (ALTER TABLE \"t\" RENAME COLUMN ... TO a name)"))
        // Renamed, the column is an ordinary new one.
        try replica.database.execute("ALTER TABLE t RENAME COLUMN \"\" TO note")
        try replica.database.execute("UPDATE t SET note = 'n' WHERE id = 'r1'")
        let after = try replica.changes(since: before)
        #expect(replica.schemaRefusals.isEmpty)
        #expect(after.rows.map(\.table) == ["t", "u"])
        #expect(try replica.check().isConsistent)
    }
}
