/// Reads a binary changeset from a ``ByteSource``: the header at once, then one row per ``next()``.
///
/// Rows come one at a time so a changeset larger than memory can be
/// checked and applied in a stream. Everything is validated as it is read
/// (see ``ChangesetEncoder`` for the layout and ``ChangesetError`` for what is
/// refused), but the checksum covers the whole stream and is only known at
/// the end: nothing read is trustworthy until ``next()`` has returned `nil`.
/// A replica therefore reads the stream once to validate it and again to
/// apply it.
///
/// ```swift
/// let decoder = try ChangesetDecoder(source: FileByteSource(path: "changes.cncd"))
/// check(decoder.header.tables)
/// while let row = try decoder.next() { validate(row) }   // nil: complete and checksum verified
/// ```
public final class ChangesetDecoder {
    private enum State {
        case reading
        case finished
        case failed(any Error)
    }

    /// The header, read and validated by `init`.
    public let header: ChangesetHeader
    /// The format the changeset is written in (one of ``Changeset/formatVersion`` or an older one).
    public let format: UInt16
    /// Rows returned by ``next()`` so far.
    public private(set) var rowsRead = 0
    /// The CRC-32 of the whole changeset, once ``next()`` has returned `nil` (and verified it).
    public private(set) var checksum: UInt32?

    /// Read by one method at a time, never by two overlapping ones; unchecked, since the
    /// run-time exclusivity check on every read of a field cost about 3.7k instructions per row.
    @exclusivity(unchecked) private var reader: ChangesetByteReader
    /// Per table, the seen list of a row whose writes saw nothing of another device, shared by such rows.
    private let noneSeen: [[Stamp?]]
    /// Node ids in order of introduction; stamps refer to them by index + 1.
    private var nodes: [NodeID]
    private var knownNodes: Set<NodeID>
    private var state = State.reading

    /// Reads and validates the magic, version and header.
    public init(source: any ByteSource) throws {
        var reader = ChangesetByteReader(source: source)
        let (format, source, since, upTo) = try Self.readStart(&reader)
        let tableCount = try reader.count("the table count", limit: ChangesetFormat.maxTables)
        var tables: [TableSchema] = []
        var tableNames = Set<[UInt8]>()
        for t in 0..<tableCount {
            tables.append(try Self.readTable(t, from: &reader, names: &tableNames))
        }
        self.header = ChangesetHeader(source: source, since: since, upTo: upTo, tables: tables)
        self.noneSeen = tables.map { [Stamp?](repeating: nil, count: $0.columns.count) }
        self.format = format
        self.reader = reader
        self.nodes = [source]
        self.knownNodes = [source]
    }

    /// The magic, the format version (and the release it needs), the source node id and the version range, checked.
    private static func readStart(
        _ reader: inout ChangesetByteReader
    ) throws -> (format: UInt16, source: NodeID, since: Int64, upTo: Int64) {
        let magic = ChangesetFormat.magic
        let prefix = try reader.peek(8)
        guard prefix.starts(with: magic) else {
            if !prefix.isEmpty && magic.starts(with: prefix) {
                throw ChangesetError.truncated(offset: prefix.count, field: "the magic \"CNCD\"")
            }
            throw ChangesetError.notAChangeset(prefix: prefix)
        }
        reader.skip(magic.count)
        let version = UInt16(try reader.fixedWidth(2, "the format version"))
        let supported = ChangesetFormat.supportedVersions
        guard supported.contains(version) else {
            throw ChangesetError.unsupportedVersion(
                found: UInt64(version), supported: supported,
                needs: version > supported.last! ? peekRelease(&reader) : nil)
        }
        if let needs = ChangesetFormat.needs[version] { try readNeeds(needs, of: version, from: &reader) }
        let source = NodeID(bytes: try reader.bytes(NodeID.byteCount, "the source node id"))!
        let rangeOffset = reader.offset
        let since = ChangesetFormat.unzigzag(try reader.varint("since"))
        let upTo = ChangesetFormat.unzigzag(try reader.varint("upTo"))
        if let reason = ChangesetFormat.problem(since: since, upTo: upTo) {
            throw ChangesetError.malformed(offset: rangeOffset, field: "since and upTo", reason: reason)
        }
        return (version, source, since, upTo)
    }

