import Concord

extension Subcommand {
    static let export = Subcommand(CommandSpec(
        name: "export",
        abstract: "Write the changes a replica holds as a changeset.",
        discussion: """
            The binary form is versioned and checksummed and streams however large it is; \
            the JSON form is for reading. A peer passes the version it last read as --since.
            """,
        arguments: [
            .positional("db", help: "The replica's database file."),
            .option("since", valueName: "version", default: "0", help: "Only changes stored after this version."),
            .option("format", default: "binary", allowedValues: ["binary", "json"], help: "binary or json."),
            .option("output", short: "o", valueName: "file", help: "Write to this file instead of standard output."),
        ])
    ) { arguments, output in
        let since = try arguments.integer("since", as: Int64.self)
        let replica = try Replica(path: try arguments.required("db"), create: false)
        let sink: any ByteSink = try arguments.option("output").map { try FileByteSink(path: $0) }
            ?? output.standardOutput.sink
        if arguments.option("format") == "json" {
            try sink.write(try replica.changes(since: since).jsonData())
        } else {
            try replica.exportChanges(since: since, to: sink)
        }
        try sink.flush()
        if arguments.option("output") != nil { try sink.close() }
    }
}
