/// Writes a changeset in the binary format, row by row, to a ``ByteSink``.
///
/// Streaming lets a replica export more rows than fit in memory; the format
/// is versioned so a future build can refuse what it cannot read, compact
/// (varints, node ids written once) so syncs stay small, and checksummed so a
/// damaged copy is refused instead of merged. The encoder refuses anything a
/// decoder would refuse, so whatever encodes decodes to an equal changeset,
/// and equal changesets encode to identical bytes.
///
/// ```swift
/// let sink = try FileByteSink(path: "changes.cncd")
/// let encoder = ChangesetEncoder(sink: sink)
/// try encoder.begin(header: header)
/// for row in rows { try encoder.write(row) }
/// try encoder.finish()
/// try sink.close()
/// ```
///
/// ## Layout (format version 3)
///
/// Fixed-width integers are little endian. A *varint* is unsigned LEB128
/// (7 bits a byte, low group first, high bit set when more follow), at most
/// 10 bytes and in its shortest form. A *zigzag* is a signed integer `n`
/// stored as the varint `(n << 1) ^ (n >> 63)`. A *string* is a varint byte
/// count and that many bytes of UTF-8.
///
/// ```text
/// header   "CNCD"                magic, 4 bytes
///          u16                   format version (3)
///          string                needs: the oldest release that reads it ("0.3.0")
///          16 bytes              source node id
///          zigzag since, zigzag upTo     0 <= since <= upTo
///          varint n, n × table   table = string name, string key,
///                                        varint m, m × (string column, string merge),
///                                        u8 policy (0 column, 1 row)
/// rows     u8 1                  row tag
///          varint                table index into the header's tables
///          value                 primary key (never NULL)
///          varint                column count; must equal the table's
///          varint                causal length
///          stamp?                liveness stamp (absent only for length 0)
///          per column:
///            stamp?              the column's stamp (absent: never written)
///            value               only when the stamp is present
///            varint k,           only when the stamp is present and the
///            k × contribution    column's merge is counter; contribution =
///                                varint causalLength, zigzag amount, stamp
///          u8                    seen tag: 0 unknown, 1 a list follows,
///                                2 none saw anything of another device
///          per column, with tag 1, only where the column merges lww and
///          holds a register:
///            stamp?              what that write saw (absent: nothing of
///                                another device)
/// end      u8 2                  end tag
///          varint                number of rows
///          u32                   CRC-32 (zlib) of every byte before it
/// ```
///
/// The *seen* list (``RowChange/seen``) came with format 3; formats 1 and 2
/// end a row after its columns, and read back with `seen` unknown. A seen
/// stamp is at or below the stamp of its register.
///
/// *needs* names the oldest Concord release that reads the format: "0.2.0"
/// for format 2, "0.3.0" for format 3, fixed with the format (a decoder refuses any other). It comes
/// right after the format number so that a build given a newer format, whose
/// rest it cannot parse, still finds it there and can say which release to
/// update to; every later format keeps the magic, the u16 and this string
/// first, the string at most 32 ASCII letters, digits, `.`, `+` or `-` so an
/// older build will show it. Format 1 is the same layout without *needs*,
/// which is why a build that reads only format 1 can say no more of a newer
/// changeset than that its format is unknown. Decoders read every format up
/// to their own, so an older changeset is never refused.
///
/// *stamp?* is a varint node reference `r`, then (when `r != 0`) the clock as
/// a u64 raw ``HLCTimestamp``. `r == 0` means no stamp (a never-written column,
/// an unknown row). Node ids are not listed up front: the node table starts as
/// `[source]`, `1 ... count` refers to entry `r - 1`, and `r == count + 1`
/// introduces a new node whose 16 bytes follow `r` (before the clock) and
/// become entry `count`. So the encoder needs no node list in advance, and
/// each id is written once, at its first use.
///
/// *merge* is the column's ``ColumnMerge/name``: `lww`, `max`, `min`,
/// `counter`, `union`, or the name of a custom merge. It is an identifier
/// like the column names (non-empty, no NUL), compared exactly; a custom
/// merge cannot take a built-in's name, since the name reads back as the
/// built-in.
///
/// A *contribution* is one node's share of a counter (a
/// ``CounterContribution``). Its stamp is never absent (`r != 0`) and is
/// written like any other, so a node first seen in a contribution is
/// introduced there. The `k` contributions of a register are in strictly
/// increasing node-id order (the order of ``NodeID``'s bytes), which makes
/// the encoding canonical and a node's second entry impossible. A register
/// of any other column has no contribution list at all; the encoder refuses
/// one that carries contributions.
///
/// *value* is a tag byte and a payload: 0 NULL (none), 1 integer (zigzag),
/// 2 real (u64 IEEE 754 bit pattern, so -0.0 and infinities survive; NaN is
/// refused, as SQLite cannot store it), 3 text (string), 4 blob (varint
/// length and bytes). Texts, blobs and names are at most 1,000,000,000 bytes
/// (SQLite's default maximum), tables at most 32,767 columns, and counter
/// registers at most 2,147,483,647 contributions.
public final class ChangesetEncoder {
    private enum State { case ready, writing, finished, failed }

