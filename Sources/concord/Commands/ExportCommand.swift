import Concord
import Foundation

/// The arguments of `concord export`.
struct ExportOptions: ParsableOptions {
    /// The changeset's encoding.
    enum Format: String, CaseIterable, ArgumentValue {
        case binary, json
    }

    @Positional(help: "The replica's database file.")
    var db: String
    @Option(valueName: "version", help: "Only changes stored after this version.")
    var since: Int64 = 0
    @Option(help: "binary or json.")
    var format = Format.binary
    @Option(short: "o", valueName: "file", help: "Write to this file instead of standard output.")
    var output: String?
    @Flag(short: "q", help: "No progress line (it is drawn on standard error only when that is a terminal).")
    var quiet = false

    func validate() throws(UsageError) {
        guard since >= 0 else { throw UsageError("--since takes a version of at least 0 (0 exports everything)") }
    }
}

extension Subcommand {
    static let export = Subcommand(
        "export",
        abstract: "Write the changes a replica holds as a changeset.",
        discussion: """
            The binary form is versioned and checksummed and streams however large it is; \
            the JSON form is for reading. A peer passes the version it last read as --since.
            """,
        options: ExportOptions.self
    ) { options, output in
        output.quiet = options.quiet
        if let file = options.output, names(file, database: options.db) {
            throw UsageError("-o \(file) names the database itself or its journal; write the changeset to another file")
        }
        let replica = try Replica(path: options.db, create: false)
        let node = replica.nodeID
        // A file given with -o is replaced only once the whole changeset is written.
        let sink: any ByteSink =
            try options.output.map { try FileByteSink(path: $0, atomically: true) }
            ?? output.standardOutput.sink
        // The number of rows is known only once the export's transaction has read them all, so the line
        // counts rows and their rate, with the time elapsed rather than a time left.
        let progress = output.progressLine("export", unit: .items("rows"))
        progress.startTicking()
        switch options.format {
        case .json:
            progress.phase("reading the changes into memory")
            let changes = try replica.changes(since: options.since)
            progress.phase("writing JSON", done: changes.rows.count)
            try sink.write(changes.jsonData())
        case .binary:
            // What `Replica.exportChanges(since:to:)` does, with each row counted on its way to the sink.
            let encoder = ChangesetEncoder(sink: sink)
            progress.phase("folding local writes")
            try replica.exportChanges(
                since: options.since,
                header: { header in
                    try encoder.begin(header: header)
                    progress.phase("writing rows")
                },
                row: { row in
                    try encoder.write(row)
                    guard progress.isShown else { return }
                    progress.update(encoder.rowCount, detail: ProgressMeter.bytes(Double(encoder.byteCount)))
                })
            try encoder.finish()
        }
        progress.clear()
        try sink.flush()
        if options.output != nil { try sink.close() }
        if replica.nodeID != node {
            print(
                "note: this replica has not reached version \(options.since), so whoever read that far read a copy "
                    + "of it or a later state of this file (restored from a backup since?); it now writes as node "
                    + "\(replica.nodeID) and the changeset holds everything it has", to: &output.standardError)
        }
        try output.failOnSchemaRefusals(of: [(options.db, replica)])
    }
}

/// Whether `file` is the database at `database` or one of SQLite's files beside it (`-wal`, `-shm`,
/// `-journal`): by device and inode when both exist (a link, another spelling of the path), else by path.
///
/// Why: the export replaces its output file whole, so `concord export a.db -o a.db` swapped the database for
/// the changeset, tables that do not sync included, and exited 0.
private func names(_ file: String, database: String) -> Bool {
    let manager = FileManager.default
    func identity(_ path: String) -> [AnyHashable]? {
        guard let attributes = try? manager.attributesOfItem(atPath: path),
            let device = attributes[.systemNumber] as? NSNumber, let inode = attributes[.systemFileNumber] as? NSNumber
        else { return nil }
        return [device, inode]
    }
    func standardized(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }
    let target = identity(file)
    let written = standardized(file)
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let path = database + suffix
        if let target, target == identity(path) { return true }
        if written == standardized(path) { return true }
    }
    return false
}
