@_spi(Simulation) import Concord
import Foundation

/// The arguments of `concord import`.
struct ImportOptions: ParsableOptions {
    @Positional(help: "The replica's database file.")
    var db: String
    @Positional(help: "The changeset file, or '-' for standard input.")
    var file: String?
    @Flag(help: "Print machine-readable JSON: the counts and, per table, the keys whose shown row changed.")
    var json = false
    @Flag(short: "q", help: "No progress line (it is drawn on standard error only when that is a terminal).")
    var quiet = false
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
            shown rows were inserted, updated, deleted, hidden, shown again or parked. Past \
            100,000 rows that list is left out and the report says "complete": false; \
            `concord changed` lists them then.
            """,
        options: ImportOptions.self
    ) { options, output in
        output.quiet = options.quiet
        let replica = try Replica(path: options.db, create: false)
        let file = options.file ?? "-"
        let progress = output.progressLine("import", unit: .bytes)
        progress.startTicking()
        let report: ApplyReport
        // Standard input, a named pipe or a `<(...)` can be read only once: spooled, so that the changeset can be
        // validated before it is applied.
        let once =
            file == "-" ? FileByteSource.standardInput() : isRegularFile(file) ? nil : try FileByteSource(path: file)
        if let source = once {
            let spool = FileManager.default.temporaryDirectory.appendingPathComponent(
                "concord-import-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: spool) }
            let sink = try FileByteSink(path: spool.path)
            var read = 0
            while case let chunk = try source.read(maxCount: 1 << 16), !chunk.isEmpty {
                try sink.write(chunk)
                read += chunk.count
                progress.update(read, detail: file == "-" ? "reading standard input" : "reading \(file)")
            }
            try sink.close()
            report = try importChangeset(atPath: spool.path, into: replica, progress)
        } else {
            report = try importChangeset(atPath: file, into: replica, progress)
        }
        progress.clear()
        if options.json {
            try output.printJSON(report)
        } else {
            print(report.description, to: &output)
        }
        try output.failOnSchemaRefusals(of: [(options.db, replica)])
    }
}

/// `replica.applyChangeset(atPath:progress:)`, drawn on `progress`.
///
/// A changeset read into memory is applied in one step that reports its
/// start and end only: the line shows that step and its time. A streamed one
/// is read twice, to validate and to merge, so the line counts the bytes of
/// both passes, with rate and time left, holding at 99% while the last batch
/// merges. Tests pass `inMemoryUpTo: 0` to stream a small changeset.
func importChangeset(
    atPath path: String, into replica: Replica, _ progress: ProgressLine,
    inMemoryUpTo limit: Int = Replica.decodedInMemoryLimit
) throws -> ApplyReport {
    var streaming = false
    return try replica.applyChangeset(atPath: path, decodingInMemoryUpTo: limit) { state in
        guard progress.isShown else { return }
        let rows = "\(ProgressMeter.grouped(state.rows)) rows"
        switch (state.step, state.finished) {
        case (.reading, _):
            progress.phase(
                "read into memory, validated and applied in one step (\(ProgressMeter.bytes(Double(state.fileSize))))")
        case (.validating, false):
            if !streaming { progress.restart(total: 2 * state.fileSize) }
            streaming = true
            progress.update(state.bytesRead, detail: "validating, \(rows)")
        case (.validating, true):
            progress.phase("validated \(rows)")
        case (.merging, false):
            // The merge pass reads a batch of rows, then merges it: the last bytes are read before the last
            // batch is merged and the shown rows are brought up to date, so it stops short of 100% until then.
            progress.update(
                state.fileSize + min(state.bytesRead, state.fileSize * 99 / 100), detail: "merging, \(rows)")
        case (.merging, true):
            progress.phase("merged \(rows), showing the rows that changed")
        }
    }
}

/// Whether `path` names a regular file (or a link to one), which can be read twice; a named pipe or a device
/// cannot. A path that cannot be read is left to the import to name.
private func isRegularFile(_ path: String) -> Bool {
    var info = stat()
    guard stat(path, &info) == 0 else { return true }
    let kind: UInt32 = UInt32(info.st_mode) & 0o170000
    return kind == 0o100000 || kind == 0o040000
}
