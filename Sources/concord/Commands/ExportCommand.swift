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
        guard since >= 0 else { throw UsageError("--since takes a version of at least 0 (0 exports everything)") }
        let replica = try Replica(path: try arguments.required("db"), create: false)
        let node = replica.nodeID
        // A file given with -o is replaced only once the whole changeset is written.
        let sink: any ByteSink = try arguments.option("output").map { try FileByteSink(path: $0, atomically: true) }
            ?? output.standardOutput.sink
        if arguments.option("format") == "json" {
            try sink.write(try replica.changes(since: since).jsonData())
        } else {
            try replica.exportChanges(since: since, to: sink)
        }
        try sink.flush()
        if arguments.option("output") != nil { try sink.close() }
        if replica.nodeID != node {
            print("note: this replica has not reached version \(since), so whoever read that far read a copy of it "
                  + "or a later state of this file (restored from a backup since?); it now writes as node "
                  + "\(replica.nodeID) and the changeset holds everything it has", to: &output.standardError)
        }
    }
}