    /// The release a format newer than this build's says it needs, if its next bytes read as a release name.
    ///
    /// Peeked, never an error of its own: nothing after an unknown format number can be trusted, so this is
    /// only a name to show a person, and only a short, printable one (``ChangesetFormat/releaseName(_:)``).
    private static func peekRelease(_ reader: inout ChangesetByteReader) -> String? {
        guard let length = (try? reader.peek(1))?.first, Int(length) <= ChangesetFormat.maxReleaseLength,
            let bytes = try? reader.peek(1 + Int(length)), bytes.count == 1 + Int(length)
        else { return nil }
        return ChangesetFormat.releaseName(bytes.dropFirst())
    }

    /// The release format `version` needs, which must be exactly `expected`, the one that format names.
    private static func readNeeds(
        _ expected: String, of version: UInt16, from reader: inout ChangesetByteReader
    ) throws {
        let offset = reader.offset
        let field = "the release that format \(version) needs"
        let length = try reader.varint(field)
        let limit = UInt64(ChangesetFormat.maxReleaseLength)
        guard length <= limit else {
            throw ChangesetError.malformed(
                offset: offset, field: field, reason: .lengthTooLarge(declared: length, limit: limit))
        }
        let found = try reader.bytes(Int(length), field)
        guard found.elementsEqual(expected.utf8) else {
            throw ChangesetError.malformed(
                offset: offset, field: field,
                reason: .releaseMismatch(
                    format: version, expected: expected, found: String(decoding: found, as: UTF8.self)))
        }
    }

    /// Table `t` of the header, whose folded name must not be in `names` yet (it is added).
    private static func readTable(
        _ t: Int, from reader: inout ChangesetByteReader, names tableNames: inout Set<[UInt8]>
    ) throws -> TableSchema {
        let nameOffset = reader.offset
        let name = try reader.identifier("tables[\(t)].name")
        guard tableNames.insert(ChangesetFormat.folded(name)).inserted else {
            throw ChangesetError.malformed(
                offset: nameOffset, field: "tables[\(t)].name", reason: .duplicateTable(name))
        }
        let key = try reader.identifier("tables[\(t)].key (table '\(name)')")
        let (columns, merges) = try readColumns(t, of: name, key: key, from: &reader)
        let policyOffset = reader.offset
        let policyByte = try reader.byte("tables[\(t)].policy (table '\(name)')")
        guard Int(policyByte) < ChangesetFormat.policies.count else {
            throw ChangesetError.malformed(
                offset: policyOffset, field: "tables[\(t)].policy (table '\(name)')",
                reason: .unknownPolicy("byte \(policyByte)"))
        }
        return TableSchema(
            name: name, key: key, columns: columns, policy: ChangesetFormat.policies[Int(policyByte)], merges: merges)
    }

    /// Table `t`'s columns with their merges, the names distinct from each other and from `key` once folded.
    private static func readColumns(
        _ t: Int, of name: String, key: String, from reader: inout ChangesetByteReader
    ) throws -> (columns: [String], merges: [ColumnMerge]) {
        var columnNames: Set<[UInt8]> = [ChangesetFormat.folded(key)]
        let columnCount = try reader.count(
            "the column count of tables[\(t)] (table '\(name)')", limit: ChangesetFormat.maxColumns)
        var columns: [String] = []
        var merges: [ColumnMerge] = []
        for c in 0..<columnCount {
            let columnOffset = reader.offset
            let field = "tables[\(t)].columns[\(c)] (table '\(name)')"
            let column = try reader.identifier(field)
            guard columnNames.insert(ChangesetFormat.folded(column)).inserted else {
                throw ChangesetError.malformed(offset: columnOffset, field: field, reason: .duplicateColumn(column))
            }
            columns.append(column)
            let merge = try reader.identifier("tables[\(t)].merges[\(c)] (table '\(name)', column '\(column)')")
            merges.append(ColumnMerge(name: merge))  // a name that is no built-in's names a custom merge
        }
        return (columns, merges)
    }

