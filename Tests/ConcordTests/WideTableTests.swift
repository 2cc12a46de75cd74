import ConcordTestSupport
import ConcordTesting
import Foundation
import Testing

@testable import Concord

/// A table of more than 63 synced columns keeps every device's edit of every column.
///
/// An update's change mask had one bit per column up to column 62, and the last bit for all the later
/// ones: a device that changed column 65 stamped columns 62 to the end, so its unchanged column 66
/// went out newer than another device's edit of it, which was lost everywhere with `sync` content.
@Suite("Tables wider than a change mask", .tags(.replica), .timeLimit(.hangGuard))
struct WideTableTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    /// `count` devices syncing `wide`, of `width` TEXT columns `c0`… (and a parent table `p`), in sync.
    private func devices(width: Int, count: Int = 2) throws -> [Replica] {
        let columns = (0..<width).map {
            "c\($0) TEXT" + ($0 == width - 1 ? " REFERENCES p(id) ON DELETE SET NULL" : "")
        }
        let devices = try (1...count).map { node in
            let device = try Replica.inMemory(configuration: configuration(node: UInt8(node), clock: clock))
            try device.database.execute(
                "CREATE TABLE p (id TEXT PRIMARY KEY NOT NULL); "
                    + "CREATE TABLE wide (id TEXT PRIMARY KEY NOT NULL, \(columns.joined(separator: ", ")))")
            try device.enableSync(on: "p")
            try device.enableSync(on: "wide")
            return device
        }
        try devices[0].database.execute("INSERT INTO p VALUES ('p1'); INSERT INTO wide (id) VALUES ('x')")
        try Replica.sync(devices)
        return devices
    }

    private func row(_ device: Replica, width: Int) throws -> [SQLiteValue] {
        try device.database.query(
            "SELECT \((0..<width).map { "c\($0)" }.joined(separator: ", ")) FROM wide WHERE id = 'x'"
        ).first ?? []
    }

    @Test func concurrentEditsOfDifferentColumnsPastTheSixtySecondAllSurvive() throws {
        let d = try devices(width: 130)
        try d[0].database.execute("UPDATE wide SET c1 = 'a', c65 = 'a', c127 = 'a' WHERE id = 'x'")
        try d[1].database.execute("UPDATE wide SET c62 = 'b', c66 = 'b', c124 = 'b' WHERE id = 'x'")
        try Replica.sync(d)
        var expected = [SQLiteValue](repeating: .null, count: 130)
        for column in [1, 65, 127] { expected[column] = "a" }
        for column in [62, 66, 124] { expected[column] = "b" }
        for device in d {
            #expect(try row(device, width: 130) == expected)
            #expect(try device.check().isConsistent)
        }
    }

    @Test func propertyEveryDevicesEditOfItsOwnColumnsSurvives() throws {
        try Property.check(seed: 0x31DE, iterations: 25) { source in
            let width = source.int(in: 1...200)
            // 0: nobody, 1 or 2: that device; the last column references `p`, whose only row is `p1`.
            let owner = (0..<width).map { $0 == width - 1 ? 0 : source.int(in: 0...2) }
            source.note("width \(width), columns edited by device: \(owner)")
            let d = try devices(width: width)
            var expected = [SQLiteValue](repeating: .null, count: width)
            for device in 1...2 {
                let mine = owner.indices.filter { owner[$0] == device }
                guard !mine.isEmpty else { continue }
                for column in mine { expected[column] = .text(SQLiteText("d\(device)c\(column)")) }
                let assignments = mine.map { "c\($0) = 'd\(device)c\($0)'" }.joined(separator: ", ")
                try d[device - 1].database.execute("UPDATE wide SET \(assignments) WHERE id = 'x'")
            }
            try Replica.sync(d)
            for device in d {
                guard try row(device, width: width) == expected, try device.check().isConsistent else {
                    throw PredicateFailed("device \(device.nodeID) shows \(try row(device, width: width))")
                }
            }
        }
    }

    @Test func aStandInColumnPastTheSixtySecondKeepsItsReference() throws {
        let d = try devices(width: 100)
        try d[0].database.execute("UPDATE wide SET c99 = 'p1' WHERE id = 'x'")
        try Replica.sync(d)
        // The parent goes on one device: the other shows the stand-in, NULL, and keeps the reference.
        try d[0].database.execute("DELETE FROM p WHERE id = 'p1'")
        try Replica.sync(d)
        #expect(try d[1].database.query("SELECT c99 FROM wide") == [[.null]])
        // The app there deletes the row: the delete keeps the real reference, not the stand-in.
        try d[1].database.execute("DELETE FROM wide WHERE id = 'x'")
        try Replica.sync(d)
        for device in d { #expect(try device.check().isConsistent) }
        #expect(try d[0].canonicalDump() == d[1].canonicalDump())
    }

    @Test func masksRoundTripAndAnEarlierLayoutsMaskStillReads() {
        for width in [1, 62, 63, 64, 124, 125, 200] {
            var generator = SeededGenerator(seed: UInt64(width))
            let changed = (0..<width).map { _ in Bool.random(using: &generator) }
            #expect(ChangeMask.decode(ChangeMask.encode(changed), count: width) == changed)
            #expect(ChangeMask.isEmpty(ChangeMask.encode(changed.map { _ in false }), count: width))
        }
        // A wide table's log row from layout 10: the last bit stood for every column from 62 on.
        #expect(ChangeMask.decode(.integer(1 << 62 | 1), count: 100) == (0..<100).map { $0 == 0 || $0 >= 62 })
    }

    @Test func anUpgradeFromLayoutTenGivesAWideTableItsNewTrigger() throws {
        let directory = TemporaryDirectory()
        let path = directory.path("wide.sqlite")
        let config = configuration(node: 1, clock: clock)
        do {
            let replica = try Replica(path: path, configuration: config)
            try replica.database.execute(
                "CREATE TABLE wide (id TEXT PRIMARY KEY NOT NULL, \((0..<70).map { "c\($0)" }.joined(separator: ", ")))"
            )
            try replica.enableSync(on: "wide")
            try replica.database.execute("INSERT INTO wide (id) VALUES ('x')")
            _ = try replica.foldLocalWrites()
            // As layout 10 left it: an update trigger whose mask's last bit stands for columns 62 on.
            let trigger = try #require(
                try replica.database.scalar("SELECT sql FROM sqlite_schema WHERE name LIKE '%_update'")?.textValue)
            #expect(trigger.contains("printf"))
            try replica.database.execute(
                "DROP TRIGGER \"_concord_1_update\"; "
                    + "CREATE TRIGGER \"_concord_1_update\" AFTER UPDATE ON wide BEGIN INSERT INTO _concord_log "
                    + "(tbl, pk, op, at, mask) VALUES (1, NEW.id, 2, julianday('now'), 1 << 62); END; "
                    + "UPDATE _concord_state SET layout = 10")
            try replica.database.execute("UPDATE wide SET c65 = 'kept' WHERE id = 'x'")
        }
        let replica = try Replica(path: path, configuration: config)
        #expect(try replica.database.scalar("SELECT layout FROM _concord_state") == .integer(Metadata.layoutVersion))
        let trigger = try replica.database.scalar("SELECT sql FROM sqlite_schema WHERE name = '_concord_1_update'")
        #expect(trigger?.textValue?.contains("printf") == true)
        // The old trigger's write is read as its mask says: every column from 62 on, the edit among them.
        #expect(try replica.database.query("SELECT c65 FROM wide") == [["kept"]])
        #expect(try replica.check().isConsistent)
    }
}
