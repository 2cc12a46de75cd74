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
        let replicas = try arguments.positionals("db").map { try Replica(path: $0, create: false) }
        let report = try Replica.sync(replicas)
        print("synced \(replicas.count) replicas: \(report.applied) rows merged in \(report.rounds) rounds", to: &output)
    }
}
