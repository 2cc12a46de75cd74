import Concord
import Foundation

/// The arguments of `concord import`.
struct ImportOptions: ParsableOptions {
    @Positional(help: "The replica's database file.")
    var db: String
    @Positional(help: "The changeset file, or '-' for standard input.")
    var file: String?
    @Flag(help: "Print machine-readable JSON: the counts and, per table, the keys whose shown row changed.")
    var json = false
}

extension Subcommand {
    static let `import` = Subcommand(
        "import",
        abstract: "Merge a changeset into a replica.",
        discussion: """
            Reads a binary or JSON changeset from FILE, or from standard input when FILE is \
            absent or '-'. The whole changeset is validated before anything is written, and \
            applied in one transaction; importing it again changes nothing. Prints one line: \
            how many rows were applied and how many ignored; with --json, also which keys' \
            shown rows were inserted, updated, deleted, hidden, shown again or parked.
            """,
        options: ImportOptions.self
    ) { options, output in
        let replica = try Replica(path: options.db, create: false)
        let file = options.file ?? "-"
        let report: ApplyReport
        if file == "-" {
            // Standard input can be read only once; spool it so it can be validated before it is applied.
            let spool = FileManager.default.temporaryDirectory.appendingPathComponent(
                "concord-import-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: spool) }
            let source = FileByteSource.standardInput()
            let sink = try FileByteSink(path: spool.path)
            while case let chunk = try source.read(maxCount: 1 << 16), !chunk.isEmpty { try sink.write(chunk) }
            try sink.close()
            report = try replica.applyChangeset(atPath: spool.path)
        } else {
            report = try replica.applyChangeset(atPath: file)
        }
        if options.json {
            try output.printJSON(report)
        } else {
            print(report.description, to: &output)
        }
        try output.failOnSchemaRefusals(of: [(options.db, replica)])
    }
}
