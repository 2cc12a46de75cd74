import Concord

extension Subcommand {
    static let enable = Subcommand(CommandSpec(
        name: "enable",
        abstract: "Start syncing tables of a database.",
        discussion: """
            Creates Concord's metadata and capture triggers for each table. Rows already \
            present become this replica's first writes. Running it again with the same \
            declaration does nothing. A table syncs under the `column` policy unless \
            written NAME:row.
            """,
        arguments: [
            .positional("db", help: "The database file."),
            .option("table", valueName: "name[:policy]", repeatable: true,
                    help: "A table to sync; policy is column (default) or row. Repeat for more tables."),
        ])
    ) { arguments, output in
        let path = try arguments.required("db")
        let declarations = arguments.options("table")
        guard !declarations.isEmpty else {
            throw UsageError("Missing expected argument '--table <name[:policy]>'", command: nil)
        }
        let tables = try declarations.map(parseTableDeclaration)
        // Refuse the whole command before anything is written.
        let database = try Database(path: path, mode: .readWrite)
        for (name, policy) in tables { try Replica.validate(name, policy: policy, in: database) }
        let replica = try Replica(database: database)
        for (name, policy) in tables {
            try replica.enableSync(on: name, policy: policy)
        }
        let summary = replica.tables.map { "\($0.name) (\($0.policy.rawValue))" }.joined(separator: ", ")
        print("\(path): syncing \(summary)", to: &output)
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
