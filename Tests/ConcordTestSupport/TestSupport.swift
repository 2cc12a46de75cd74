import Concord
import ConcordTestProcess
import Foundation

/// A fresh directory under the system temporary directory, removed when the value is released.
public final class TemporaryDirectory {
    public let url: URL

    public init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("concord-tests-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

/// Whether SQLite keeps no memory statistics in this test process, as `Tests/ConcordTestProcess` sets up when
/// the test bundle loads (so tests running side by side take no process-wide lock on every allocation).
public var sqliteMemoryStatisticsAreOff: Bool { concord_test_process_sqlite_memory_statistics_off() != 0 }

/// A node id whose bytes are all `byte`, so tests can name the winner of a tie.
public func node(_ byte: UInt8) -> NodeID { NodeID(bytes: Array(repeating: byte, count: 16))! }

/// A replica configuration with a manual clock and a fixed node id.
public func configuration(node id: UInt8, clock: ManualClock) -> Replica.Configuration {
    Replica.Configuration(clock: clock, makeNodeID: { node(id) })
}

/// Starting time for manual clocks: 2026-01-01T00:00:00Z.
public let epoch2026: Int64 = 1_767_225_600_000

/// The reminders schema most engine tests use.
public let remindersSchema = """
    CREATE TABLE reminders (id TEXT PRIMARY KEY NOT NULL, title TEXT, done INTEGER NOT NULL DEFAULT 0, notes TEXT);
    """

/// A file-backed replica with the reminders table synced.
public func makeReplica(
    _ directory: TemporaryDirectory, _ name: String, node id: UInt8, clock: ManualClock,
    policy: TablePolicy = .column
) throws -> Replica {
    let replica = try Replica(path: directory.path(name), configuration: configuration(node: id, clock: clock))
    try replica.database.execute(remindersSchema)
    try replica.enableSync(on: "reminders", policy: policy)
    return replica
}

/// The `sqlite3` shell the tests run: `CONCORD_SQLITE3_SHELL`, or the system's.
///
/// Why: a run against another SQLite library (`Scripts/other-sqlite.sh`) needs a shell built from the same
/// source; the system's refuses to start beside another library ("SQLite header and source version
/// mismatch").
public let sqlite3ShellURL = URL(
    fileURLWithPath: ProcessInfo.processInfo.environment["CONCORD_SQLITE3_SHELL"] ?? "/usr/bin/sqlite3")

/// Runs the `sqlite3` shell on `database` with `sql` on standard input; returns its output.
@discardableResult
public func sqlite3Shell(_ database: String, _ sql: String) throws -> String {
    let process = Process()
    process.executableURL = sqlite3ShellURL
    process.arguments = ["-batch", database]
    let input = Pipe()
    let output = Pipe()
    let errors = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    // A shell that exits before reading (it refused to start) fails the write; its own error says why.
    let written = Result { try input.fileHandleForWriting.write(contentsOf: Data(sql.utf8)) }
    try input.fileHandleForWriting.close()
    let out = output.fileHandleForReading.readDataToEndOfFile()
    let err = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0, err.isEmpty else {
        throw ShellError(message: String(decoding: err, as: UTF8.self), status: process.terminationStatus)
    }
    try written.get()
    return String(decoding: out, as: UTF8.self)
}

/// Runs `sql` with the `sqlite3` shell on `database` as a write made at `unixMilliseconds`: every
/// row Concord's capture triggers log for it records that time instead of the shell's clock.
///
/// Black-box tests order writes this way rather than by sleeping between them. A write's stamp
/// takes the time its log row records (the replica's clock moves only forward, so a time behind
/// it gives the next tick instead), so writes given times past everything a replica has stamped,
/// a second apart, are ordered the same way on every run however fast or loaded the machine is:
///
/// ```swift
/// let now = unixMillisecondsNow()   // after the set-up: later than every stamp so far
/// try sqlite3Shell(b, "UPDATE t SET x = 'earlier';", writtenAt: now + 1000)
/// try sqlite3Shell(a, "UPDATE t SET x = 'later';", writtenAt: now + 2000)
/// ```
///
/// Keep such times within a minute of now: a peer refuses stamps more than 5 minutes ahead of its clock.
@discardableResult
public func sqlite3Shell(_ database: String, _ sql: String, writtenAt unixMilliseconds: Int64) throws -> String {
    // A julian day as SQLite's 'now' gives it: whole milliseconds divided by 86,400,000.
    try sqlite3Shell(
        database,
        """
        CREATE TEMP TABLE concord_tests_before AS SELECT coalesce(max(seq), 0) AS seq FROM _concord_log;
        \(sql)
        UPDATE _concord_log SET at = (\(unixMilliseconds) + 210866760000000) / 86400000.0
            WHERE seq > (SELECT seq FROM temp.concord_tests_before);
        """)
}

/// This machine's clock, in milliseconds since the Unix epoch.
public func unixMillisecondsNow() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

public struct ShellError: Error, CustomStringConvertible {
    public let message: String
    public let status: Int32
    public var description: String { "sqlite3 exited \(status): \(message)" }
}

/// Exchanges changes both ways until neither side has anything new.
public func syncBoth(_ a: Replica, _ b: Replica) throws { try Replica.sync([a, b]) }

/// `count` in-memory replicas on `clock`, node ids 1, 2, …, each set up by `setUp` with its index
/// (its schema, the tables it syncs), so that tests say only how the devices differ.
///
/// ```swift
/// let devices = try inMemoryReplicas(2, clock: clock) { replica, index in
///     try replica.database.execute("CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, n \(["TEXT", "INTEGER"][index]))")
///     try replica.enableSync(on: "t")
/// }
/// ```
public func inMemoryReplicas(
    _ count: Int, clock: ManualClock, setUp: (Replica, Int) throws -> Void
) throws -> [Replica] {
    try (0..<count).map { index in
        let replica = try Replica.inMemory(configuration: configuration(node: UInt8(index + 1), clock: clock))
        try setUp(replica, index)
        return replica
    }
}

/// The SQL of a table rebuild as SQLite documents it for the schema changes ALTER TABLE cannot make, in one
/// transaction: create `<table>_new` with `columns` (the definitions inside the parentheses), copy the old
/// table's rows into it (`copying` each, of the rows `condition` keeps), drop the old table, rename the new.
///
/// ```swift
/// try replica.database.execute(rebuildSQL("t", columns: "id TEXT PRIMARY KEY NOT NULL, v CHECK (length(v) < 9)"))
/// ```
public func rebuildSQL(_ table: String, columns: String, copying values: String = "*", where condition: String = "1")
    -> String
{
    """
    BEGIN;
    CREATE TABLE \(table)_new (\(columns));
    INSERT INTO \(table)_new SELECT \(values) FROM \(table) WHERE \(condition);
    DROP TABLE \(table);
    ALTER TABLE \(table)_new RENAME TO \(table);
    COMMIT;
    """
}