    /// Reads a changeset held in memory.
    public convenience init(bytes: [UInt8]) throws {
        try self.init(source: MemoryByteSource(bytes))
    }

    /// The next row, or `nil` once the end record has been read, the checksum verified and no bytes follow.
    ///
    /// After `nil` it keeps returning `nil`; after an error it keeps throwing that error.
    public func next() throws -> RowChange? {
        switch state {
        case .finished: return nil
        case .failed(let error): throw error
        case .reading: break
        }
        do {
            guard let row = try readRecord() else {
                state = .finished
                return nil
            }
            rowsRead += 1
            return row
        } catch {
            state = .failed(error)
            throw error
        }
    }

    private func readRecord() throws -> RowChange? {
        let i = rowsRead
        let tagOffset = reader.offset
        let tag = try reader.byte("the record tag of rows[\(i)] or of the end record")
        switch tag {
        case ChangesetFormat.rowTag:
            return try readRow(i)
        case ChangesetFormat.endTag:
            try readEnd()
            return nil
        default:
            throw ChangesetError.malformed(
                offset: tagOffset, field: "the record tag of rows[\(i)] or of the end record",
                reason: .unknownRecordTag(tag))
        }
    }

    private func readRow(_ i: Int) throws -> RowChange {
        let tableOffset = reader.offset
        let t = try reader.varint("rows[\(i)].table")
        guard t < UInt64(header.tables.count) else {
            throw ChangesetError.malformed(
                offset: tableOffset, field: "rows[\(i)].table",
                reason: .tableIndexOutOfRange(index: t, tableCount: header.tables.count))
        }
        // Field names for errors are built only when one is thrown: only indexes are captured.
        let n = Int(t)
        let keyOffset = reader.offset
        let key = try readValue("rows[\(i)].key \(tablePlace(n))")
        if key.isNull {
            throw ChangesetError.malformed(
                offset: keyOffset, field: "rows[\(i)].key \(tablePlace(n))", reason: .nullKey)
        }
        let countOffset = reader.offset
        let columnCount = try reader.varint("the column count of rows[\(i)] \(tablePlace(n))")
        let expected = header.tables[n].columns.count
        guard columnCount == UInt64(expected) else {
            throw ChangesetError.malformed(
                offset: countOffset, field: "the column count of rows[\(i)] \(tablePlace(n))",
                reason: .columnCountMismatch(expected: expected, found: columnCount))
        }
        let liveness = try readLiveness(i, n)
        let columns = try readColumns(i, n, count: expected)
        let registers = RowRegisters(liveness: liveness, columns: columns)
        let seen = format >= ChangesetFormat.firstWithSeen ? try readSeen(i, n, registers) : nil
        return RowChange(table: header.tables[n].name, key: key, registers: registers, seen: seen)
    }

    /// Row `i`'s seen list (of table `n`, whose `registers` were just read): `nil` for tag 0, none at all
    /// for tag 2, else (tag 1) one stamp (or none) per column that merges last-writer-wins and holds a
    /// register, each at or below it.
    private func readSeen(_ i: Int, _ n: Int, _ registers: RowRegisters) throws -> [Stamp?]? {
        let tagOffset = reader.offset
        let tag = try reader.byte("the seen tag of rows[\(i)] \(tablePlace(n))")
        switch tag {
        case 0: return nil
        case 1: break
        case 2: return noneSeen[n]
        default:
            throw ChangesetError.malformed(
                offset: tagOffset, field: "the seen tag of rows[\(i)] \(tablePlace(n))", reason: .unknownSeenTag(tag))
        }
        let merges = header.tables[n].merges
        var seen = [Stamp?](repeating: nil, count: registers.columns.count)
        for (c, register) in registers.columns.enumerated() where merges[c] == .lww {
            guard let register else { continue }
            let offset = reader.offset
            guard let stamp = try readStamp("rows[\(i)].seen[\(c)] \(columnPlace(n, c))") else { continue }
            if stamp > register.stamp {
                throw ChangesetError.malformed(
                    offset: offset, field: "rows[\(i)].seen[\(c)] \(columnPlace(n, c))",
                    reason: .seenAfterWrite(seen: stamp, write: register.stamp))
            }
            seen[c] = stamp
        }
        return seen
    }

