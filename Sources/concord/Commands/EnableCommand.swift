import Concord

/// The arguments of `concord enable`.
struct EnableOptions: ParsableOptions {
    /// `--table name[:policy]`: a table to sync and its policy (column unless written `:row`).
    struct Table: ArgumentValue {
        var name: String
        var policy: TablePolicy

        init(argument: String) throws(InvalidArgument) {
            guard let colon = argument.lastIndex(of: ":") else {
                (name, policy) = (argument, .column)
                return
            }
            name = String(argument[..<colon])
            guard !name.isEmpty, let policy = TablePolicy(rawValue: String(argument[argument.index(after: colon)...]))
            else {
                throw InvalidArgument("the policy must be one of column, row")
            }
            self.policy = policy
        }

        var argumentText: String { policy == .column ? name : "\(name):\(policy.rawValue)" }
    }

    /// `--merge table.column=kind`: how one column merges.
    struct Merge: ArgumentValue {
        var table: String
        var column: String
        var merge: ColumnMerge

        init(argument: String) throws(InvalidArgument) {
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let dot = parts[0].firstIndex(of: "."),
                let merge = ColumnMerge.builtIns.first(where: { $0.name == parts[1] })
            else {
                throw InvalidArgument("expected TABLE.COLUMN=KIND with KIND one of lww, max, min, counter, union")
            }
            table = String(parts[0][..<dot])
            column = String(parts[0][parts[0].index(after: dot)...])
            self.merge = merge
        }

        var argumentText: String { "\(table).\(column)=\(merge.name)" }
    }

    @Positional(help: "The database file.")
    var db: String
    @Option(
        valueName: "name[:policy]", help: "A table to sync; policy is column (default) or row. Repeat for more tables.")
    var table: [Table]
    @Option(
        valueName: "table.column=kind",
        help: "How a column merges: lww (default), max, min, counter or union. Repeatable.")
    var merge: [Merge]

    func validate() throws(UsageError) {
        guard !table.isEmpty else { throw UsageError("Missing expected argument '--table <name[:policy]>'") }
        for merge in merge where !table.contains(where: { $0.name == merge.table }) {
            throw UsageError("--merge \(merge.argumentText) names table '\(merge.table)', which no --table declares")
        }
    }

    /// The merges declared for each table, by column.
    var merges: [String: [String: ColumnMerge]] {
        merge.reduce(into: [:]) { merges, declared in
            merges[declared.table, default: [:]][declared.column] = declared.merge
        }
    }
}

extension Subcommand {
    static let enable = Subcommand(
        "enable",
        abstract: "Start syncing tables of a database.",
        discussion: """
            Creates Concord's metadata and capture triggers for each table. Rows already \
            present become this replica's first writes. Running it again with the same \
            declaration does nothing. A table syncs under the `column` policy unless \
            written NAME:row. Columns of column-policy tables can merge other than by last \
            writer wins: --merge TABLE.COLUMN=KIND with KIND one of max, min, counter, union.
            """,
        options: EnableOptions.self
    ) { options, output in
        let merges = options.merges
        // Refuse the whole command before anything is written.
        let database = try Database(path: options.db, mode: .readWrite)
        for table in options.table {
            try Replica.validate(table.name, policy: table.policy, merges: merges[table.name] ?? [:], in: database)
        }
        let enable = {
            let replica = try Replica(database: database)
            for table in options.table {
                try replica.enableSync(on: table.name, policy: table.policy, merges: merges[table.name] ?? [:])
            }
            return replica
        }
        // A database that is not a replica yet becomes one only if every table could be enabled:
        // a failure leaves no trace of Concord in it.
        let isReplica =
            try database.scalar("SELECT count(*) FROM sqlite_schema WHERE name = '_concord_state'") != .integer(0)
        let replica = isReplica ? try enable() : try database.transaction(enable)
        let summary = replica.tables.map { "\($0.name) (\($0.declaration))" }.joined(separator: ", ")
        print("\(options.db): syncing \(summary)", to: &output)
        try output.failOnSchemaRefusals(of: [(options.db, replica)])
    }
}
