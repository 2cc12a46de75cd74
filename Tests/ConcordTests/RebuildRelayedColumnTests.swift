import ConcordTestSupport
import Testing

@_spi(Testing) @_spi(Simulation) @testable import Concord

/// A migration that adds a column newer devices already write, and rebuilds the table without some of its
/// rows, deletes those rows.
///
/// The simulator's table-rebuild family found it: a device on the older release kept what a newer one
/// wrote to the new column (relayed); when its own migration added the column and dropped a row while
/// copying, Concord took up the relayed values first and placed the row again, though the table no
/// longer had it: with nothing to show it from, it was shown with NULLs or parked for a NOT NULL
/// column, so the reconcile that follows did not record it deleted. The row stayed alive on every
/// device, shown by those that had not migrated, while `check` said ok.
@Suite(.tags(.replica))
struct RebuildRelayedColumnTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    @Test(arguments: ["TEXT NOT NULL", "TEXT"])
    func aRowTheRebuildDroppedIsDeleted(titleType: String) throws {
        // Device 1 runs the release that added `priority`; device 0 does not yet.
        let replicas = try inMemoryReplicas(2, clock: clock) { replica, index in
            let priority = index == 1 ? ", priority INTEGER NOT NULL DEFAULT 0" : ""
            try replica.database.execute("CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, title \(titleType)\(priority))")
            try replica.enableSync(on: "t")
        }
        try replicas[1].database.execute("INSERT INTO t VALUES ('r1', 'milk', 2), ('r2', 'bread', 1)")
        clock.advance(by: 10)
        try Replica.sync(replicas)
        // Device 0's migration adds the column, then rebuilds the table without the milk.
        clock.advance(by: 10)
        try replicas[0].database.execute(
            "ALTER TABLE t ADD COLUMN priority INTEGER NOT NULL DEFAULT 0; "
                + rebuildSQL(
                    "t",
                    columns: "id TEXT PRIMARY KEY NOT NULL, title \(titleType), priority INTEGER NOT NULL DEFAULT 0",
                    where: "title <> 'milk'"))
        _ = try replicas[0].foldLocalWrites()
        #expect(try replicas[0].parkedReasons().isEmpty)
        clock.advance(by: 10)
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(
                try replica.database.query("SELECT id, title, priority FROM t ORDER BY id") == [["r2", "bread", 1]])
            #expect(try replica.registers(of: "t", key: "r1")?.liveness.causalLength == 2)
            #expect(try replica.check().isConsistent)
        }
    }
}
