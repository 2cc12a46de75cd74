import ConcordTestSupport
import Testing

@testable import Concord

/// Every register change is stored at a version no higher than the replica's, so an export after that
/// version is empty without reading any table; `check()` reports a register stored above it.
@Suite("Export versions", .tags(.replica), .timeLimit(.hangGuard))
struct ExportVersionTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    private func replica() throws -> Replica {
        let replica = try Replica.inMemory(configuration: configuration(node: 1, clock: clock))
        try replica.database.execute("CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, body TEXT)")
        try replica.enableSync(on: "notes")
        try replica.database.execute("INSERT INTO notes VALUES ('n1', 'a'), ('n2', 'b')")
        try replica.database.execute("UPDATE notes SET body = 'c' WHERE id = 'n1'")
        return replica
    }

    @Test func anExportAfterTheReplicasVersionHasNoRowsAndTheSameHeader() throws {
        let replica = try replica()
        let everything = try replica.changes(since: 0)
        #expect(everything.rows.count == 2)
        let version = try replica.version
        #expect(version > 0)
        let none = try replica.changes(since: version)
        #expect(none.rows.isEmpty)
        #expect(none.tables == everything.tables && none.source == everything.source)
        #expect(none.since == version && none.upTo == everything.upTo)
        // One more write is exported after the version the last export stopped at.
        try replica.database.execute("UPDATE notes SET body = 'd' WHERE id = 'n2'")
        #expect(try replica.changes(since: version).rows.map(\.key) == ["n2"])
    }

    @Test func checkReportsARegisterStoredAboveTheReplicasVersion() throws {
        let replica = try replica()
        #expect(try replica.check().isConsistent)
        let version = try replica.version
        try replica.database.execute("UPDATE _concord_1_rows SET ver = ver + 1000 WHERE pk = 'n2'")
        let problems = try replica.check().problems
        let ahead = problems.compactMap { problem -> Int64? in
            if case .versionAhead(let row, let stored, let replicaVersion) = problem, row.key == "n2",
                replicaVersion == version
            {
                return stored
            }
            return nil
        }
        #expect(ahead.count == 1 && ahead[0] > version, "\(problems)")
    }
}
