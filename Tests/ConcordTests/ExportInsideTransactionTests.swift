import ConcordTestSupport
import Testing

@testable import Concord

/// Changes are never exported from inside a transaction still open on the replica's connection.
///
/// The app's transaction could yet be rolled back: a peer that had read its writes would keep them (and
/// send them back), and the replica's next writes, stored at the versions the peer had read, would never
/// reach it.
@Suite("Exports inside the app's transaction", .tags(.replica), .timeLimit(.hangGuard))
struct ExportInsideTransactionTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    @Test func anExportInsideAnOpenTransactionIsRefusedAndChangesNothing() throws {
        let d = try (1...2 as ClosedRange<UInt8>).map { id in
            let replica = try Replica.inMemory(configuration: configuration(node: id, clock: clock))
            try replica.database.execute("CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, body TEXT)")
            try replica.enableSync(on: "notes")
            return replica
        }
        try d[0].database.execute("INSERT INTO notes VALUES ('n1', 'one')")
        try Replica.sync(d)
        try d[0].database.execute("BEGIN")
        try d[0].database.execute("UPDATE notes SET body = 'rolled back' WHERE id = 'n1'")
        #expect(throws: ReplicaError.exportInsideTransaction) { try d[0].changes(since: 0) }
        // The sync names the exchange it stopped in.
        #expect {
            try Replica.sync(d)
        } throws: { error in
            guard let stopped = error as? SyncStopped else { return false }
            return stopped.error as? ReplicaError == .exportInsideTransaction && stopped.source == 0
        }
        try d[0].database.execute("ROLLBACK")
        try d[0].database.execute("INSERT INTO notes VALUES ('n2', 'two')")
        try Replica.sync(d)
        for device in d {
            #expect(try device.database.query("SELECT * FROM notes ORDER BY id") == [["n1", "one"], ["n2", "two"]])
            #expect(try device.check().isConsistent)
        }
        #expect(try d[0].canonicalDump() == d[1].canonicalDump())
    }
}
