import Foundation

extension Replica {
    /// Applies the changeset in the file at `path`, binary or JSON, atomically.
    ///
    /// A binary changeset up to ``decodedInMemoryLimit`` bytes is decoded once
    /// into memory; a larger one is streamed twice from the file: once to
    /// decode and validate every byte (checksum included) and every row against
    /// this replica, once to merge. So a changeset larger than memory applies,
    /// and a damaged one is refused before anything is written.
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
        let first = try FileByteSource(path: path)
        let prefix = try first.read(maxCount: 64)
        first.close()
        guard let start = prefix.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }),
              start != UInt8(ascii: "{") else {
            return try apply(Changeset.decode(anyFormat: Array(try Data(contentsOf: URL(fileURLWithPath: path)))))
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? .max
        if size <= limit {
            return try apply(Changeset(decoding: Array(try Data(contentsOf: URL(fileURLWithPath: path)))))
        }
        let header = try ChangesetDecoder(source: try FileByteSource(path: path)).header
        return try apply(source: header.source, since: header.since, upTo: header.upTo, tables: header.tables) {
            try ChangesetDecoder(source: try FileByteSource(path: path))
        }
    }
}

extension Replica {
    /// Changesets up to this size (16 MiB, some hundred thousand rows) are decoded
    /// once and held in memory while they apply; larger ones stream.
    public static let decodedInMemoryLimit = 16 << 20
}

extension ChangesetDecoder: ChangeIterator {}
