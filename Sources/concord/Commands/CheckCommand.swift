import Concord

extension Subcommand {
    static let check = Subcommand(CommandSpec(
        name: "check",
        abstract: "Verify that a replica's tables are exactly what its registers prescribe.",
        discussion: """
            Exits 0 when the user tables equal the projection of the registers and SQLite's \
            integrity and foreign-key checks pass; otherwise prints each problem and exits 1.
            """,
        arguments: [.positional("db", help: "The replica's database file.")])
    ) { arguments, output in
        let path = try arguments.required("db")
        let report = try Replica(path: path, create: false).check()
        if report.isConsistent {
            print("\(path): ok", to: &output)
        } else {
            print("\(path): \(report.problems.count) problem(s)", to: &output)
            print(report.description, to: &output)
            throw ExitCode.failure
        }
    }
}
