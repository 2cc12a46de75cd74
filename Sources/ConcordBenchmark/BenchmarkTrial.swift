import Concord
import Foundation

/// One run of every phase at one row count, on fresh files in a fresh temporary directory.
///
/// Concord's capture appends to a write log that the next export, apply or
/// check folds into the registers. So a trial times the insert and update as
/// the app feels them (trigger capture only), times each fold separately,
/// and measures sizes only after the fold and a checkpoint, in steady state;
/// the export then pays for exporting alone.
///
/// On a shared machine the two sides of a comparison must see the same
/// conditions: before each timed step the file system is flushed (so neither
/// side pays for writing back the other's pages), the side that goes first
/// alternates from run to run, and apply is set against a plain insert timed
/// right next to it.
///
/// ```swift
/// let outcome = try BenchmarkTrial(workload: workload, recentWrites: 100, importProbeExecutable: nil).run { print($0) }
/// outcome.samples[.insert]   // (plain: 0.64, concord: 1.2)
/// ```
struct BenchmarkTrial {
    let workload: BenchmarkWorkload
    /// Writes made after the bulk phases, for the export since a recent version.
    let recentWrites: Int
    /// The `concord` executable to import the full changeset with in a child process, reading its peak memory.
    let importProbeExecutable: String?
    /// Whether plain SQLite goes first in each timed pair (runs alternate).
    var plainFirst = true

    struct Sample {
        var plain: Double
        var concord: Double
    }

    struct Outcome {
        var samples: [BenchmarkPhaseKind: Sample] = [:]
        var recentSeconds = 0.0
        var recentChanges = 0
        var recentBytes = 0
        var probe: ImportProbe?
        /// Plain and Concord file sizes after each round of the update, the first round's included.
        var updateRounds: [Sample] = []
    }

    struct Mismatch: Error, CustomStringConvertible {
        var description: String
    }

    /// The trial's files, all in one temporary directory.
    private struct Files {
        let directory: URL
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        var plain: String { path("plain.sqlite") }
        var concord: String { path("concord.sqlite") }
        var changes: String { path("changes.concord") }
    }