    private let sink: any ByteSink
    private var state = State.ready
    private var crc = CRC32()
    private var tables: [TableSchema] = []
    /// Table indices by the UTF-8 bytes of their names (exact match, as rows must name them).
    private var tableIndex: [[UInt8]: Int] = [:]
    private var nodeIndex: [NodeID: Int] = [:]
    private var scratch: [UInt8] = []

    /// Rows written so far.
    public private(set) var rowCount = 0
    /// Bytes handed to the sink so far.
    public private(set) var byteCount = 0

    /// An encoder that writes one changeset to `sink`.
    public init(sink: any ByteSink) {
        self.sink = sink
    }

    /// Validates and writes the header; call once, first.
    public func begin(header: ChangesetHeader) throws {
        try expect(
            .ready, "begin(header:)", "begin(header:) may be called only once, first; use a new encoder per changeset")
        if let reason = ChangesetFormat.problem(since: header.since, upTo: header.upTo) {
            throw ChangesetError.unencodable(field: "the header's since and upTo", reason: reason)
        }
        if let (field, reason) = ChangesetFormat.problem(tables: header.tables) {
            throw ChangesetError.unencodable(field: field, reason: reason)
        }
        tables = header.tables
        for (index, table) in tables.enumerated() { tableIndex[Array(table.name.utf8)] = index }
        nodeIndex = [header.source: 0]

        var bytes = ChangesetFormat.magic
        bytes += [
            UInt8(truncatingIfNeeded: Changeset.formatVersion), UInt8(truncatingIfNeeded: Changeset.formatVersion >> 8),
        ]
        ChangesetFormat.appendString(ChangesetFormat.writtenNeeds, to: &bytes)
        bytes += header.source.bytes
        ChangesetFormat.appendVarint(ChangesetFormat.zigzag(header.since), to: &bytes)
        ChangesetFormat.appendVarint(ChangesetFormat.zigzag(header.upTo), to: &bytes)
        ChangesetFormat.appendVarint(UInt64(tables.count), to: &bytes)
        for table in tables {
            ChangesetFormat.appendString(table.name, to: &bytes)
            ChangesetFormat.appendString(table.key, to: &bytes)
            ChangesetFormat.appendVarint(UInt64(table.columns.count), to: &bytes)
            for (column, merge) in zip(table.columns, table.merges) {
                ChangesetFormat.appendString(column, to: &bytes)
                ChangesetFormat.appendString(merge.name, to: &bytes)
            }
            bytes.append(UInt8(ChangesetFormat.policies.firstIndex(of: table.policy)!))
        }
        state = .writing
        try emit(bytes)
    }

