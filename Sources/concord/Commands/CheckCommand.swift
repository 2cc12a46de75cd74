import Concord

/// The arguments of `concord check`.
struct CheckOptions: ParsableOptions {
    @Positional(help: "The replica's database file.")
    var db: String
}

extension Subcommand {
    static let check = Subcommand(
        "check",
        abstract: "Verify that a replica's tables are exactly what its registers prescribe.",
        discussion: """
            Exits 0 when the user tables equal the projection of the registers and SQLite's \
            integrity and foreign-key checks pass; otherwise prints each problem and exits 1.
            """,
        options: CheckOptions.self
    ) { options, output in
        let replica = try Replica(path: options.db, create: false)
        let report = try replica.check()
        if report.isConsistent {
            print(
                "\(options.db): ok\(replica.schemaRefusals.isEmpty ? "" : " (but for the tables below)")", to: &output)
        } else {
            print("\(options.db): \(report.problems.count) problem(s)", to: &output)
            print(report.description, to: &output)
        }
        try output.failOnSchemaRefusals(of: [(options.db, replica)])
        if !report.isConsistent { throw ExitCode.failure }
    }
}
