import Concord

/// The arguments of `concord enable`.
struct EnableOptions: ParsableOptions {
    /// `--table name[:policy]`: a table to sync and its policy (column unless written `:row`).
    ///
    /// The policy follows the last colon; a name that holds a colon is written with its policy
    /// (`a:b:column`), and one whose last colon is not followed by a policy (`a:b`) is all name.
    struct Table: ArgumentValue {
        var name: String
        var policy: TablePolicy
        /// The argument as given.
        var written: String

        init(argument: String) throws(InvalidArgument) {
            written = argument
            let scalars = argument.unicodeScalars
            guard let colon = scalars.lastIndex(of: ":"),
                let policy = TablePolicy(rawValue: String(scalars[scalars.index(after: colon)...]))
            else {
                (name, policy) = (argument, .column)
                return
            }
            name = String(scalars[..<colon])
            guard !name.isEmpty else { throw InvalidArgument("the table's name is missing before ':\(policy)'") }
            self.policy = policy
        }

        var argumentText: String { policy == .column ? name : "\(name):\(policy.rawValue)" }
    }

    /// `--merge table.column=kind`: how one column merges.
    ///
    /// The kind follows the last `=`; which dot ends the table's name is read against the tables `--table`
    /// declares (``resolved(against:)``), so names holding dots or `=` can be given.
    struct Merge: ArgumentValue {
        /// What precedes the kind: the table's name, a dot, the column's.
        var target: String
        var merge: ColumnMerge

        init(argument: String) throws(InvalidArgument) {
            let scalars = argument.unicodeScalars
            guard let equals = scalars.lastIndex(of: "="),
                let merge = ColumnMerge.builtIns.first(where: {
                    $0.name == String(scalars[scalars.index(after: equals)...])
                }),
                String(scalars[..<equals]).unicodeScalars.contains(".")
            else {
                throw InvalidArgument("expected TABLE.COLUMN=KIND with KIND one of lww, max, min, counter, union")
            }
            target = String(scalars[..<equals])
            self.merge = merge
        }

        var argumentText: String { "\(target)=\(merge.name)" }

        /// The table and column ``target`` names: the one declared table whose name, a dot and a non-empty
        /// column name spell it.
        func resolved(against tables: [String]) throws(UsageError) -> (table: String, column: String) {
            let whole = Array(target.unicodeScalars)
            let splits = tables.filter { name in
                let prefix = Array((name + ".").unicodeScalars)
                return whole.count > prefix.count && whole.starts(with: prefix)
            }
            guard splits.count == 1, let name = splits.first else {
                throw UsageError(
                    splits.isEmpty
                        ? "--merge \(argumentText) names no table that --table declares (TABLE.COLUMN=KIND)"
                        : "--merge \(argumentText) can be read as a column of each of the tables "
                            + splits.sorted().map { "'\($0)'" }.joined(separator: " and ")
                            + "; enable them in separate commands")
            }
            let column = whole.dropFirst(name.unicodeScalars.count + 1)
            return (name, String(String.UnicodeScalarView(column)))
        }
    }

    @Positional(help: "The database file.")
    var db: String
    @Option(
        valueName: "name[:policy]",
        help: "A table to sync; policy is column (default) or row (a name with a colon: NAME:column). Repeatable.")
    var table: [Table]
    @Option(
        valueName: "table.column=kind",
        help: "How a column merges: lww (default), max, min, counter or union. Repeatable.")
    var merge: [Merge]

    func validate() throws(UsageError) {
        guard !table.isEmpty else { throw UsageError("Missing expected argument '--table <name[:policy]>'") }
        _ = try merges
    }

    /// The merges declared for each table, by column.
    var merges: [String: [String: ColumnMerge]] {
        get throws(UsageError) {
            var merges: [String: [String: ColumnMerge]] = [:]
            for declared in merge {
                let (name, column) = try declared.resolved(against: table.map(\.name))
                // A merge cannot be changed once sync is on: a second one for a column is a slip, not an override.
                if let earlier = merges[name]?[column], earlier != declared.merge {
                    throw UsageError(
                        "--merge gives column '\(column)' of table '\(name)' two merges, \(earlier.name) and "
                            + "\(declared.merge.name); a column merges one way, for good: give one")
                }
                merges[name, default: [:]][column] = declared.merge
            }
            return merges
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
        let merges = try options.merges
        // Refuse the whole command before anything is written.
        let database = try Database(path: options.db, mode: .readWrite)
        for table in options.table where table.written != table.name {
            let exists = { (name: String) in
                try database.scalar(
                    "SELECT count(*) FROM main.sqlite_schema WHERE type = 'table' AND name = ?", [.text(name)])
                    != .integer(0)
            }
            if try !exists(table.name), try exists(table.written) {
                throw UsageError(
                    "--table '\(table.written)' reads as the table '\(table.name)' under the \(table.policy) policy, and "
                        + "there is no such table; for the table named '\(table.written)' write --table '\(table.written):column'"
                )
            }
        }
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
        // Rows the tables held that cannot show (a missing parent, a cycle) left them, kept: said here.
        let enabled = Set(options.table.map(\.name))
        let parked = try replica.parked().filter { enabled.contains($0.table) }
        if !parked.isEmpty {
            print(
                "\(options.db): \(parked.count) row(s) of these tables parked, kept but not shown until they can be: "
                    + "concord status \(options.db) lists them", to: &output)
        }
        try output.failOnSchemaRefusals(of: [(options.db, replica)])
    }
}
