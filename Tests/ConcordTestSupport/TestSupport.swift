import Foundation
import Concord

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
public func makeReplica(_ directory: TemporaryDirectory, _ name: String, node id: UInt8, clock: ManualClock,
                 policy: TablePolicy = .column) throws -> Replica {
    let replica = try Replica(path: directory.path(name), configuration: configuration(node: id, clock: clock))
    try replica.database.execute(remindersSchema)
    try replica.enableSync(on: "reminders", policy: policy)
    return replica
}

/// Runs the `sqlite3` shell on `database` with `sql` on standard input; returns its output.
@discardableResult
public func sqlite3Shell(_ database: String, _ sql: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    process.arguments = ["-batch", database]
    let input = Pipe(), output = Pipe(), errors = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    input.fileHandleForWriting.write(Data(sql.utf8))
    try input.fileHandleForWriting.close()
    let out = output.fileHandleForReading.readDataToEndOfFile()
    let err = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0, err.isEmpty else {
        throw ShellError(message: String(decoding: err, as: UTF8.self), status: process.terminationStatus)
    }
    return String(decoding: out, as: UTF8.self)
}

public struct ShellError: Error, CustomStringConvertible {
    public let message: String
    public let status: Int32
    public var description: String { "sqlite3 exited \(status): \(message)" }
}

/// Exchanges changes both ways until neither side has anything new.
public func syncBoth(_ a: Replica, _ b: Replica) throws { try Replica.sync([a, b]) }

