import Concord

extension Subcommand {
    static let enable = Subcommand(CommandSpec(
        name: "enable",
        abstract: "Start syncing tables of a database.",
        discussion: """
            Creates Concord's metadata and capture triggers for each table. Rows already \
            present become this replica's first writes. Running it again with the same \
            declaration does nothing. A table syncs under the `column` policy unless \
            written NAME:row. Columns of column-policy tables can merge other than by last \
            writer wins: --merge TABLE.COLUMN=KIND with KIND one of max, min, counter, union.
            """,
        arguments: [
            .positional("db", help: "The database file."),
            .option("table", valueName: "name[:policy]", repeatable: true,
                    help: "A table to sync; policy is column (default) or row. Repeat for more tables."),
            .option("merge", valueName: "table.column=kind", repeatable: true,
                    help: "How a column merges: lww (default), max, min, counter or union. Repeatable."),
        ])
    ) { arguments, output in
        let path = try arguments.required("db")
        let declarations = arguments.options("table")
        guard !declarations.isEmpty else {
            throw UsageError("Missing expected argument '--table <name[:policy]>'", command: nil)
        }
        let tables = try declarations.map(parseTableDeclaration)
        let merges = try parseMerges(arguments.options("merge"), tables: tables.map(\.0))
        // Refuse the whole command before anything is written.
        let database = try Database(path: path, mode: .readWrite)
        for (name, policy) in tables {
            try Replica.validate(name, policy: policy, merges: merges[name] ?? [:], in: database)
        }
        let enable = {
            let replica = try Replica(database: database)
            for (name, policy) in tables {
                try replica.enableSync(on: name, policy: policy, merges: merges[name] ?? [:])
            }
            return replica
        }
        // A database that is not a replica yet becomes one only if every table could be enabled:
        // a failure leaves no trace of Concord in it.
        let isReplica = try database.scalar("SELECT count(*) FROM sqlite_schema WHERE name = '_concord_state'") != .integer(0)
        let replica = isReplica ? try enable() : try database.transaction(enable)
        let summary = replica.tables.map { "\($0.name) (\($0.declaration))" }.joined(separator: ", ")
        print("\(path): syncing \(summary)", to: &output)
    }

    /// Parses `table.column=kind` options into merges per table.
    static func parseMerges(_ options: [String], tables: [String]) throws -> [String: [String: ColumnMerge]] {
        var merges: [String: [String: ColumnMerge]] = [:]
        for option in options {
            let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let dot = parts[0].firstIndex(of: "."),
                  let merge = ColumnMerge.builtIns.first(where: { $0.name == parts[1] }) else {
                throw UsageError("The value '\(option)' is invalid for '--merge <table.column=kind>': "
                    + "expected TABLE.COLUMN=KIND with KIND one of lww, max, min, counter, union")
            }
            let table = String(parts[0][..<dot]), column = String(parts[0][parts[0].index(after: dot)...])
            guard tables.contains(table) else {
                throw UsageError("--merge \(option) names table '\(table)', which no --table declares")
            }
            merges[table, default: [:]][column] = merge
        }
        return merges
    }

    /// Splits `name[:policy]`.
    static func parseTableDeclaration(_ text: String) throws -> (String, TablePolicy) {
        guard let colon = text.lastIndex(of: ":") else { return (text, .column) }
        let name = String(text[..<colon]), policyName = String(text[text.index(after: colon)...])
        guard !name.isEmpty, let policy = TablePolicy(rawValue: policyName) else {
            throw UsageError("The value '\(text)' is invalid for '--table <name[:policy]>': "
                + "the policy must be one of column, row", command: nil)
        }
        return (name, policy)
    }
}
