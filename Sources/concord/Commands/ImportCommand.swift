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
            shown rows were inserted, updated, deleted, hidden, shown again or parked.
            """,
        options: ImportOptions.self
    ) { options, output in
        output.quiet = options.quiet
        let replica = try Replica(path: options.db, create: false)
        let file = options.file ?? "-"
        let progress = output.progressLine("import", unit: .bytes)
        progress.startTicking()
        let report: ApplyReport
        if file == "-" {
            // Standard input can be read only once; spool it so it can be validated before it is applied.
            let spool = FileManager.default.temporaryDirectory.appendingPathComponent(
                "concord-import-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: spool) }
            let source = FileByteSource.standardInput()
            let sink = try FileByteSink(path: spool.path)
            var read = 0
            while case let chunk = try source.read(maxCount: 1 << 16), !chunk.isEmpty {
                try sink.write(chunk)
                read += chunk.count
                progress.update(read, detail: "reading standard input")
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

/// `replica.applyChangeset(atPath:)`, with progress.
///
/// A JSON changeset, or a binary one the library reads into memory (up to
/// ``Replica/decodedInMemoryLimit``), is applied in one call that reports
/// nothing until it ends: the line shows that step and its time. A larger
/// one streams twice, to validate and to merge, and the line follows the
/// bytes read over both passes, with rate and time left: this takes the
/// library's streaming path through its public API (the same decoder, the
/// same `apply(source:since:upTo:tables:rows:)`, the same check that both
/// passes read the same header), with the rows counted on their way.
/// Tests pass `inMemoryUpTo: 0` to stream a small changeset.
func importChangeset(
    atPath path: String, into replica: Replica, _ progress: ProgressLine,
    inMemoryUpTo limit: Int = Replica.decodedInMemoryLimit
) throws -> ApplyReport {
    let file = try FileByteSource(path: path)
    defer { file.close() }
    let size = try file.size()
    let prefix = try file.read(maxCount: 64)
    try file.rewind()
    let isJSON = prefix.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) } == UInt8(ascii: "{")
    if isJSON || size <= limit {
        progress.phase("read into memory, validated and applied in one step (\(ProgressMeter.bytes(Double(size))))")
        return try replica.applyChangeset(atPath: path)
    }
    progress.restart(total: 2 * size)
    let counted = CountingByteSource(file)
    let header = try ChangesetDecoder(source: counted).header
    var pass = 0
    return try replica.apply(source: header.source, since: header.since, upTo: header.upTo, tables: header.tables) {
        try file.rewind()
        counted.count = 0
        pass += 1
        let decoder = try ChangesetDecoder(source: counted)
        guard decoder.header == header else { throw ReplicaError.changesetChanged }
        return CountedRows(
            decoder: decoder, progress: progress, counted: counted, offset: (pass - 1) * size, size: size,
            step: pass == 1 ? "validating" : "merging")
    }
}

/// A ``ByteSource`` that counts the bytes read through it.
private final class CountingByteSource: ByteSource {
    let base: any ByteSource
    var count = 0

    init(_ base: any ByteSource) {
        self.base = base
    }

    func read(maxCount: Int) throws -> [UInt8] {
        let bytes = try base.read(maxCount: maxCount)
        count += bytes.count
        return bytes
    }

    var remainingByteCount: Int? { base.remainingByteCount }
}

/// A decoder's rows, reporting the bytes read so far after each one.
private struct CountedRows: ChangeIterator {
    let decoder: ChangesetDecoder
    let progress: ProgressLine
    let counted: CountingByteSource
    let offset: Int
    let size: Int
    let step: String

    mutating func next() throws -> RowChange? {
        let row = try decoder.next()
        guard progress.isShown else { return row }
        guard row != nil else {
            progress.phase(step == "merging" ? "merged \(rows), showing the rows that changed" : "validated \(rows)")
            return nil
        }
        // The merge pass reads a batch of rows, then merges it: the last bytes are read before the last
        // batch is merged and the shown rows are brought up to date, so it stops short of 100% until then.
        let done = offset + counted.count
        progress.update(step == "merging" ? min(done, offset + size * 99 / 100) : done, detail: "\(step), \(rows)")
        return row
    }

    private var rows: String { "\(ProgressMeter.grouped(decoder.rowsRead)) rows" }

    var checksum: UInt32? { decoder.checksum }
}
