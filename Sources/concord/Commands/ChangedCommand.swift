import Concord

/// The arguments of `concord changed`.
struct ChangedOptions: ParsableOptions {
    @Positional(help: "The replica's database file.")
    var db: String
    @Option(valueName: "version", help: "Only rows changed after this version (the last run's `up to`).")
    var since: Int64 = 0
    @Flag(help: "Print machine-readable JSON.")
    var json = false

    func validate() throws(UsageError) {
        guard since >= 0 else { throw UsageError("--since takes a version of at least 0 (0 lists every row)") }
    }
}

extension Subcommand {
    static let changed = Subcommand(
        "changed",
        abstract: "List the rows whose state changed after a version, whoever changed them.",
        discussion: """
            Local writes from any client, rows merged from peers, and rows shown or hidden because another \
            row changed (a parent deleted elsewhere, or arrived). Pass the printed `up to` as --since next time.
            """,
        options: ChangedOptions.self
    ) { options, output in
        let replica = try Replica(path: options.db, create: false)
        let changed = try replica.changedRows(since: options.since)
        if options.json {
            try output.printJSON(changed)
        } else {
            print("changed after version \(changed.since), up to \(changed.upTo)", to: &output)
            for row in changed.rows {
                print(
                    "  \(row.table)/\(RowKey.spelling(of: row.key))\(row.isShown ? "" : "  (not shown)")", to: &output)
            }
            if changed.rows.isEmpty { print("  (nothing)", to: &output) }
        }
        try output.failOnSchemaRefusals(of: [(options.db, replica)])
    }
}
