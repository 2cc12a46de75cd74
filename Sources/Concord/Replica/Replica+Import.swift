import ConcordCore

extension Replica {
    /// Applies the changeset in the file at `path`, binary or JSON, atomically.
    ///
    /// The file is opened once, and everything is read from that one open
    /// file, so what is checked is what is applied even if the path is
    /// replaced meanwhile. A JSON changeset, or a binary one up to
    /// ``decodedInMemoryLimit`` bytes, is read once into memory; a larger one
    /// is streamed twice: once to decode and validate every byte (checksum
    /// included) and every row against this replica, once to merge, when the
    /// same checks run again and the two passes must agree on the header,
    /// the rows and the checksum. So a changeset larger than memory applies,
    /// and a damaged one — or one whose file changes in between — is refused
    /// before anything is written.
    ///
    /// `progress`, when given, hears how far the file has been read (see
    /// ``ChangesetProgress``): after each row of each streamed pass, and at the
    /// start and end of a read into memory. It runs on the calling thread and
    /// must not use the replica.
    ///
    /// ```swift
    /// let report = try replica.applyChangeset(atPath: "from-phone.concord") { progress in
    ///     print(progress.step, progress.bytesRead, "of", progress.fileSize)
    /// }
    /// print(report)   // applied 12, ignored 3
    /// ```
    @discardableResult
    public func applyChangeset(atPath path: String, progress: ((ChangesetProgress) -> Void)? = nil) throws
        -> ApplyReport
    {
        try applyChangeset(atPath: path, decodingInMemoryUpTo: Self.decodedInMemoryLimit, progress: progress)
    }

    /// ``applyChangeset(atPath:progress:)`` with the in-memory limit given (tests and the fuzzer use 0 to
    /// stream everything).
    @_spi(Simulation) public func applyChangeset(
        atPath path: String, decodingInMemoryUpTo limit: Int, progress: ((ChangesetProgress) -> Void)? = nil
    ) throws -> ApplyReport {
        let file = try FileByteSource(path: path)
        defer { file.close() }
        let size = try file.size()
        let prefix = try file.read(maxCount: 64)
        try file.rewind()
        let isJSON = prefix.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) } == UInt8(ascii: "{")
        if isJSON || size <= limit {
            progress?(ChangesetProgress(step: .reading, bytesRead: 0, fileSize: size, rows: 0, finished: false))
            let changeset = try Changeset.decode(anyFormat: try file.readAll())
            progress?(
                ChangesetProgress(
                    step: .reading, bytesRead: size, fileSize: size, rows: changeset.rows.count, finished: true))
            return try apply(changeset)
        }
        let counted = CountingByteSource(file)
        let header = try ChangesetDecoder(source: counted).header
        var pass = ChangesetProgress.Step.validating
        return try apply(
            source: header.source, since: header.since, upTo: header.upTo, tables: header.tables,
            batchSize: Self.applyBatch,
            rows: {
                try file.rewind()
                counted.count = 0
                let decoder = try ChangesetDecoder(source: counted)
                guard decoder.header == header else { throw ReplicaError.changesetChanged }
                defer { pass = .merging }
                return ReportingRows(decoder: decoder, step: pass, bytes: counted, fileSize: size, progress: progress)
            },
            rereadRows: {
                // The merge is reading `file`: this pass opens the file again.
                let again = try FileByteSource(path: path)
                defer { again.close() }
                let decoder = try ChangesetDecoder(source: again)
                guard decoder.header == header else { throw ReplicaError.changesetChanged }
                return try ApplySession.repeatedRows(in: decoder)
            })
    }
}

/// How far ``Replica/applyChangeset(atPath:progress:)`` has got through its file.
///
/// Why: a changeset of millions of rows takes minutes to apply, and a person
/// watching wants a rate and a time left. A streamed file is read twice,
/// first to validate and then to merge, so the work is twice its size; a
/// file read into memory reports its start and end only.
///
/// ```swift
/// let share = Double(progress.bytesRead) / Double(progress.fileSize)   // of this step
/// ```
public struct ChangesetProgress: Hashable, Sendable {
    /// What is reading the file.
    public enum Step: String, Hashable, Sendable {
        /// Read whole into memory, before it is validated and merged in one go.
        case reading
        /// The first of two streamed passes: every byte and row checked, nothing written.
        case validating
        /// The second streamed pass: the same checks, and the rows merged in batches.
        case merging
    }

    /// The step under way.
    public var step: Step
    /// Bytes of the file this step has read.
    public var bytesRead: Int
    /// The file's size in bytes.
    public var fileSize: Int
    /// Rows this step has read.
    public var rows: Int
    /// Whether this step has read its last row (a merge still writes its last batch after).
    public var finished: Bool
}

extension Replica {
    /// Changesets up to this size (16 MiB, some hundred thousand rows) are decoded
    /// once and held in memory while they apply; larger ones stream.
    public static let decodedInMemoryLimit = 16 << 20
}

extension ChangesetDecoder: ChangeIterator {}

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

/// A decoder's rows, telling `progress` how far the file is read after each one.
private struct ReportingRows: ChangeIterator {
    let decoder: ChangesetDecoder
    let step: ChangesetProgress.Step
    let bytes: CountingByteSource
    let fileSize: Int
    let progress: ((ChangesetProgress) -> Void)?

    mutating func next() throws -> RowChange? {
        let row = try decoder.next()
        progress?(
            ChangesetProgress(
                step: step, bytesRead: bytes.count, fileSize: fileSize, rows: decoder.rowsRead, finished: row == nil))
        return row
    }

    var checksum: UInt32? { decoder.checksum }
}
