import Concord

extension Subcommand {
    static let sync = Subcommand(CommandSpec(
        name: "sync",
        abstract: "Exchange changes between replicas until they all hold the same changes.",
        discussion: """
            Every replica reads every other one from the version it last read, so a sync \
            moves only what changed since the last one.
            """,
        arguments: [.positional("db", .repeating(minimum: 2), help: "Two or more replica database files.")])
    ) { arguments, output in
        let paths = arguments.positionals("db")
        let replicas = try paths.map { try Replica(path: $0, create: false) }
        do {
            let report = try Replica.sync(replicas)
            print("synced \(replicas.count) replicas: \(report.applied) rows merged in \(report.rounds) rounds", to: &output)
        } catch let incomplete as SyncIncomplete {
            // Every direction that could go did; say which could not, by file, and fail.
            let report = incomplete.report
            print("synced \(replicas.count) replicas: \(report.applied) rows merged in \(report.rounds) rounds, "
                  + "\(report.refusals.count) direction(s) refused", to: &output)
            for refusal in report.refusals {
                print("Error: \(paths[refusal.target]) refused the changes of \(paths[refusal.source]): \(refusal.reason)",
                      to: &output.standardError)
            }
            throw ExitCode.failure
        }
    }
}