    /// Validates and writes one row; its table must be one of the header's.
    ///
    /// A row that breaks a rule throws ``ChangesetError/unencodable(field:reason:)``
    /// before anything is written, so the encoder stays usable.
    public func write(_ row: RowChange) throws {
        try expect(.writing, "write(_:)", "write(_:) must come after begin(header:) and before finish()")
        let i = rowCount
        guard let t = tableIndex[Array(row.table.utf8)] else {
            throw ChangesetError.unencodable(field: "rows[\(i)].table", reason: .unknownTable(row.table))
        }
        let table = tables[t]
        try check(row, i, table)

        let registers = row.registers
        scratch.removeAll(keepingCapacity: true)
        scratch.append(ChangesetFormat.rowTag)
        ChangesetFormat.appendVarint(UInt64(t), to: &scratch)
        appendValue(row.key)
        ChangesetFormat.appendVarint(UInt64(registers.columns.count), to: &scratch)
        ChangesetFormat.appendVarint(registers.liveness.causalLength, to: &scratch)
        appendStamp(registers.liveness.stamp)
        for (c, register) in registers.columns.enumerated() {
            appendStamp(register?.stamp)
            guard let register else { continue }
            appendValue(register.value)
            if table.merges[c] == .counter {
                ChangesetFormat.appendVarint(UInt64(register.contributions.count), to: &scratch)
                for contribution in register.contributions {
                    ChangesetFormat.appendVarint(contribution.causalLength, to: &scratch)
                    ChangesetFormat.appendVarint(ChangesetFormat.zigzag(contribution.amount), to: &scratch)
                    appendStamp(contribution.stamp)
                }
            }
        }
        if let seen = row.seen, seen.contains(where: { $0 != nil }) {
            scratch.append(1)
            for (c, register) in registers.columns.enumerated() where register != nil && table.merges[c] == .lww {
                appendStamp(seen[c])
            }
        } else {
            scratch.append(row.seen == nil ? 0 : 2)
        }
        rowCount += 1
        try emit(scratch)
    }

    /// Throws ``ChangesetError/unencodable(field:reason:)`` if row `i`, of `table`, breaks a rule of the format.
    private func check(_ row: RowChange, _ i: Int, _ table: TableSchema) throws {
        let registers = row.registers
        if let reason = ChangesetFormat.problem(key: row.key) {
            throw ChangesetError.unencodable(field: "rows[\(i)].key (table '\(table.name)')", reason: reason)
        }
        guard registers.columns.count == table.columns.count else {
            throw ChangesetError.unencodable(
                field: "rows[\(i)].columns (table '\(table.name)')",
                reason: .columnCountMismatch(expected: table.columns.count, found: UInt64(registers.columns.count)))
        }
        if let reason = ChangesetFormat.problem(liveness: registers.liveness) {
            throw ChangesetError.unencodable(field: "rows[\(i)].liveness (table '\(table.name)')", reason: reason)
        }
        for (c, register) in registers.columns.enumerated() {
            guard let register else { continue }
            // Named only when a rule is broken: building it for every register cost more than the checks.
            var place: String { "(table '\(table.name)', column '\(table.columns[c])')" }
            if let reason = ChangesetFormat.problem(value: register.value) {
                throw ChangesetError.unencodable(field: "rows[\(i)].columns[\(c)].value \(place)", reason: reason)
            }
            if let reason = ChangesetFormat.problem(stamp: register.stamp) {
                throw ChangesetError.unencodable(field: "rows[\(i)].columns[\(c)].stamp \(place)", reason: reason)
            }
            if let (entry, reason) = ChangesetFormat.problem(
                contributions: register.contributions, merge: table.merges[c])
            {
                throw ChangesetError.unencodable(
                    field: "rows[\(i)].columns[\(c)].contributions\(entry) \(place)", reason: reason)
            }
        }
        if let seen = row.seen,
            let (column, reason) = ChangesetFormat.problem(seen: seen, registers: registers, merges: table.merges)
        {
            let entry = column.map { "[\($0)] (table '\(table.name)', column '\(table.columns[$0])')" }
            throw ChangesetError.unencodable(
                field: "rows[\(i)].seen\(entry ?? " (table '\(table.name)')")", reason: reason)
        }
    }

