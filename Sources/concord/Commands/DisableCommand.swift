import Concord

/// The arguments of `concord disable`.
struct DisableOptions: ParsableOptions {
    @Positional(help: "The database file.")
    var db: String
    @Option(valueName: "name", help: "A table to stop syncing. Repeat for more tables.")
    var table: [String]

    func validate() throws(UsageError) {
        guard !table.isEmpty else { throw UsageError("Missing expected argument '--table <name>'") }
    }
}

extension Subcommand {
    static let disable = Subcommand(
        "disable",
        abstract: "Stop syncing tables of a database.",
        discussion: """
            Removes each table's capture triggers and Concord's metadata about it \
            (registers, deleted and parked rows, pending captured writes); the table's \
            rows stay as they are. Use it before a migration Concord refuses (dropping or \
            renaming a column, changing the key), then run `concord enable` again: each row's \
            causal length, values, stamps and counter contributions are kept meanwhile, so values \
            the migration left as they were keep their stamps, rows it deleted are deleted on \
            every device, and counters count each device once. \
            A table another synced table references is disabled after that one. Its \
            conflict log goes too: `concord restore` any value that lost and should come \
            back first. A table the app dropped or renamed can be disabled as well.
            """,
        options: DisableOptions.self
    ) { options, output in
        let replica = try Replica(path: options.db, create: false)
        // All or nothing: a table that cannot be disabled leaves every table syncing.
        try replica.database.transaction {
            for table in options.table { try replica.disableSync(on: table) }
        }
        let left = replica.tables.map(\.name).joined(separator: ", ")
        print(
            "\(options.db): stopped syncing \(options.table.joined(separator: ", ")); "
                + (left.isEmpty ? "no table syncs" : "still syncing \(left)"), to: &output)
    }
}
