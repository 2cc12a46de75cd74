import Concord
import Foundation

/// Opens the benchmark's databases the same way on both sides, and measures them.
///
/// Plain and Concord files are both file-backed WAL databases with the
/// workload's schema, so the only difference a phase sees is Concord.
///
/// ```swift
/// let plain = try BenchmarkDatabases.openPlain("/tmp/plain.sqlite")
/// let bytes = try BenchmarkDatabases.checkpointedSize(plain, "/tmp/plain.sqlite")
/// ```
enum BenchmarkDatabases {
    static func openPlain(_ path: String) throws -> Database {
        let database = try Database(path: path)
        try database.execute("PRAGMA journal_mode = WAL")
        try database.execute(BenchmarkWorkload.schema)
        return database
    }

    static func openReplica(_ path: String) throws -> Replica {
        let replica = try Replica(path: path)
        try replica.database.execute("PRAGMA journal_mode = WAL")
        try replica.database.execute(BenchmarkWorkload.schema)
        try replica.enableSync(on: "items")
        return replica
    }

    /// The main file's size in bytes after a full checkpoint.
    static func checkpointedSize(_ database: Database, _ path: String) throws -> Double {
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return Double(try fileSize(path))
    }

    static func fileSize(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.size] as? NSNumber)?.intValue ?? 0
    }
}