    /// Runs every phase in order: insert, point reads, update, the other client's insert, update and nine
    /// more update rounds, export, apply, recent export, conflicts, import probe.
    func run(progress: (String) -> Void) throws -> Outcome {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("concord-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = Files(directory: directory)
        var outcome = Outcome()
        let plain = try BenchmarkDatabases.openPlain(files.plain)
        let replica = try BenchmarkDatabases.openReplica(files.concord)

        let plainInsert = try writeThenFold(
            .insert, .foldInserts, .insertWithFold, replica, &outcome, progress,
            plain: { try workload.insert(into: plain) },
            concord: { try workload.insert(into: replica.database) }
        ).plain
        let plainSize = try BenchmarkDatabases.checkpointedSize(plain, files.plain)
        outcome.samples[.size] = Sample(
            plain: plainSize, concord: try BenchmarkDatabases.checkpointedSize(replica.database, files.concord))
        progress("point reads")
        outcome.samples[.pointReads] = try pointReads(plain, replica.database)
        _ = try writeThenFold(
            .update, .foldUpdates, .updateWithFold, replica, &outcome, progress,
            plain: { try workload.updateEveryRow(in: plain) },
            concord: { try workload.updateEveryRow(in: replica.database) })
        outcome.samples[.sizeAfterUpdate] = Sample(
            plain: try BenchmarkDatabases.checkpointedSize(plain, files.plain),
            concord: try BenchmarkDatabases.checkpointedSize(replica.database, files.concord))
        let client = try measureOtherClient(files, &outcome, progress)
        progress(BenchmarkPhaseKind.sizeAfterTenUpdates.rawValue)
        try measureUpdateRounds(files, client, &outcome)
        progress("export")
        outcome.samples[.export] = Sample(plain: plainInsert, concord: try timeExport(replica, to: files.changes))
        progress("apply")
        let applied = try measureApply(files, plainSize: plainSize, &outcome)
        progress("export since a recent version")
        let recent = try recentExport(replica)
        (outcome.recentSeconds, outcome.recentChanges, outcome.recentBytes) = (
            recent.seconds, recent.changes, recent.bytes.count
        )
        progress(BenchmarkPhaseKind.applyConflicts.rawValue)
        try measureConflicts(files, replica, peer: applied, plain, &outcome)

        if let executable = importProbeExecutable {
            progress("streamed import in a child process")
            outcome.probe = try probeImport(with: executable, files, recent: recent.bytes)
        }
        return outcome
    }

    /// Times a write phase on both sides, then the fold it leaves; records the write, the fold and their sum.
    private func writeThenFold(
        _ write: BenchmarkPhaseKind, _ fold: BenchmarkPhaseKind, _ both: BenchmarkPhaseKind, _ replica: Replica,
        _ outcome: inout Outcome, _ progress: (String) -> Void,
        plain: () throws -> Void, concord: () throws -> Void
    ) throws -> Sample {
        progress(write.rawValue)
        let timed = try pair(plain, concord)
        progress(fold.rawValue)
        let folding = try timeFold(replica, expecting: workload.rows.count)
        outcome.samples[write] = timed
        outcome.samples[fold] = Sample(plain: timed.plain, concord: folding)
        outcome.samples[both] = Sample(plain: timed.plain, concord: timed.concord + folding)
        return timed
    }

    /// Times a streamed export of every change to `path`, on a flushed file system.
    private func timeExport(_ replica: Replica, to path: String) throws -> Double {
        settle()
        return try Stopwatch.time {
            let sink = try FileByteSink(path: path)
            try replica.exportChanges(since: 0, to: sink)
            try sink.close()
        }
    }

    /// The files the other client wrote: plain SQLite's, and the replica's with its own connection.
    private struct ClientFiles {
        let plain: Database
        let replica: Replica
    }

    /// Times the insert and the update written by another client: a second, plain connection on SQLite's
    /// default VFS, on a replica file of its own, against plain SQLite on a file of its own.
    ///
    /// A replica's own connection keeps the statement journal the capture trigger's `julianday('now')`
    /// causes in memory; an app writing through GRDB, the `sqlite3` shell or another process uses the
    /// default VFS, where that journal spills to a temporary file once it outgrows 64 KiB. This is what
    /// those apps pay.
    private func measureOtherClient(
        _ files: Files, _ outcome: inout Outcome, _ progress: (String) -> Void
    ) throws -> ClientFiles {
        let plain = try BenchmarkDatabases.openPlain(files.path("plain-client.sqlite"))
        let replica = try BenchmarkDatabases.openReplica(files.path("client.sqlite"))
        let client = try Database(path: files.path("client.sqlite"))
        progress(BenchmarkPhaseKind.insertOtherClient.rawValue)
        outcome.samples[.insertOtherClient] = try pair(
            { try workload.insert(into: plain) }, { try workload.insert(into: client) })
        progress(BenchmarkPhaseKind.updateOtherClient.rawValue)
        outcome.samples[.updateOtherClient] = try pair(
            { try workload.updateEveryRow(in: plain) }, { try workload.updateEveryRow(in: client) })
        // Every write the other client made was captured: the replica folds one per insert and update.
        let folded = try replica.foldLocalWrites()
        guard folded == 2 * workload.rows.count else {
            throw Mismatch(
                description: "the other client's writes folded \(folded), expected \(2 * workload.rows.count)")
        }
        return ClientFiles(plain: plain, replica: replica)
    }

    /// The size after each of ten rounds of the update, each folded and checkpointed on both sides (the other
    /// client's update is the first), and after the tenth as a phase: what Concord keeps per row must not grow
    /// with the rounds.
    private func measureUpdateRounds(_ files: Files, _ client: ClientFiles, _ outcome: inout Outcome) throws {
        for round in 1...10 {
            if round > 1 {
                try workload.updateEveryRow(in: client.plain)
                try workload.updateEveryRow(in: client.replica.database)
                _ = try timeFold(client.replica, expecting: workload.rows.count)
            }
            outcome.updateRounds.append(
                Sample(
                    plain: try BenchmarkDatabases.checkpointedSize(client.plain, files.path("plain-client.sqlite")),
                    concord: try BenchmarkDatabases.checkpointedSize(
                        client.replica.database, files.path("client.sqlite"))))
        }
        outcome.samples[.sizeAfterTenUpdates] = outcome.updateRounds.last
    }

    /// Applies the exported changeset to a fresh replica, timed against a plain insert into a fresh table.
    /// Returns the replica it applied to, for the conflict phase.
    private func measureApply(_ files: Files, plainSize: Double, _ outcome: inout Outcome) throws -> Replica {
        let rows = workload.rows.count
        let target = try BenchmarkDatabases.openReplica(files.path("applied.sqlite"))
        let plainTarget = try BenchmarkDatabases.openPlain(files.path("plain-applied.sqlite"))
        var report = ApplyReport()
        outcome.samples[.apply] = try pair(
            { try workload.insert(into: plainTarget) },
            { report = try target.applyChangeset(atPath: files.changes) })
        guard report.applied == rows else {
            throw Mismatch(description: "apply merged \(report.applied) of \(rows) rows (\(report))")
        }
        outcome.samples[.sizeApplied] = Sample(
            plain: plainSize,
            concord: try BenchmarkDatabases.checkpointedSize(target.database, files.path("applied.sqlite")))
        return target
    }

    /// Applies a peer's edit of every row's title to this replica, which edited every title later without
    /// having seen the peer's: each row's incoming value loses and is logged as a conflict. Timed against a
    /// plain update of every title. The peer is the replica `measureApply` filled, which holds every row.
    private func measureConflicts(
        _ files: Files, _ replica: Replica, peer: Replica, _ plain: Database, _ outcome: inout Outcome
    ) throws {
        let rows = workload.rows.count
        let peerChanges = files.path("conflicts.concord")
        do {
            try workload.retitleEveryRow(in: peer.database, tag: "peer")
            let sink = try FileByteSink(path: peerChanges)
            try peer.exportChanges(since: 0, to: sink)
            try sink.close()
        }
        try workload.retitleEveryRow(in: replica.database, tag: "here")
        try replica.foldLocalWrites()
        outcome.samples[.applyConflicts] = try pair(
            { try workload.retitleEveryRow(in: plain, tag: "plain") },
            { try replica.applyChangeset(atPath: peerChanges) })
        let recorded = try replica.conflicts().count
        let kept = min(rows, replica.configuration.conflictRetention.maxPerTable)
        guard recorded == kept else {
            throw Mismatch(description: "the conflict phase logged \(recorded) conflicts, expected \(kept)")
        }
    }

    /// Imports the full changeset with `executable` in a child process, after the recent one for a baseline.
    private func probeImport(with executable: String, _ files: Files, recent: [UInt8]) throws -> ImportProbe {
        let recentPath = files.path("recent.concord")
        try Data(recent).write(to: URL(fileURLWithPath: recentPath))
        return try ImportProbeRunner(executable: executable, directory: files.directory)
            .run(changeset: files.changes, rows: workload.rows.count, baseline: recentPath)
    }

    /// Times the plain and the Concord side of one phase, each on a flushed file system, in this run's order.
    private func pair(_ plain: () throws -> Void, _ concord: () throws -> Void) throws -> Sample {
        var sample = Sample(plain: 0, concord: 0)
        for side in plainFirst ? [true, false] : [false, true] {
            settle()
            if side { sample.plain = try Stopwatch.time(plain) } else { sample.concord = try Stopwatch.time(concord) }
        }
        return sample
    }

    /// Writes back every dirty page the system holds, so a timed step does not pay for an earlier one's.
    private func settle() { sync() }

    /// Times `foldLocalWrites()` and checks it folded one write per row.
    private func timeFold(_ replica: Replica, expecting rows: Int) throws -> Double {
        settle()
        var folded = 0
        let seconds = try Stopwatch.time { folded = try replica.foldLocalWrites() }
        guard folded == rows else { throw Mismatch(description: "fold stamped \(folded) writes, expected \(rows)") }
        return seconds
    }

    /// How many timed passes of point reads each side makes.
    static let readPasses = 2

    /// Point reads on both sides after an untimed warm-up pass, so neither pays for a cold cache.
    ///
    /// Reads cost the same with Concord (it adds nothing to the read path),
    /// so the ratio shows how fair the measurement is. Each side is timed
    /// twice, in the order ABBA (BAAB on alternate runs), and the passes
    /// summed: a machine that speeds up or slows down during the phase then
    /// weighs on both sides alike, where one pass each after the other would
    /// charge the drift to whichever went second.
    private func pointReads(_ plain: Database, _ concord: Database) throws -> Sample {
        let count = min(workload.rows.count, 100_000)
        for database in [plain, concord] { _ = try workload.pointReads(database, count: count) }
        var sample = Sample(plain: 0, concord: 0)
        let order = plainFirst ? [true, false, false, true] : [false, true, true, false]
        assert(order.filter { $0 }.count == Self.readPasses)
        for isPlain in order {
            var found = 0
            let seconds = try Stopwatch.time {
                found = try workload.pointReads(isPlain ? plain : concord, count: count)
            }
            guard found == count else {
                throw Mismatch(
                    description: "point reads found \(found) \(isPlain ? "plain" : "Concord") rows of \(count)")
            }
            if isPlain { sample.plain += seconds } else { sample.concord += seconds }
        }
        return sample
    }

    /// Makes a few more writes, folds them, then times exporting only what changed since just before them.
    private func recentExport(_ replica: Replica) throws -> (seconds: Double, changes: Int, bytes: [UInt8]) {
        let before = try replica.version
        try workload.touch(replica.database, count: recentWrites)
        try replica.foldLocalWrites()
        let sink = MemoryByteSink()
        let seconds = try Stopwatch.time { try replica.exportChanges(since: before, to: sink) }
        return (seconds, try Changeset(decoding: sink.bytes).rows.count, sink.bytes)
    }
}
