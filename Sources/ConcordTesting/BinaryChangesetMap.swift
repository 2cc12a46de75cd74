import ConcordCore

/// Where each field of a binary changeset lies, read as far as the bytes allow.
///
/// Structure-aware mutations rewrite one field (a varint, a clock, a name) in
/// place and then fix the checksum, so that the damage survives the CRC check
/// and reaches the decoder's deeper rules and the replica behind them. For
/// that they need the byte range of every field; this map reads the layout
/// documented on `ChangesetEncoder` leniently, stopping quietly where the bytes
/// stop making sense, so it also maps changesets that earlier edits damaged.
///
/// ```swift
/// let map = BinaryChangesetMap(bytes)
/// let clocks = map.spans(of: [.clock])   // the byte range of every stamp's clock
/// ```
struct BinaryChangesetMap {
    /// What a span of bytes encodes.
    enum Field: Hashable, Sendable {
        case magic, version, needsLength, needsBytes, sourceNode, since, upTo, tableCount, nameLength, nameBytes
        case columnCount, policy
        case recordTag, tableIndex, valueTag, integer, real, valueLength, valueBytes, rowColumnCount, causalLength
        case nodeReference, nodeID, clock, contributionCount, contributionLength, amount, rowCount, checksum
        case seenTag

        /// Whether the field is a varint (and so may be rewritten with any length).
        var isVarint: Bool {
            switch self {
            case .needsLength, .since, .upTo, .tableCount, .nameLength, .columnCount, .tableIndex, .integer,
                .valueLength, .rowColumnCount, .causalLength, .nodeReference, .contributionCount,
                .contributionLength, .amount, .rowCount:
                true
            default:
                false
            }
        }
    }

    /// One field and its bytes.
    struct Span: Hashable, Sendable {
        var field: Field
        var range: Range<Int>
    }

    /// Every field read, in order.
    private(set) var spans: [Span] = []
    /// Each name (length and bytes): tables, keys, columns and merges.
    private(set) var names: [Range<Int>] = []
    /// The release the format needs (length and bytes), which every format but 1 writes after its number.
    private(set) var needs: Range<Int>?
    /// Each row record, from its tag to its last byte.
    private(set) var records: [Range<Int>] = []
    /// The end record's row count, when it was reached.
    private(set) var rowCount: Range<Int>?
    /// The node ids introduced so far (the source first), as bytes.
    private(set) var nodes: [[UInt8]] = []
    /// Whether the whole changeset, checksum included, was read.
    private(set) var isComplete = false

    private let bytes: [UInt8]
    private var offset = 0
    /// Per table of the header: its column count and which columns are counters.
    private var counters: [[Bool]] = []
    /// Per table of the header, which columns merge last-writer-wins (their registers have seen stamps).
    private var lww: [[Bool]] = []
    /// Whether rows end with a seen list (format 3 on).
    private var hasSeen = false

