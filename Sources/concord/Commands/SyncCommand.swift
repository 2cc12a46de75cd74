import Concord

/// The arguments of `concord sync`.
struct SyncOptions: ParsableOptions {
    @Positional(minimum: 2, help: "Two or more replica database files.")
    var db: [String]
    @Flag(help: "Print machine-readable JSON: the counts and, per replica, the keys whose shown row changed.")
    var json = false
    @Flag(short: "q", help: "No progress line (it is drawn on standard error only when that is a terminal).")
    var quiet = false
}

/// An error met on one of several files, naming it.
///
/// ```swift
/// throw FileFailure(path: "c.db", error: error)   // Error: c.db: SQLite error 5: database is locked ...
/// ```
struct FileFailure: Error, CustomStringConvertible {
    let path: String
    let error: any Error

    var description: String { "\(path): \(error)" }
}

/// What `concord sync --json` prints.
private struct SyncSummary: Encodable {
    struct Changed: Encodable {
        var db: String
        var changes: MergeReport
    }

    var rounds: Int
    var settled: Bool
    var applied: Int
    var refused: [String]
    var replicas: [Changed]

    init(_ report: SyncReport, paths: [String]) {
        rounds = report.rounds
        settled = report.settled
        applied = report.applied
        refused = report.refusals.map { $0.sentence(paths: paths) }
        replicas = zip(paths, report.changes).map { Changed(db: $0, changes: $1) }
    }
}

extension Subcommand {
    static let sync = Subcommand(
        "sync",
        abstract: "Exchange changes between replicas until they all hold the same changes.",
        discussion: """
            Every replica reads every other one from the version it last read, so a sync \
            moves only what changed since the last one. While apps keep writing faster than \
            a round runs, it stops after \(Replica.defaultMaxSyncRounds) rounds, having exchanged \
            everything the replicas held when it began, and says so; what was written since \
            goes with the next sync.
            """,
        options: SyncOptions.self
    ) { options, output in
        output.quiet = options.quiet
        let paths = options.db
        let replicas = try paths.map { path in
            do { return try Replica(path: path, create: false) } catch { throw FileFailure(path: path, error: error) }
        }
        // `Replica.sync` is one call that reports nothing until it returns: the line shows the time it has taken.
        let progress = output.progressLine("sync", unit: .share)
        progress.phase("exchanging changes among \(replicas.count) replicas until none learns more")
        progress.startTicking()
        defer { progress.clear() }
        do {
            let report = try Replica.sync(replicas)
            progress.clear()
            if options.json {
                try output.printJSON(SyncSummary(report, paths: paths))
            } else {
                print(
                    "synced \(replicas.count) replicas: \(report.applied) rows merged in \(report.rounds) rounds",
                    to: &output)
                if !report.settled {
                    print(
                        "stopped after \(report.rounds) rounds while apps kept writing: everything the replicas held "
                            + "when the sync began was exchanged; what was written since goes with the next sync",
                        to: &output)
                }
            }
            try output.failOnSchemaRefusals(of: Array(zip(paths, replicas)))
        } catch let stopped as SyncStopped {
            progress.clear()
            // What went before stays merged; the rest waits for the next sync.
            if options.json { try output.printJSON(SyncSummary(stopped.report, paths: paths)) }
            print(
                "Error: sync stopped while the changes of \(paths[stopped.source]) went to \(paths[stopped.target]): "
                    + "\(stopped.error)", to: &output.standardError)
            throw ExitCode.failure
        } catch let incomplete as SyncIncomplete {
            progress.clear()
            // Every direction that could go did; say which could not, by file, and fail.
            let report = incomplete.report
            if options.json {
                try output.printJSON(SyncSummary(report, paths: paths))
            } else {
                print(
                    "synced \(replicas.count) replicas: \(report.applied) rows merged in \(report.rounds) rounds, "
                        + "\(report.refusals.count) direction(s) refused", to: &output)
            }
            for refusal in report.refusals {
                print("Error: \(refusal.sentence(paths: paths))", to: &output.standardError)
            }
            try output.failOnSchemaRefusals(of: Array(zip(paths, replicas)))
            throw ExitCode.failure
        }
    }
}

extension SyncReport.Refusal {
    /// Which database refused which one's changes (or could not send them), and why, naming them by path.
    func sentence(paths: [String]) -> String {
        atSource
            ? "\(paths[source]) could not send its changes (to \(paths[target])): \(reason)"
            : "\(paths[target]) refused the changes of \(paths[source]): \(reason)"
    }
}