    /// Writes the end record and checksum, then flushes the sink (without closing it).
    public func finish() throws {
        try expect(.writing, "finish()", "finish() must come after begin(header:), once")
        var bytes = [ChangesetFormat.endTag]
        ChangesetFormat.appendVarint(UInt64(rowCount), to: &bytes)
        crc.update(bytes)
        let checksum = crc.value
        for shift in [0, 8, 16, 24] as [UInt32] { bytes.append(UInt8(truncatingIfNeeded: checksum >> shift)) }
        state = .finished
        do {
            try sink.write(bytes)
            try sink.flush()
            byteCount += bytes.count
        } catch {
            state = .failed
            throw error
        }
    }

    /// Writes a whole changeset: `begin`, every row, `finish`.
    public func encode(_ changeset: Changeset) throws {
        try begin(header: changeset.header)
        for row in changeset.rows { try write(row) }
        try finish()
    }

    private func expect(_ expected: State, _ call: String, _ rule: String) throws {
        guard state == expected else {
            let now =
                switch state {
                case .ready: "before begin(header:)"
                case .writing: "while rows are being written"
                case .finished: "after finish()"
                case .failed: "after the sink failed"
                }
            throw ChangesetError.unencodable(field: call, reason: .encoderState("called \(now); \(rule)"))
        }
    }

    private func emit(_ bytes: [UInt8]) throws {
        crc.update(bytes)
        do {
            try sink.write(bytes)
        } catch {
            state = .failed
            throw error
        }
        byteCount += bytes.count
    }

    private func appendStamp(_ stamp: Stamp?) {
        guard let stamp else { return scratch.append(0) }
        if let index = nodeIndex[stamp.node] {
            ChangesetFormat.appendVarint(UInt64(index) + 1, to: &scratch)
        } else {
            let index = nodeIndex.count
            nodeIndex[stamp.node] = index
            ChangesetFormat.appendVarint(UInt64(index) + 1, to: &scratch)
            scratch += stamp.node.bytes
        }
        ChangesetFormat.appendUInt64(stamp.hlc.rawValue, to: &scratch)
    }

    private func appendValue(_ value: SQLiteValue) {
        switch value {
        case .null:
            scratch.append(ChangesetFormat.nullTag)
        case .integer(let v):
            scratch.append(ChangesetFormat.integerTag)
            ChangesetFormat.appendVarint(ChangesetFormat.zigzag(v), to: &scratch)
        case .real(let v):
            scratch.append(ChangesetFormat.realTag)
            ChangesetFormat.appendUInt64(v.bitPattern, to: &scratch)
        case .text(let v):
            scratch.append(ChangesetFormat.textTag)
            ChangesetFormat.appendVarint(UInt64(v.bytes.count), to: &scratch)
            scratch += v.bytes
        case .blob(let v):
            scratch.append(ChangesetFormat.blobTag)
            ChangesetFormat.appendVarint(UInt64(v.count), to: &scratch)
            scratch += v
        }
    }
}

extension Changeset {
    /// The changeset in the binary format (see ``ChangesetEncoder`` for the layout).
    ///
    /// Throws ``ChangesetError/unencodable(field:reason:)`` if it breaks a rule
    /// of the format (a row of an unlisted table, a NULL key, a NaN, counter
    /// contributions out of node order or on a column that is not a counter, ...).
    ///
    /// ```swift
    /// let bytes = try changes.encoded()
    /// ```
    public func encoded() throws -> [UInt8] {
        let sink = MemoryByteSink()
        try ChangesetEncoder(sink: sink).encode(self)
        return sink.bytes
    }
}
