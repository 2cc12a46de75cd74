import Concord

/// The arguments of `concord sync`.
struct SyncOptions: ParsableOptions {
    @Positional(minimum: 2, help: "Two or more replica database files.")
    var db: [String]
}

extension Subcommand {
    static let sync = Subcommand(
        "sync",
        abstract: "Exchange changes between replicas until they all hold the same changes.",
        discussion: """
            Every replica reads every other one from the version it last read, so a sync \
            moves only what changed since the last one.
            """,
        options: SyncOptions.self
    ) { options, output in
        let paths = options.db
        let replicas = try paths.map { try Replica(path: $0, create: false) }
        do {
            let report = try Replica.sync(replicas)
            print(
                "synced \(replicas.count) replicas: \(report.applied) rows merged in \(report.rounds) rounds",
                to: &output)
            try output.failOnSchemaRefusals(of: Array(zip(paths, replicas)))
        } catch let incomplete as SyncIncomplete {
            // Every direction that could go did; say which could not, by file, and fail.
            let report = incomplete.report
            print(
                "synced \(replicas.count) replicas: \(report.applied) rows merged in \(report.rounds) rounds, "
                    + "\(report.refusals.count) direction(s) refused", to: &output)
            for refusal in report.refusals {
                print(
                    "Error: \(paths[refusal.target]) refused the changes of \(paths[refusal.source]): \(refusal.reason)",
                    to: &output.standardError)
            }
            try output.failOnSchemaRefusals(of: Array(zip(paths, replicas)))
            throw ExitCode.failure
        }
    }
}
