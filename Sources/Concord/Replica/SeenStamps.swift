/// The `seen` column of a rows table: per column, the stamp the write of its register saw.
///
/// Packed as one BLOB, so that the rows of the many tables and writes that
/// saw nothing of another device (an insert, an edit of a row this device
/// wrote) keep a single NULL: 16 bytes per column that has a seen stamp, the
/// column's position and the node's index in `_concord_nodes` as 32-bit and
/// the clock as 64-bit big-endian integers.
///
/// ```swift
/// let blob = try SeenStamps.encode([nil, stamp], nodes: nodes)   // 16 bytes
/// try SeenStamps.decode(blob!, columns: 2, nodes: nodes)         // [nil, stamp]
/// ```
enum SeenStamps {
    /// The packed stamps; `nil` when there is none.
    static func encode(_ seen: [Stamp?], nodes: NodeDirectory) throws -> [UInt8]? {
        guard seen.contains(where: { $0 != nil }) else { return nil }
        var bytes: [UInt8] = []
        for (column, stamp) in seen.enumerated() {
            guard let stamp else { continue }
            append(UInt64(column), width: 4, to: &bytes)
            append(UInt64(bitPattern: try nodes.indexRegistering(stamp.node)), width: 4, to: &bytes)
            append(stamp.hlc.rawValue, width: 8, to: &bytes)
        }
        return bytes
    }

    /// One stamp, `hlc` under the node at `nodeIndex`, for each of `columns` columns.
    static func encode(sameFor columns: Int, nodeIndex: Int64, hlc: UInt64) -> [UInt8] {
        var bytes: [UInt8] = []
        for column in 0..<columns {
            append(UInt64(column), width: 4, to: &bytes)
            append(UInt64(bitPattern: nodeIndex), width: 4, to: &bytes)
            append(hlc, width: 8, to: &bytes)
        }
        return bytes
    }

    /// The stamps `bytes` holds, one per column (`nil` where none is); entries for columns past
    /// `columns` or for unknown nodes are skipped, and a short tail is ignored.
    static func decode(_ bytes: [UInt8], columns: Int, nodes: NodeDirectory) throws -> [Stamp?] {
        var result = [Stamp?](repeating: nil, count: columns)
        var offset = 0
        while offset + 16 <= bytes.count {
            let column = Int(read(bytes, offset, width: 4))
            let node = Int64(read(bytes, offset + 4, width: 4))
            let hlc = read(bytes, offset + 8, width: 8)
            offset += 16
            guard column < columns, let node = try nodes.node(at: node) else { continue }
            result[column] = Stamp(hlc: HLCTimestamp(rawValue: hlc), node: node)
        }
        return result
    }

    /// One packed entry, as stored: the column's position, the node's index in `_concord_nodes`, the clock.
    struct Entry: Equatable {
        var column: Int
        var nodeIndex: Int64
        var hlc: UInt64
    }

    /// The entries `bytes` holds, as stored (a short tail is ignored).
    static func entries(_ bytes: [UInt8]) -> [Entry] {
        stride(from: 0, to: bytes.count - bytes.count % 16, by: 16).map { offset in
            Entry(
                column: Int(read(bytes, offset, width: 4)), nodeIndex: Int64(read(bytes, offset + 4, width: 4)),
                hlc: read(bytes, offset + 8, width: 8))
        }
    }

    /// `entries` packed, in column order; `nil` when there is none.
    static func encode(_ entries: [Entry]) -> [UInt8]? {
        guard !entries.isEmpty else { return nil }
        var bytes: [UInt8] = []
        for entry in entries.sorted(by: { $0.column < $1.column }) {
            append(UInt64(entry.column), width: 4, to: &bytes)
            append(UInt64(bitPattern: entry.nodeIndex), width: 4, to: &bytes)
            append(entry.hlc, width: 8, to: &bytes)
        }
        return bytes
    }

    private static func append(_ value: UInt64, width: Int, to bytes: inout [UInt8]) {
        for shift in stride(from: (width - 1) * 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    private static func read(_ bytes: [UInt8], _ offset: Int, width: Int) -> UInt64 {
        bytes[offset..<offset + width].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
