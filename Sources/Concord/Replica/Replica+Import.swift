import Foundation

extension Replica {
    /// Applies the changeset in the file at `path`, binary or JSON, atomically.
    ///
    /// A binary changeset is streamed twice from the file: once to decode and
    /// validate every byte (checksum included) and every row against this
    /// replica, once to merge. So a changeset larger than memory applies, and
    /// a damaged one is refused before anything is written.
    ///
    /// ```swift
    /// let report = try replica.applyChangeset(atPath: "from-phone.concord")
    /// print(report)   // applied 12, ignored 3
    /// ```
    @discardableResult
    public func applyChangeset(atPath path: String) throws -> ApplyReport {
        let first = try FileByteSource(path: path)
        let prefix = try first.read(maxCount: 64)
        first.close()
        guard let start = prefix.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }),
              start != UInt8(ascii: "{") else {
            return try apply(Changeset.decode(anyFormat: Array(try Data(contentsOf: URL(fileURLWithPath: path)))))
        }
        let header = try ChangesetDecoder(source: try FileByteSource(path: path)).header
        return try apply(source: header.source, since: header.since, upTo: header.upTo, tables: header.tables) {
            try ChangesetDecoder(source: try FileByteSource(path: path))
        }
    }
}

extension ChangesetDecoder: ChangeIterator {}