    /// Row `i`'s liveness (of table `n`): a valid causal length, and a stamp (or none) that agrees with it.
    private func readLiveness(_ i: Int, _ n: Int) throws -> Liveness {
        let lengthOffset = reader.offset
        let causalLength = try reader.varint("rows[\(i)].liveness.causalLength \(tablePlace(n))")
        if let reason = ChangesetFormat.problem(causalLength: causalLength) {
            throw ChangesetError.malformed(
                offset: lengthOffset, field: "rows[\(i)].liveness.causalLength \(tablePlace(n))", reason: reason)
        }
        let stampOffset = reader.offset
        let stamp = try readStamp("rows[\(i)].liveness.stamp \(tablePlace(n))")
        if let reason = ChangesetFormat.problem(liveness: Liveness(causalLength: causalLength, stamp: stamp)) {
            throw ChangesetError.malformed(
                offset: stampOffset, field: "rows[\(i)].liveness.stamp \(tablePlace(n))", reason: reason)
        }
        return Liveness(causalLength: causalLength, stamp: stamp)
    }

    /// Row `i`'s `count` column registers (of table `n`), `nil` where a column has none.
    private func readColumns(_ i: Int, _ n: Int, count expected: Int) throws -> [ColumnRegister?] {
        var columns: [ColumnRegister?] = []
        columns.reserveCapacity(expected)
        for c in 0..<expected {
            guard let stamp = try readStamp("rows[\(i)].columns[\(c)].stamp \(columnPlace(n, c))") else {
                columns.append(nil)
                continue
            }
            let value = try readValue("rows[\(i)].columns[\(c)].value \(columnPlace(n, c))")
            var contributions: [CounterContribution] = []
            if header.tables[n].merges[c] == .counter {
                contributions = try readContributions("rows[\(i)].columns[\(c)].contributions", columnPlace(n, c))
            }
            columns.append(ColumnRegister(value: value, stamp: stamp, contributions: contributions))
        }
        return columns
    }

    private func tablePlace(_ table: Int) -> String { "(table '\(header.tables[table].name)')" }

    private func columnPlace(_ table: Int, _ column: Int) -> String {
        "(table '\(header.tables[table].name)', column '\(header.tables[table].columns[column])')"
    }

    private func readEnd() throws {
        let countOffset = reader.offset
        let storedCount = try reader.varint("the row count of the end record")
        let checksumOffset = reader.offset
        let computed = reader.finishChecksum()
        let stored = UInt32(try reader.fixedWidth(4, "the CRC-32"))
        guard stored == computed else {
            throw ChangesetError.checksumMismatch(stored: stored, computed: computed, offset: checksumOffset)
        }
        checksum = stored
        guard storedCount == UInt64(rowsRead) else {
            throw ChangesetError.malformed(
                offset: countOffset, field: "the row count of the end record",
                reason: .rowCountMismatch(stored: storedCount, counted: UInt64(rowsRead)))
        }
        if try !reader.peek(1).isEmpty {
            throw ChangesetError.trailingBytes(offset: reader.offset)
        }
    }

