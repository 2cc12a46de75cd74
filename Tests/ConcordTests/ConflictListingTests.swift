import ConcordTestSupport
import Foundation
import Testing

@_spi(Simulation) @testable import Concord

/// Which values `conflicts(table:key:)` lists: those that lost to a write that had not seen them, beside
/// the winner, wherever both meet; never a device's own overwrite or an edit of a value synced in.
@Suite("Conflict log: what is listed", .tags(.replica), .timeLimit(.hangGuard))
struct ConflictListingTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)
    /// Each test's own files (Swift Testing makes the suite anew for every test).
    let directory = TemporaryDirectory()

    private func pair(policy: TablePolicy = .column) throws -> (Replica, Replica) {
        try syncedReminderPair(in: directory, clock: clock, policy: policy)
    }

    @Test func aConcurrentEditOfOneColumnListsOneConflictOnTheWinningSideWithBothValues() throws {
        let (a, b) = try pair()
        try a.database.execute("UPDATE reminders SET title = 'oat milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try b.database.execute("UPDATE reminders SET title = 'soy milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try Replica.sync([a, b])

        let listed = try b.conflicts()
        #expect(listed.count == 1)
        let conflict = try #require(listed.first)
        #expect(conflict.table == "reminders" && conflict.key == "r1" && conflict.column == "title")
        #expect(conflict.kind == .edit)
        #expect(conflict.lost == "oat milk" && conflict.lostStamp.node == node(1))
        #expect(conflict.winner == "soy milk" && conflict.winnerStamp.node == node(2))
        #expect(conflict.recordedAt == epoch2026 + 4_000, "recorded at the replica's clock")
        #expect(try b.conflicts(table: "reminders", key: "r1") == listed)
        #expect(try b.conflicts(table: "reminders", key: "r2").isEmpty)
        // The device whose value lost lists it too: the winning write says what it saw, and it was not this.
        let there = try #require(try a.conflicts().first)
        #expect(try a.conflicts().count == 1)
        #expect(there.lost == "oat milk" && there.lostStamp == conflict.lostStamp)
        #expect(there.winner == "soy milk" && there.winnerStamp == conflict.winnerStamp)
        // The log is not synced: both replicas still hold the same registers and rows.
        #expect(try a.canonicalDump() == b.canonicalDump())
        // Applying the same changes again lists nothing twice.
        _ = try b.apply(a.changes(since: 0))
        #expect(try b.conflicts().count == 1)
    }

    /// A loss whose two values together pass SQLite's length limit is not listed; recording it failed every
    /// sync of both devices, which then showed different values for good (two blobs of 480 MB each).
    @Test func aLossTooBigToListStillMerges() throws {
        let (a, b) = try pair()
        for device in [a, b] { device.database.setLengthLimit(2_000) }
        let big = { (byte: String) in "x'" + String(repeating: byte, count: 1_200) + "'" }
        try a.database.execute("UPDATE reminders SET notes = \(big("aa")) WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try b.database.execute("UPDATE reminders SET notes = \(big("bb")) WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try Replica.sync([a, b])
        #expect(try a.canonicalDump() == b.canonicalDump())
        #expect(try a.conflicts().isEmpty && b.conflicts().isEmpty)
        for device in [a, b] { #expect(try device.check().isConsistent) }
    }

    @Test func whenTheWinnerArrivesFirstTheLosingDeviceListsItsUnsentValue() throws {
        let (a, b) = try pair()
        try a.database.execute("UPDATE reminders SET title = 'oat milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try b.database.execute("UPDATE reminders SET title = 'soy milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        // b's later edit reaches a before a has sent its own anywhere: no one can have seen a's.
        _ = try a.apply(b.changes(since: a.peerVersion(b.nodeID)))
        _ = try b.apply(a.changes(since: b.peerVersion(a.nodeID)))

        let conflict = try #require(try a.conflicts().first)
        #expect(try a.conflicts().count == 1 && b.conflicts().isEmpty, "listed once, on the losing side")
        #expect(conflict.column == "title" && conflict.kind == .edit)
        #expect(conflict.lost == "oat milk" && conflict.lostStamp.node == node(1))
        #expect(conflict.winner == "soy milk" && conflict.winnerStamp.node == node(2))
    }

    @Test func anUnsentEditThatLostToADeleteIsListedOnTheEditingDevice() throws {
        let (a, b) = try pair()
        try a.database.execute("UPDATE reminders SET title = 'oat milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try b.database.execute("DELETE FROM reminders WHERE id = 'r1'")
        clock.advance(by: 1_000)
        _ = try a.apply(b.changes(since: a.peerVersion(b.nodeID)))
        let conflict = try #require(try a.conflicts().first)
        #expect(try a.conflicts().count == 1)
        #expect(conflict.kind == .delete && conflict.lost == "oat milk" && conflict.winnerStamp.node == node(2))
        try a.restore(conflict: conflict.id)
        clock.advance(by: 1_000)
        try Replica.sync([a, b])
        #expect(try b.database.query("SELECT title FROM reminders") == [["oat milk"]], "re-inserted everywhere")
    }

    @Test func aLoserDroppedOnARelayIsListedThereAndOnTheDeviceThatWroteIt() throws {
        let (a, b) = try pair()
        let relay = try makeReplica(directory, "relay.sqlite", node: 3, clock: clock)
        _ = try relay.apply(a.changes(since: 0))
        // a and b edit the title concurrently; b's later edit wins.
        try a.database.execute("UPDATE reminders SET title = 'oat milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try b.database.execute("UPDATE reminders SET title = 'soy milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        // The relay takes b's value first, then a's, which loses there and is never passed on: b hears of
        // the row only through the relay, and a gets the winner from it.
        _ = try relay.apply(b.changes(since: 0))
        _ = try relay.apply(a.changes(since: 0))
        _ = try b.apply(relay.changes(since: 0))
        _ = try a.apply(relay.changes(since: 0))

        #expect(try b.conflicts().isEmpty, "b never held a's value")
        for replica in [relay, a] {
            let listed = try replica.conflicts()
            #expect(listed.count == 1)
            #expect(listed.first?.lost == "oat milk" && listed.first?.lostStamp.node == node(1))
            #expect(listed.first?.winner == "soy milk" && listed.first?.winnerStamp.node == node(2))
        }
        #expect(try a.canonicalDump() == b.canonicalDump() && b.canonicalDump() == relay.canonicalDump())
    }

    @Test func aDevicesOlderValueArrivingLateIsNotListedBesideItsNewerOne() throws {
        let (a, b) = try pair()
        let relay = try makeReplica(directory, "relay.sqlite", node: 3, clock: clock)
        _ = try relay.apply(a.changes(since: 0))
        try a.database.execute("UPDATE reminders SET title = 'oat milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        let older = try a.changes(since: 0)
        try a.database.execute("UPDATE reminders SET title = 'rice milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try b.database.execute("UPDATE reminders SET title = 'soy milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        _ = try relay.apply(b.changes(since: 0))
        _ = try relay.apply(a.changes(since: 0))
        // a's first edit, held up somewhere, comes last: it lost to a's own second edit, not to b's.
        _ = try relay.apply(older)
        #expect(try relay.conflicts().map(\.lost) == ["rice milk"])
        // In the other order the newer value replaces the older one's entry.
        let other = try makeReplica(directory, "other.sqlite", node: 4, clock: clock)
        _ = try other.apply(b.changes(since: 0))
        _ = try other.apply(older)
        #expect(try other.conflicts().map(\.lost) == ["oat milk"])
        _ = try other.apply(a.changes(since: 0))
        #expect(try other.conflicts().map(\.lost) == ["rice milk"])
        // Everything again changes nothing.
        let before = try other.conflicts()
        for changes in [try b.changes(since: 0), older, try a.changes(since: 0)] { _ = try other.apply(changes) }
        #expect(try other.conflicts() == before)
    }

    @Test func aChangesetThatNamesARowTwiceListsNothingForItAndAppliesTwiceAlike() throws {
        let (a, b) = try pair()
        try a.database.execute("UPDATE reminders SET title = 'oat milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try a.exportChanges(since: 0, to: MemoryByteSink())
        try b.database.execute("UPDATE reminders SET title = 'soy milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        // No export repeats a row; one that does gets its rows merged, and lists nothing for them: which
        // value lost would depend on the order of the copies.
        var repeated = try b.changes(since: 0)
        repeated.rows += repeated.rows
        _ = try a.apply(repeated)
        #expect(try a.database.scalar("SELECT title FROM reminders") == "soy milk")
        #expect(try a.conflicts().isEmpty)
        let before = try fileBytes(directory.path("a.sqlite"))
        _ = try a.apply(repeated)
        #expect(try fileBytes(directory.path("a.sqlite")) == before)
    }

    @Test func aStreamedChangesetListsItsConflictsAndMergesEveryRow() throws {
        let (a, b) = try pair()
        try a.database.execute("UPDATE reminders SET title = 'oat milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try a.exportChanges(since: 0, to: MemoryByteSink())
        try b.database.execute("UPDATE reminders SET title = 'soy milk' WHERE id = 'r1'")
        _ = try b.foldLocalWrites()
        clock.advance(by: 1_000)
        // More rows after the conflicting one than a merge batch holds (16,384): the merge is still reading
        // the file when it finds the loss.
        try b.database.execute(
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 17000)
            INSERT INTO reminders (id, title) SELECT 'n' || i, printf('%0200d', i) FROM n
            """)
        let path = directory.path("b.changes")
        let sink = try FileByteSink(path: path)
        try b.exportChanges(since: 0, to: sink)
        try sink.close()
        #expect(try fileBytes(path).count > 4 * 65_536)
        let report = try a.applyChangeset(atPath: path, decodingInMemoryUpTo: 0)
        #expect(report.applied == 17_001)
        #expect(try a.conflicts().map(\.lost) == ["oat milk"])
        #expect(try a.canonicalDump() == b.canonicalDump())
    }

    @Test func anOverwriteOfASeenValueIsListedNowhereWhateverTheRouteItTakes() throws {
        let (a, b) = try pair()
        let relay = try makeReplica(directory, "relay.sqlite", node: 3, clock: clock)
        _ = try relay.apply(a.changes(since: 0))
        try a.database.execute("UPDATE reminders SET title = 'oat milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        _ = try b.apply(a.changes(since: b.peerVersion(a.nodeID)))
        // b overwrites a's value having seen it; the relay gets the overwrite before the value it replaced.
        try b.database.execute("UPDATE reminders SET title = 'soy milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        _ = try relay.apply(b.changes(since: 0))
        _ = try relay.apply(a.changes(since: 0))
        _ = try a.apply(relay.changes(since: 0))
        for replica in [a, b, relay] { #expect(try replica.conflicts().isEmpty) }
    }

    @Test func aValueFromAnOlderChangesetFormatIsTakenToHaveSeenEverythingBelowIt() throws {
        /// How many conflicts a lists when b's winning edit reaches it after a's value left a, with or without
        /// what b's write saw (a format-2 build sends nothing of it).
        func listed(sayingWhatWasSeen: Bool) throws -> Int {
            let directory = TemporaryDirectory()
            let clock = ManualClock(unixMilliseconds: epoch2026)
            let (a, b) = try syncedReminderPair(in: directory, clock: clock)
            try a.database.execute("UPDATE reminders SET title = 'oat milk' WHERE id = 'r1'")
            clock.advance(by: 1_000)
            try b.database.execute("UPDATE reminders SET title = 'soy milk' WHERE id = 'r1'")
            clock.advance(by: 1_000)
            try a.exportChanges(since: 0, to: MemoryByteSink())  // a's value has left it
            var changes = try b.changes(since: 0)
            if !sayingWhatWasSeen {
                changes.rows = changes.rows.map { RowChange(table: $0.table, key: $0.key, registers: $0.registers) }
            }
            _ = try a.apply(changes)
            return try a.conflicts().count
        }
        #expect(try listed(sayingWhatWasSeen: true) == 1)
        #expect(
            try listed(sayingWhatWasSeen: false) == 0, "a write that does not say what it saw saw everything below it")
    }

    @Test func aDevicesOwnSuccessiveEditsListNoConflict() throws {
        let (a, b) = try pair()
        try a.database.execute("UPDATE reminders SET title = 'oat milk' WHERE id = 'r1'")
        _ = try a.foldLocalWrites()
        clock.advance(by: 1_000)
        try a.database.execute("UPDATE reminders SET title = 'soy milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try Replica.sync([a, b])
        try a.database.execute("UPDATE reminders SET title = 'rice milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try Replica.sync([a, b])
        #expect(try a.conflicts().isEmpty)
        #expect(try b.conflicts().isEmpty)
    }

    @Test func anEditOfAValueSyncedInIsNotAConflict() throws {
        let (a, b) = try pair()
        try b.database.execute("UPDATE reminders SET title = 'oat milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        let edit = try b.changes(since: 0)
        try Replica.sync([a, b])
        // a saw b's value and overwrites it: b's value loses to a write that had seen it.
        try a.database.execute("UPDATE reminders SET title = 'soy milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try Replica.sync([a, b])
        // The old value arriving again (a late copy, or through another peer) is no conflict either.
        _ = try a.apply(edit)
        #expect(try a.conflicts().isEmpty)
        #expect(try b.conflicts().isEmpty)
    }

    @Test func concurrentEditsOfDifferentColumnsListNothing() throws {
        let (a, b) = try pair()
        try a.database.execute("UPDATE reminders SET title = 'oat milk' WHERE id = 'r1'")
        try b.database.execute("UPDATE reminders SET notes = 'door' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try Replica.sync([a, b])
        #expect(try a.conflicts().isEmpty && b.conflicts().isEmpty)
    }

    @Test func anEditThatLostToAConcurrentDeleteIsListed() throws {
        let (a, b) = try pair()
        try b.database.execute("DELETE FROM reminders WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try a.database.execute("UPDATE reminders SET title = 'oat milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try Replica.sync([a, b])
        #expect(try a.database.scalar("SELECT count(*) FROM reminders") == .integer(0), "the delete wins")
        let conflict = try #require(try b.conflicts().first)
        #expect(try b.conflicts().count == 1)
        #expect(conflict.kind == .delete && conflict.column == "title" && conflict.lost == "oat milk")
        #expect(conflict.winner == nil && conflict.winnerStamp.node == node(2))
    }

    /// The edit reaches the deleting device from a device that already merged the delete: the row arrives
    /// dead, its register newer than the deleter's. Under `Replica.sync`, or relayed through a third device,
    /// no device listed the edit, and it could be restored nowhere; the deleter lists it.
    @Test(arguments: [false, true])
    func anEditArrivingInARowAlreadyDeadIsListedByTheDeletingDevice(relayed: Bool) throws {
        let (deleter, editor) = try pair()
        let relay = try makeReplica(directory, "c.sqlite", node: 3, clock: clock)
        try Replica.sync([deleter, relay])
        try deleter.database.execute("DELETE FROM reminders WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try editor.database.execute("UPDATE reminders SET title = 'oat milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        // The editor's edit leaves it before the delete arrives anywhere it is.
        let carrier = relayed ? relay : editor
        if relayed { try relay.apply(editor.changes(since: 0), from: editor.nodeID) }
        try editor.apply(deleter.changes(since: 0), from: deleter.nodeID)
        try carrier.apply(deleter.changes(since: 0), from: deleter.nodeID)
        try deleter.apply(carrier.changes(since: 0), from: carrier.nodeID)
        try Replica.sync([deleter, editor, relay])
        let listed = try deleter.conflicts()
        #expect(listed.count == 1)
        #expect(listed.first?.kind == .delete && listed.first?.lost == "oat milk")
        #expect(listed.first?.winnerStamp.node == node(1))
        // Restored there, the row comes back with the edit everywhere.
        try deleter.restore(conflict: try #require(listed.first).id)
        clock.advance(by: 1_000)
        try Replica.sync([deleter, editor, relay])
        for replica in [deleter, editor, relay] {
            #expect(try replica.database.query("SELECT title FROM reminders") == [["oat milk"]])
        }
    }

    @Test func underTheRowPolicyEachColumnOfTheLosingRowThatDiffersIsListed() throws {
        let (a, b) = try pair(policy: .row)
        try a.database.execute("UPDATE reminders SET title = 'oat milk', notes = 'shelf' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try b.database.execute("UPDATE reminders SET done = 1 WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try Replica.sync([a, b])
        let listed = try b.conflicts().sorted { $0.column < $1.column }
        #expect(listed.map(\.column) == ["done", "notes", "title"])
        #expect(listed.map(\.lost) == [0, "shelf", "oat milk"])
        #expect(Set(listed.map(\.lostStamp)).count == 1, "one write lost")
    }

    @Test func anUnknownTableIsRefusedWithItsName() throws {
        let (a, _) = try pair()
        #expect(throws: ReplicaError.notASyncedTable("remindres")) { try a.conflicts(table: "remindres") }
    }

    @Test func aValueOverwrittenBeforeAnUpgradeToLayout7IsNotListedWhenItArrivesAgain() throws {
        var (a, b) = try pair()
        try b.database.execute("UPDATE reminders SET title = 'almond milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        let old = try b.changes(since: 0)
        _ = try a.apply(old)
        // a overwrites b's value, having seen it.
        try a.database.execute("UPDATE reminders SET title = 'oat milk' WHERE id = 'r1'")
        _ = try a.foldLocalWrites()
        // Back to layout 6, which did not record what writes saw; the next open upgrades it again.
        try a.database.execute(
            """
            ALTER TABLE _concord_1_rows DROP COLUMN seen; DROP TABLE _concord_conflicts; DROP TABLE _concord_readers;
            ALTER TABLE _concord_peers DROP COLUMN at; UPDATE _concord_state SET layout = 6;
            """)
        a = try Replica(path: directory.path("a.sqlite"), configuration: configuration(node: 1, clock: clock))
        clock.advance(by: 1_000)
        _ = try a.apply(old)
        #expect(try a.conflicts().isEmpty, "a held b's value before it overwrote it")
        // A value written after the upgrade and never seen here is still found (when it reaches this
        // replica before this replica's winning write reaches the device that wrote it).
        try b.database.execute("UPDATE reminders SET title = 'soy milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        try a.database.execute("UPDATE reminders SET title = 'rice milk' WHERE id = 'r1'")
        clock.advance(by: 1_000)
        _ = try a.apply(b.changes(since: a.peerVersion(b.nodeID)))
        #expect(try a.conflicts().map(\.lost) == ["soy milk"])
    }
}
