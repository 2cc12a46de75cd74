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
    /// ```swift
    /// let report = try replica.applyChangeset(atPath: "from-phone.concord")
    /// print(report)   // applied 12, ignored 3
    /// ```
    @discardableResult
    public func applyChangeset(atPath path: String) throws -> ApplyReport {
        try applyChangeset(atPath: path, decodingInMemoryUpTo: Self.decodedInMemoryLimit)
    }

    /// ``applyChangeset(atPath:)`` with the in-memory limit given (tests use 0 to stream everything).
    func applyChangeset(atPath path: String, decodingInMemoryUpTo limit: Int) throws -> ApplyReport {
        let file = try FileByteSource(path: path)
        defer { file.close() }
        let prefix = try file.read(maxCount: 64)
        try file.rewind()
        let isJSON = prefix.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) } == UInt8(ascii: "{")
        if try isJSON || file.size() <= limit {
            return try apply(Changeset.decode(anyFormat: try file.readAll()))
        }
        let header = try ChangesetDecoder(source: file).header
        return try apply(source: header.source, since: header.since, upTo: header.upTo, tables: header.tables) {
            try file.rewind()
            let decoder = try ChangesetDecoder(source: file)
            guard decoder.header == header else { throw ReplicaError.changesetChanged }
            return decoder
        }
    }
}

extension Replica {
    /// Changesets up to this size (16 MiB, some hundred thousand rows) are decoded
    /// once and held in memory while they apply; larger ones stream.
    public static let decodedInMemoryLimit = 16 << 20
}

extension ChangesetDecoder: ChangeIterator {}
