import Concord
import Foundation

/// Measures Concord against plain SQLite, phase by phase, in one process.
///
/// Both sides run the same workload on file-backed WAL databases in the same
/// run, so the ratios hold on whatever machine runs them. Each phase is
/// repeated `runs` times on fresh files and the medians are compared.
struct BenchmarkRunner {
    let rows: Int
    let runs: Int
    let seed: UInt64

    /// One compared phase: medians in seconds, and the target ratio it is held to.
    struct Phase: Encodable, Equatable {
        var name: String
        var plain: Double
        var concord: Double
        var target: Double?
        var ratio: Double { plain > 0 ? concord / plain : 0 }
        var withinTarget: Bool { target.map { ratio <= $0 } ?? true }

        enum CodingKeys: String, CodingKey { case name, plain, concord, target, ratio }

        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(plain, forKey: .plain)
            try container.encode(concord, forKey: .concord)
            try container.encodeIfPresent(target, forKey: .target)
            try container.encode(ratio, forKey: .ratio)
        }
    }

    struct Report: Encodable {
        var rows: Int
        var runs: Int
        var sqlite: String
        var phases: [Phase]
    }

    /// Samples of one run, keyed by phase name.
    private typealias Samples = [String: (plain: Double, concord: Double)]

    func run(progress: (String) -> Void = { _ in }) throws -> Report {
        let workload = BenchmarkWorkload(count: rows, seed: seed)
        var samples: [Samples] = []
        for run in 1...runs {
            progress("run \(run)/\(runs)")
            samples.append(try measureOnce(workload))
        }
        let targets: [(String, Double?)] = [
            ("insert", 2.0), ("update", 2.0), ("export", nil), ("apply", 3.0), ("size", 1.8),
            ("size after update", nil), ("point reads", 1.1),
        ]
        let phases = targets.map { name, target in
            Phase(name: name, plain: median(samples.compactMap { $0[name]?.plain }),
                  concord: median(samples.compactMap { $0[name]?.concord }), target: target)
        }
        return Report(rows: rows, runs: runs, sqlite: Database.libraryVersion, phases: phases)
    }

    private func measureOnce(_ workload: BenchmarkWorkload) throws -> Samples {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("concord-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        var samples: Samples = [:]

        let plain = try Self.openPlain(path("plain.sqlite"))
        let replica = try Self.openReplica(path("concord.sqlite"))
        samples["insert"] = (try time { try workload.insert(into: plain) },
                             try time { try workload.insert(into: replica.database) })
        samples["size"] = (try Self.checkpointedSize(plain, path("plain.sqlite")),
                           try Self.checkpointedSize(replica.database, path("concord.sqlite")))
        let readCount = min(workload.rows.count, 100_000)
        samples["point reads"] = (try time { _ = try workload.pointReads(plain, count: readCount) },
                                  try time { _ = try workload.pointReads(replica.database, count: readCount) })
        samples["update"] = (try time { try workload.updateEveryRow(in: plain) },
                             try time { try workload.updateEveryRow(in: replica.database) })
        samples["size after update"] = (try Self.checkpointedSize(plain, path("plain.sqlite")),
                                        try Self.checkpointedSize(replica.database, path("concord.sqlite")))

        // Apply is compared with inserting the same rows into a fresh plain table.
        let freshPlain = try Self.openPlain(path("plain-fresh.sqlite"))
        let plainInsert = try time { try workload.insert(into: freshPlain) }
        var encoded: [UInt8] = []
        let export = try time { encoded = try replica.changes(since: 0).encoded() }
        let target = try Self.openReplica(path("concord-fresh.sqlite"))
        let apply = try time { try target.apply(try Changeset(decoding: encoded)) }
        samples["export"] = (plainInsert, export)
        samples["apply"] = (plainInsert, apply)
        return samples
    }

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
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return Double((attributes[.size] as? NSNumber)?.int64Value ?? 0)
    }

    private func time(_ body: () throws -> Void) throws -> Double {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    private func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2]
            : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