    private struct Stop: Error {}

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        do { try read() } catch {}
    }

    /// The spans of the given fields, in order.
    func spans(of fields: Set<Field>) -> [Span] {
        spans.filter { fields.contains($0.field) }
    }

    // MARK: Reading

    private mutating func read() throws {
        try take(4, .magic)
        let version = try take(2, .version)
        hasSeen = Self.littleEndianValue(bytes[version]) >= 3
        if Self.littleEndianValue(bytes[version]) != 1 {
            // Format 2 on; read for any other number too, as a damaged version is likelier than a format 0.
            let start = offset
            let length = try varint(.needsLength)
            guard length <= UInt64(bytes.count - offset) else { throw Stop() }
            try take(Int(length), .needsBytes)
            needs = start..<offset
        }
        let source = try take(16, .sourceNode)
        nodes.append(Array(bytes[source]))
        try varint(.since)
        try varint(.upTo)
        let tables = try varint(.tableCount)
        guard tables <= 10_000 else { throw Stop() }
        for _ in 0..<tables {
            try name()
            try name()
            let columns = try varint(.columnCount)
            guard columns <= 40_000 else { throw Stop() }
            var isCounter: [Bool] = []
            var isLww: [Bool] = []
            for _ in 0..<columns {
                try name()
                let merge = try name()
                isCounter.append(Array(bytes[merge]) == Array("counter".utf8))
                isLww.append(Array(bytes[merge]) == Array("lww".utf8))
            }
            try take(1, .policy)
            counters.append(isCounter)
            lww.append(isLww)
        }
        while true {
            let start = offset
            let tag = try take(1, .recordTag)
            if bytes[tag.lowerBound] == 2 {
                rowCount = try varintRange(.rowCount)
                try take(4, .checksum)
                isComplete = offset == bytes.count
                return
            }
            guard bytes[tag.lowerBound] == 1 else { throw Stop() }
            try row()
            records.append(start..<offset)
        }
    }

    private mutating func row() throws {
        let table = try varint(.tableIndex)
        guard table < UInt64(counters.count) else { throw Stop() }
        try value()
        let columns = try varint(.rowColumnCount)
        guard columns == UInt64(counters[Int(table)].count) else { throw Stop() }
        try varint(.causalLength)
        try stamp()
        var seenColumns = 0
        for (isCounter, isLww) in zip(counters[Int(table)], lww[Int(table)]) {
            guard try stamp() else { continue }
            if isLww { seenColumns += 1 }
            try value()
            if isCounter {
                let count = try varint(.contributionCount)
                guard count <= 100_000 else { throw Stop() }
                for _ in 0..<count {
                    try varint(.contributionLength)
                    try varint(.amount)
                    guard try stamp() else { throw Stop() }
                }
            }
        }
        guard hasSeen else { return }
        let tag = try take(1, .seenTag)
        // 0: unknown, 2: none saw anything; 1: a stamp (or none) per last-writer-wins register.
        guard bytes[tag.lowerBound] == 1 else { return }
        for _ in 0..<seenColumns { try stamp() }
    }

    /// A stamp; returns whether one was present (a reference other than 0).
    @discardableResult
    private mutating func stamp() throws -> Bool {
        let reference = try varint(.nodeReference)
        if reference == 0 { return false }
        if reference == UInt64(nodes.count) + 1 {
            nodes.append(Array(bytes[try take(16, .nodeID)]))
        } else if reference > UInt64(nodes.count) {
            throw Stop()
        }
        try take(8, .clock)
        return true
    }

    private mutating func value() throws {
        let tag = try take(1, .valueTag)
        switch bytes[tag.lowerBound] {
        case 0: break
        case 1: try varint(.integer)
        case 2: try take(8, .real)
        case 3, 4:
            let length = try varint(.valueLength)
            guard length <= UInt64(bytes.count - offset) else { throw Stop() }
            try take(Int(length), .valueBytes)
        default: throw Stop()
        }
    }

    /// A length-prefixed name; returns the range of its bytes.
    @discardableResult
    private mutating func name() throws -> Range<Int> {
        let start = offset
        let length = try varint(.nameLength)
        guard length <= UInt64(bytes.count - offset) else { throw Stop() }
        let text = try take(Int(length), .nameBytes)
        names.append(start..<offset)
        return text
    }

    @discardableResult
    private mutating func take(_ count: Int, _ field: Field) throws -> Range<Int> {
        guard count <= bytes.count - offset else { throw Stop() }
        let range = offset..<offset + count
        offset += count
        spans.append(Span(field: field, range: range))
        return range
    }

    @discardableResult
    private mutating func varint(_ field: Field) throws -> UInt64 {
        let range = try varintRange(field)
        return Self.decodeVarint(bytes[range])
    }

    private mutating func varintRange(_ field: Field) throws -> Range<Int> {
        let start = offset
        while true {
            guard offset < bytes.count, offset - start < 10 else { throw Stop() }
            let byte = bytes[offset]
            offset += 1
            if byte & 0x80 == 0 { break }
        }
        spans.append(Span(field: field, range: start..<offset))
        return start..<offset
    }

    // MARK: Codings

    /// The value of LEB128 bytes (bits past 64 are dropped).
    static func decodeVarint(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var value: UInt64 = 0
        for (k, byte) in bytes.enumerated() where k < 10 {
            value |= UInt64(byte & 0x7F) << UInt64(7 * k)
        }
        return value
    }

    /// `value` as shortest unsigned LEB128.
    static func varint(_ value: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
        return bytes
    }

    /// The value of little-endian bytes (at most eight).
    static func littleEndianValue(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var value: UInt64 = 0
        for (k, byte) in bytes.enumerated() where k < 8 { value |= UInt64(byte) << UInt64(8 * k) }
        return value
    }

    /// `value` as `width` little-endian bytes.
    static func littleEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * $0)) }
    }

    static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    /// Replaces the last four bytes with the CRC-32 of the bytes before them.
    static func recomputeChecksum(_ bytes: inout [UInt8]) {
        guard bytes.count >= 4 else { return }
        let crc = CRC32.checksum(bytes[..<(bytes.count - 4)])
        bytes.replaceSubrange((bytes.count - 4)..., with: littleEndian(UInt64(crc), width: 4))
    }
}
