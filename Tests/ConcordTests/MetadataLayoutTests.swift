import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// Replicas written by every earlier metadata layout open in this build, keep everything they held,
/// and go on syncing; a layout no Concord wrote is refused untouched.
@Suite("Metadata layouts", .tags(.replica, .snapshot))
struct MetadataLayoutTests {
    /// The fixtures: real files written by the builds that wrote each earlier layout (see their README).
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Layouts")
    /// The node id each upgraded replica takes (see ``MetadataMigration``), and the one it had.
    static let renewed = node(9), original = node(1)

    @Test(
        arguments: [
            "layout-1", "layout-2", "layout-2b", "layout-3", "layout-4", "layout-5", "layout-6", "layout-7", "layout-8",
            "layout-9", "layout-10", "layout-11", "layout-12", "layout-13", "layout-14", "layout-15",
            "layout-16", "layout-17", "layout-18", "layout-19",
        ])
    func everyEarlierLayoutIsUpgradedWithNothingLost(fixture: String) throws {
        let directory = TemporaryDirectory()
        let expected = try Sections(Self.fixtures.appendingPathComponent(fixture + ".expected.txt"))
        let copiedAt = try Self.copyClock(of: fixture)
        let (replica, clock) = try Self.openCopy(of: fixture, in: directory)

        #expect(try replica.database.scalar("SELECT layout FROM _concord_state") == .integer(Metadata.layoutVersion))
        #expect(
            try replica.database.scalar("SELECT count(*) FROM _concord_relayed_rows") == .integer(0),
            "layout 6's relay store is there, empty")
        #expect(
            try replica.database.scalar("SELECT count(*) FROM _concord_conflicts") == .integer(0),
            "layout 7's conflict log is there, empty")
        #expect(
            try replica.database.scalar("SELECT sql FROM sqlite_schema WHERE name = '_concord_conflicts'")?.textValue?
                .contains("AUTOINCREMENT") == true,
            "layout 17 never gives a conflict's id to another")
        #expect(
            try replica.database.scalar(
                "SELECT (SELECT count(*) FROM _concord_retired) + (SELECT count(*) FROM _concord_retired_values) "
                    + "+ (SELECT count(*) FROM _concord_retired_counts)")
                == .integer(0),
            "layout 13's store of what disabled tables leave is there, empty")
        #expect(
            try replica.database.scalar(
                "SELECT min(pos) <= (SELECT version FROM _concord_state) FROM _concord_positions") == .integer(1),
            "layout 18 keeps the read positions it hands out, from the version it was upgraded at")
        #expect(
            try replica.database.scalar("SELECT count(*) FROM _concord_credits") == .integer(copiedAt == nil ? 0 : 1),
            "layout 16 keeps the credit a copy gives the original for what its log holds, until it is folded")
        #expect(
            try replica.database.scalar("SELECT count(*) FROM _concord_readers")
                == .integer(
                    [
                        "layout-7", "layout-8", "layout-9", "layout-10", "layout-11", "layout-12", "layout-13",
                        "layout-14", "layout-15", "layout-16", "layout-17", "layout-18", "layout-19",
                    ]
                    .contains(
                        fixture)
                        ? 2 : 0),
            "layout 7's record of what peers have read is there (empty before layout 7)")
        #expect(
            try replica.database.scalar("SELECT exported > 0 FROM _concord_state") == .integer(1),
            "what was stamped before the upgrade counts as exported")
        #expect(
            try replica.database.scalar(
                "SELECT count(*) FROM _concord_tables AS t WHERE NOT EXISTS (SELECT 1 FROM pragma_table_info("
                    + "'_concord_' || t.id || '_rows') WHERE name = 'seen')") == .integer(0),
            "every rows table has layout 7's seen column")
        #expect(replica.nodeID == Self.renewed, "an upgraded replica writes under a node id of its own")
        // The writes still in the log when the old build last looked are stamped now, under the new node id,
        // but for their counter changes, which the copy credits to the original at the file's clock (a
        // fixture opened from a copy of its file; see `CopyCredit`); apart from that, the registers and rows
        // are exactly what the old build reported.
        let dump = try replica.canonicalDump()
            .replacingOccurrences(of: Self.renewed.description, with: Self.original.description)
        let counters = Dictionary(
            uniqueKeysWithValues: replica.tables.map { table in
                (table.name, Set(zip(table.columns, table.merges).filter { $0.1 == .counter }.map(\.0)))
            })
        let reported: String = expected["canonicalDump()"]
        #expect(dump == copiedAt.map { Self.credited(reported, counters: counters, after: $0) } ?? reported)
        let report = try replica.check()
        #expect(report.isConsistent, "\(report)")
        #expect(
            try replica.database.scalar("SELECT count(*) FROM _concord_credits") == .integer(0),
            "the credit goes with the last write it covers")
        #expect(
            try replica.database.scalar(
                "SELECT swept IS (SELECT schema_version FROM pragma_schema_version) FROM _concord_state")
                == .integer(1),
            "layout 10 records the schema version the tables were swept at for rows lost uncaptured")
        #expect(
            try replica.database.scalar(
                "SELECT count(*) FROM _concord_tables AS t WHERE t.columns <> '[]' AND NOT EXISTS (SELECT 1 FROM "
                    + "sqlite_schema WHERE type = 'index' AND name = '_concord_' || t.id || '_inplace_guard')")
                == .integer(0),
            "every synced table with columns gets its in-place write guard")
        #expect(
            try replica.database.scalar(
                "SELECT group_concat(t.name, ' ') FROM (SELECT name, id FROM _concord_tables ORDER BY id) AS t "
                    + "WHERE EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'trigger' "
                    + "AND name = '_concord_' || t.id || '_predelete')") == "lists reminders comments stats",
            "layout 12 keeps the key of a row being deleted from each table with a TEXT key (not settings' BLOB)")
        #expect(
            try replica.database.scalar(
                "SELECT group_concat(name, ' ') FROM sqlite_schema WHERE type = 'trigger' AND name GLOB '*_prereplace'")
                == "_concord_5_prereplace",
            "layout 12 keeps the row an INSERT OR REPLACE replaces in the one table with value-merged columns")
        #expect(try userTables(replica) == expected["user tables"])
        #expect(
            try lines(
                replica.database,
                """
                SELECT quote(t.name), quote(p.pk), quote(p.reason) FROM _concord_parked AS p
                JOIN _concord_tables AS t ON t.id = p.tbl ORDER BY t.name, p.pk
                """) == expected["parked rows"])
        #expect(
            try lines(
                replica.database,
                """
                SELECT quote(t.name), quote(r.pk) FROM _concord_revived AS r
                JOIN _concord_tables AS t ON t.id = r.tbl ORDER BY t.name, r.pk
                """)
                == (expected.header("revived rows").contains("no _concord_revived")
                    ? ["  'lists' | 'L3'"] : expected["revived rows"]),
            "a layout without the table shows its revived rows")
        #expect(
            try lines(replica.database, "SELECT quote(node), version FROM _concord_peers ORDER BY node")
                == expected["peers"])
        #expect(
            try replica.database.scalar(
                "SELECT count(*) FROM sqlite_schema WHERE name GLOB '_concord_*[a-z]_*' "
                    + "AND name NOT GLOB '_concord_[0-9]*' AND name NOT IN ('_concord_state', '_concord_nodes', '_concord_tables', "
                    + "'_concord_peers', '_concord_parked', '_concord_revived', '_concord_log', '_concord_relayed', "
                    + "'_concord_relayed_rows', '_concord_relayed_rows_ver', '_concord_conflicts', '_concord_keys', "
                    + "'_concord_retired', '_concord_retired_values', '_concord_retired_counts', "
                    + "'_concord_credits')"
            )
                == .integer(0),
            "no object keeps a name made of a user name")

        // It goes on capturing and syncing, with a peer that never saw the old layout.
        try replica.database.execute("UPDATE reminders SET title = 'after the upgrade' WHERE id = 'R1'")
        let peer = try Replica.inMemory(configuration: configuration(node: 4, clock: clock))
        try peer.database.execute(try schema(of: replica))
        for table in replica.tables.sorted(by: { $0.id < $1.id }) {  // parents first, as they were enabled
            try peer.enableSync(
                on: table.name, policy: table.policy,
                merges: Dictionary(uniqueKeysWithValues: zip(table.columns, table.merges).filter { $0.1 != .lww }))
        }
        let triggers = "SELECT name || ': ' || sql FROM sqlite_schema WHERE type = 'trigger' ORDER BY name"
        #expect(
            try lines(replica.database, triggers) == lines(peer.database, triggers),
            "the upgrade makes every trigger as enabling makes it now")
        try Replica.sync([replica, peer])
        #expect(try peer.canonicalDump() == replica.canonicalDump())
        #expect(try peer.check().isConsistent)
    }

    /// Layout 7 kept seen stamps for the replica's own writes only; after the upgrade every register of
    /// another device is taken to have seen everything below it, and the own ones keep what they saw.
    @Test func layout7KeepsWhatItsOwnWritesSawAndTakesOtherDevicesToHaveSeenEverything() throws {
        let directory = TemporaryDirectory()
        let (replica, _) = try Self.openCopy(of: "layout-7", in: directory)
        let changes = try replica.changes(since: 0)
        let merges = Dictionary(uniqueKeysWithValues: changes.tables.map { ($0.name, $0.merges) })
        var foreign = 0
        var kept: [String] = []
        for row in changes.rows {
            let seen = try #require(row.seen)
            for (column, register) in row.registers.columns.enumerated() {
                guard let register, merges[row.table]?[column] == .lww else {
                    #expect(seen[column] == nil)
                    continue
                }
                if register.stamp.node == replica.nodeID || register.stamp.node == Self.original {
                    if let entry = seen[column] { kept.append("\(row.table)/\(row.key) \(column) \(entry.node)") }
                } else {
                    foreign += 1
                    #expect(seen[column] == register.stamp, "\(row.table)/\(row.key) column \(column)")
                }
            }
        }
        #expect(foreign > 0, "the fixture holds other devices' registers")
        // What the fixture's seen section lists (device 1's re-insert of R2 over device 3's edit of due and
        // notes, its update of settings x'01' over device 2's), and what the writes still in the log, folded
        // by the first fold after opening, under the copy's new node id, saw of the file's old node: L1's name
        // and position, and the re-inserted R3.
        #expect(
            kept == [
                "lists/'L1' 0 \(node(1))", "lists/'L1' 2 \(node(1))",
                "reminders/'R2' 3 \(node(3))", "reminders/'R2' 4 \(node(3))",
            ] + (0...4).map { "reminders/'R3' \($0) \(node(1))" } + [
                "settings/X'01' 0 \(node(2))", "settings/X'01' 1 \(node(2))",
            ])
    }

    /// Layout 9 renews the delete triggers: in an upgraded layout-8 file, deleting a row the app inserted
    /// again since the last fold keeps the value its value-merged columns join with, the previous life's.
    @Test func layout8GetsDeleteTriggersThatKeepWhatAReinsertJoinsWith() throws {
        let directory = TemporaryDirectory()
        let (replica, _) = try Self.openCopy(of: "layout-8", in: directory)
        let before = try #require(try replica.registers(of: "stats", key: "S1")?.columns)
        try replica.database.execute(
            """
            DELETE FROM stats WHERE id = 'S1';
            INSERT INTO stats (id, views, best, first_seen, tags, label) VALUES ('S1', 0, NULL, NULL, '[]', 'again');
            DELETE FROM stats WHERE id = 'S1';
            """)
        _ = try replica.foldLocalWrites()
        let after = try #require(try replica.registers(of: "stats", key: "S1")?.columns)
        // tags (union) and best (max) join the new life's '[]' and NULL with what the row held: unchanged.
        #expect(after[3]?.value == before[3]?.value, "tags: \(String(describing: after[3]))")
        #expect(after[1]?.value == before[1]?.value, "best: \(String(describing: after[1]))")
        #expect(try replica.check().isConsistent)
    }

    /// The clock the fixture's file holds (`_concord_state.hlc`) when it records the file it was written in
    /// (from layout 5 on), so a copy of it is seen as one; `nil` before. Read without opening it as a replica.
    static func copyClock(of fixture: String) throws -> UInt64? {
        let database = try Database(path: fixtures.appendingPathComponent(fixture + ".sqlite").path, mode: .readOnly)
        let recordsFile =
            try database.scalar(
                "SELECT count(*) FROM pragma_table_info('_concord_state') WHERE name = 'file'") == .integer(1)
        guard recordsFile, let hlc = try database.scalar("SELECT hlc FROM _concord_state")?.integerValue else {
            return nil
        }
        return UInt64(hlc)
    }

    /// The old build's `dump` as a copy of its file reports it: each counter register a write still in the
    /// log wrote (a stamp newer than the file's clock `hlc`) is the original node's at that clock.
    static func credited(_ dump: String, counters: [String: Set<String>], after hlc: UInt64) -> String {
        var table = ""
        return dump.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            if line.hasPrefix("table ") { table = String(line.dropFirst(6).prefix { $0 != " " }) }
            guard line.hasPrefix("  reg "), let names = counters[table], !names.isEmpty else { return String(line) }
            return line.components(separatedBy: " | ").map { token -> String in
                guard let equals = token.firstIndex(of: "="), names.contains(String(token[..<equals])),
                    let at = token.range(of: " @", options: .backwards),
                    let stamp = UInt64(token[at.upperBound...].prefix { $0 != ":" }), stamp > hlc
                else { return token }
                return token[..<at.upperBound] + "\(hlc):\(original)"
            }.joined(separator: " | ")
        }.joined(separator: "\n")
    }

    /// This build opening, and so upgrading, a copy of `fixture`'s file in `directory`, as node 9, with a
    /// clock just after the fixture's last step (its clocks advanced one second per step from 2026-01-01).
    static func openCopy(of fixture: String, in directory: TemporaryDirectory) throws -> (Replica, ManualClock) {
        let path = directory.path("replica.sqlite")
        try FileManager.default.copyItem(
            atPath: fixtures.appendingPathComponent(fixture + ".sqlite").path, toPath: path)
        let clock = ManualClock(unixMilliseconds: epoch2026 + 60_000)
        return (try Replica(path: path, configuration: configuration(node: 9, clock: clock), create: false), clock)
    }

    @Test(arguments: [Int64(0), Metadata.layoutVersion + 1])
    func aLayoutThisBuildCannotReadIsRefusedUntouched(layout: Int64) throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock(unixMilliseconds: epoch2026)
        var replica: Replica? = try makeReplica(directory, "a.sqlite", node: 1, clock: clock)
        try replica!.database.execute("UPDATE _concord_state SET layout = \(layout)")
        replica = nil
        let before = try fileBytes(directory.path("a.sqlite"))
        #expect(throws: ReplicaError.unsupportedLayout(found: layout, supported: Metadata.layoutVersion)) {
            _ = try Replica(path: directory.path("a.sqlite"), configuration: configuration(node: 1, clock: clock))
        }
        #expect(try fileBytes(directory.path("a.sqlite")) == before)
    }

    /// The `CREATE TABLE` statements of the synced tables, parents first, for a peer to start from.
    private func schema(of replica: Replica) throws -> String {
        try ["lists", "reminders", "comments", "settings", "stats"].map {
            (try replica.database.scalar("SELECT sql FROM sqlite_schema WHERE name = ?", [.text($0)])?.textValue ?? "")
                + ";"
        }.joined(separator: "\n")
    }

    /// Each user table as the fixtures' expected files show it: `quote(v) typeof(v)` per value, in key order.
    private func userTables(_ replica: Replica) throws -> [String] {
        var result: [String] = []
        for table in ["lists", "reminders", "comments", "settings", "stats"] {
            let columns = try replica.database.query(
                "SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(table)]
            )
            .compactMap { $0[0].textValue }
            let key =
                try replica.database.scalar("SELECT name FROM pragma_table_info(?) WHERE pk = 1", [.text(table)])?
                .textValue ?? ""
            result.append("table \(table) (\(columns.joined(separator: ", ")))")
            let values = columns.map { "quote(\(quoteIdentifier($0))) || ' ' || typeof(\(quoteIdentifier($0)))" }
            result += try lines(
                replica.database,
                "SELECT \(values.joined(separator: ", ")) FROM \(table) ORDER BY \(quoteIdentifier(key))")
        }
        return result
    }

    private func lines(_ database: Database, _ sql: String) throws -> [String] {
        try database.query(sql).map { "  " + $0.map { $0.textValue ?? $0.description }.joined(separator: " | ") }
    }
}

/// The `## name` sections of an expected file, each as its lines.
private struct Sections {
    private var sections: [String: [String]] = [:]
    private var headers: [String: String] = [:]

    init(_ url: URL) throws {
        var current = ""
        for line in try String(contentsOf: url, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        {
            if line.hasPrefix("## ") {
                current = String(line.dropFirst(3).prefix { $0 != ":" })
                sections[current] = []
                headers[current] = String(line)
            } else if !line.hasPrefix("# ") && !current.isEmpty {
                sections[current, default: []].append(String(line))
            }
        }
        for (name, lines) in sections { sections[name] = Array(lines.reversed().drop { $0.isEmpty }.reversed()) }
    }

    subscript(name: String) -> [String] { sections[name] ?? [] }

    /// The section's whole heading line.
    func header(_ name: String) -> String { headers[name] ?? "" }

    subscript(name: String) -> String { self[name].joined(separator: "\n") + "\n" }
}