    /// A counter register's contributions: a count, then that many entries in strictly increasing node order.
    private func readContributions(_ path: String, _ place: String) throws -> [CounterContribution] {
        let count = try reader.count(
            "the contribution count of \(path) \(place)", limit: ChangesetFormat.maxContributions)
        var contributions: [CounterContribution] = []  // not reserved: `count` is not yet backed by data
        var previous: NodeID?
        for j in 0..<count {
            let entry = "\(path)[\(j)]"
            let lengthOffset = reader.offset
            let causalLength = try reader.varint("\(entry).causalLength \(place)")
            if let reason = ChangesetFormat.problem(causalLength: causalLength) {
                throw ChangesetError.malformed(
                    offset: lengthOffset, field: "\(entry).causalLength \(place)", reason: reason)
            }
            let amount = ChangesetFormat.unzigzag(try reader.varint("\(entry).amount \(place)"))
            let stampOffset = reader.offset
            guard let stamp = try readStamp("\(entry).stamp \(place)") else {
                throw ChangesetError.malformed(
                    offset: stampOffset, field: "\(entry).stamp \(place)", reason: .contributionWithoutStamp)
            }
            if let reason = ChangesetFormat.problem(contributionNode: stamp.node, after: previous) {
                throw ChangesetError.malformed(offset: stampOffset, field: "\(entry).stamp \(place)", reason: reason)
            }
            previous = stamp.node
            contributions.append(CounterContribution(causalLength: causalLength, amount: amount, stamp: stamp))
        }
        return contributions
    }

    private func readStamp(_ field: @autoclosure () -> String) throws -> Stamp? {
        let refOffset = reader.offset
        let ref = try reader.varint(field())
        if ref == 0 { return nil }
        let node: NodeID
        if ref <= UInt64(nodes.count) {
            node = nodes[Int(ref) - 1]
        } else if ref == UInt64(nodes.count) + 1 {
            let idOffset = reader.offset
            node = NodeID(bytes: try reader.bytes(NodeID.byteCount, "the node id of " + field()))!
            guard knownNodes.insert(node).inserted else {
                throw ChangesetError.malformed(
                    offset: idOffset, field: "the node id of " + field(), reason: .duplicateNode(node))
            }
            nodes.append(node)
        } else {
            throw ChangesetError.malformed(
                offset: refOffset, field: field(), reason: .nodeIndexOutOfRange(index: ref, nodeCount: nodes.count))
        }
        let clockOffset = reader.offset
        let stamp = Stamp(hlc: HLCTimestamp(rawValue: try reader.fixedWidth(8, "the clock of " + field())), node: node)
        if let reason = ChangesetFormat.problem(stamp: stamp) {
            throw ChangesetError.malformed(offset: clockOffset, field: "the clock of " + field(), reason: reason)
        }
        return stamp
    }

    private func readValue(_ field: @autoclosure () -> String) throws -> SQLiteValue {
        let offset = reader.offset
        let tag = try reader.byte(field())
        switch tag {
        case ChangesetFormat.nullTag:
            return .null
        case ChangesetFormat.integerTag:
            return .integer(ChangesetFormat.unzigzag(try reader.varint(field())))
        case ChangesetFormat.realTag:
            let value = Double(bitPattern: try reader.fixedWidth(8, field()))
            if value.isNaN { throw ChangesetError.malformed(offset: offset, field: field(), reason: .notANumber) }
            return .real(value)
        case ChangesetFormat.textTag:
            // Any bytes: SQLite's TEXT need not be UTF-8 (see ``SQLiteText``).
            let length = try reader.count(field(), limit: ChangesetFormat.maxLength)
            return .text(SQLiteText(bytes: try reader.bytes(length, field())))
        case ChangesetFormat.blobTag:
            let length = try reader.count(field(), limit: ChangesetFormat.maxLength)
            return .blob(try reader.bytes(length, field()))
        default:
            throw ChangesetError.malformed(offset: offset, field: field(), reason: .unknownValueTag(tag))
        }
    }
}

extension Changeset {
    /// Decodes a binary changeset held in memory, validating all of it.
    ///
    /// ```swift
    /// let changes = try Changeset(decoding: bytes)
    /// ```
    public init(decoding bytes: [UInt8]) throws {
        let decoder = try ChangesetDecoder(bytes: bytes)
        var rows: [RowChange] = []
        while let row = try decoder.next() { rows.append(row) }
        self.init(header: decoder.header, rows: rows)
    }
}
