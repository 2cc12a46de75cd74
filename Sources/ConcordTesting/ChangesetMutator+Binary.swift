import ConcordCore

extension ChangesetMutator {
    /// The binary edits and how often each is drawn: structure-aware ones about two times in three.
    private static let binaryKinds: [(kind: Kind, weight: UInt64)] = [
        (.truncate, 3), (.flipBits, 3), (.overwriteBytes, 2), (.insertBytes, 2), (.deleteBytes, 2), (.splice, 2),
        (.duplicateRecord, 2), (.varint, 7), (.clock, 4), (.nodeID, 3), (.nodeReference, 3), (.valueTag, 3),
        (.realBits, 2), (.policyByte, 2), (.recordTag, 2), (.name, 4), (.formatHeader, 1), (.dropRecord, 2),
        (.swapRecords, 2),
    ]

    /// Bytes that sit on edges: zero, one, the sign bits of a byte and of a varint group, all ones.
    private static let edgeBytes: [UInt8] = [0x00, 0x01, 0x02, 0x7F, 0x80, 0x81, 0xFE, 0xFF]

    /// Makes one edit of a binary changeset and returns its kind (another kind when it does not apply).
    func editBinary(_ bytes: inout [UInt8], using source: inout ChoiceSource) -> Kind {
        let kind = Self.binaryKinds[source.index(weights: Self.binaryKinds.map(\.weight))].kind
        if kind == .splice {
            let partner = partner(.binary, using: &source)
            bytes =
                Array(bytes[..<source.offset(below: bytes.count + 1)])
                + partner[source.offset(below: partner.count + 1)...]
            return .splice
        }
        let map = BinaryChangesetMap(bytes)
        if applyStructured(kind, map, &bytes, using: &source) { return kind }
        return applyRaw(kind, map, &bytes, using: &source)
    }

    /// The byte-level edits; any kind they do not know becomes a bit flip.
    private func applyRaw(
        _ kind: Kind, _ map: BinaryChangesetMap, _ bytes: inout [UInt8], using source: inout ChoiceSource
    ) -> Kind {
        switch kind {
        case .truncate where !bytes.isEmpty:
            // Half the time at a field boundary, where a decoder switches from one field to the next.
            let boundaries = map.spans.map(\.range.lowerBound)
            let cut = !boundaries.isEmpty && source.bool() ? source.pick(boundaries) : source.offset(below: bytes.count)
            bytes.removeSubrange(min(cut, bytes.count)...)
            return .truncate
        case .overwriteBytes where !bytes.isEmpty:
            let start = source.offset(below: bytes.count)
            let run = run(length: min(1 + source.offset(below: 16), bytes.count - start), using: &source)
            bytes.replaceSubrange(start..<start + run.count, with: run)
            return .overwriteBytes
        case .insertBytes:
            let at = source.offset(below: bytes.count + 1)
            let inserted: [UInt8]
            if !bytes.isEmpty && source.bool() {
                let from = source.offset(below: bytes.count)
                inserted = Array(bytes[from..<min(bytes.count, from + 1 + source.offset(below: 32))])
            } else {
                inserted = run(length: 1 + source.offset(below: 16), using: &source)
            }
            bytes.insert(contentsOf: inserted, at: at)
            return .insertBytes
        case .deleteBytes where !bytes.isEmpty:
            let start = source.offset(below: bytes.count)
            bytes.removeSubrange(start..<min(bytes.count, start + 1 + source.offset(below: 16)))
            return .deleteBytes
        case .duplicateRecord where !map.records.isEmpty:
            let record = source.pick(map.records)
            let boundaries = map.records.map(\.lowerBound) + [map.records.last!.upperBound]
            bytes.insert(contentsOf: bytes[record], at: source.pick(boundaries))
            fixRowCount(&bytes, using: &source)
            return .duplicateRecord
        default:
            guard !bytes.isEmpty else {
                bytes = run(length: 1 + source.offset(below: 8), using: &source)
                return .insertBytes
            }
            for _ in 0..<(1 + source.index(weights: [4, 2, 1, 1])) {
                bytes[source.offset(below: bytes.count)] ^= 1 << UInt8(source.choose(upTo: 7))
            }
            return .flipBits
        }
    }

    /// A run of edge bytes or arbitrary ones.
    private func run(length: Int, using source: inout ChoiceSource) -> [UInt8] {
        if source.bool() { return source.randomBytes(length) }
        let byte = source.pick(Self.edgeBytes)
        return Array(repeating: byte, count: length)
    }

    /// The structure-aware edits; returns `false` when the map has no field the kind needs.
    private func applyStructured(
        _ kind: Kind, _ map: BinaryChangesetMap, _ bytes: inout [UInt8], using source: inout ChoiceSource
    ) -> Bool {
        switch kind {
        case .varint, .clock, .nodeID, .nodeReference:
            return editNumber(kind, map, &bytes, using: &source)
        case .valueTag, .realBits, .policyByte, .recordTag:
            return editTag(kind, map, &bytes, using: &source)
        case .name, .formatHeader, .dropRecord, .swapRecords:
            return editLayout(kind, map, &bytes, using: &source)
        default:
            return false
        }
    }

    /// Rewrites a varint, clock, node id or node reference; `false` when the map has none.
    private func editNumber(
        _ kind: Kind, _ map: BinaryChangesetMap, _ bytes: inout [UInt8], using source: inout ChoiceSource
    ) -> Bool {
        switch kind {
        case .varint:
            guard
                let span = map.pickSpan(
                    [
                        .needsLength, .since, .upTo, .tableCount, .nameLength, .columnCount, .tableIndex, .integer,
                        .valueLength, .rowColumnCount, .causalLength, .nodeReference,
                        .contributionCount, .contributionLength, .amount, .rowCount,
                    ], using: &source)
            else { return false }
            let current = BinaryChangesetMap.decodeVarint(bytes[span.range])
            let remaining = UInt64(bytes.count - span.range.upperBound)
            let value = source.pick(
                HostileValues.varints + [
                    current &+ 1, current &- 1, current &* 2, remaining, remaining + 1, remaining + 1_000,
                ])
            replace(&bytes, span.range, varintBytes(value, using: &source))
        case .clock:
            guard let span = map.pickSpan([.clock], using: &source) else { return false }
            let current = BinaryChangesetMap.littleEndianValue(bytes[span.range])
            replace(
                &bytes,
                span.range, BinaryChangesetMap.littleEndian(source.pick(HostileValues.clocks(near: current)), width: 8))
        case .nodeID:
            let spans = map.spans(of: [.nodeID, .sourceNode])
            guard let span = spans.isEmpty ? nil : source.pick(spans) else { return false }
            if spans.count > 1 && source.bool() {
                // Swap two ids in place.
                let other = source.pick(spans)
                let (a, b) = (Array(bytes[span.range]), Array(bytes[other.range]))
                replace(&bytes, span.range, b)
                replace(&bytes, other.range, a)
            } else {
                replace(&bytes, span.range, source.pick(nodes).bytes)
            }
        case .nodeReference:
            guard let span = map.pickSpan([.nodeReference], using: &source) else { return false }
            let count = UInt64(map.nodes.count)
            replace(
                &bytes,
                span.range,
                BinaryChangesetMap.varint(
                    source.pick([
                        0, 1, 2, count, count + 1, count + 2, 127, 128,
                        UInt64(Int64.max), UInt64.max,
                    ])))
        default:
            return false
        }
        return true
    }

    /// Rewrites a value tag, a real's bits, a policy byte or a record tag; `false` when the map has none.
    private func editTag(
        _ kind: Kind, _ map: BinaryChangesetMap, _ bytes: inout [UInt8], using source: inout ChoiceSource
    ) -> Bool {
        switch kind {
        case .valueTag:
            guard let span = map.pickSpan([.valueTag], using: &source) else { return false }
            replace(&bytes, span.range, [source.pick([0, 1, 2, 3, 4, 5, 0x80, 0xFF])])
        case .realBits:
            guard let span = map.pickSpan([.real], using: &source) else { return false }
            let patterns: [UInt64] = [
                0x7FF8_0000_0000_0000, 0x7FF0_0000_0000_0001, 0xFFF8_0000_0000_0000, 0x7FFF_FFFF_FFFF_FFFF,
                0x8000_0000_0000_0000, 0x7FF0_0000_0000_0000, 0xFFF0_0000_0000_0000, 0x7FEF_FFFF_FFFF_FFFF, 1, 0,
            ]
            replace(&bytes, span.range, BinaryChangesetMap.littleEndian(source.pick(patterns), width: 8))
        case .policyByte:
            guard let span = map.pickSpan([.policy], using: &source) else { return false }
            replace(&bytes, span.range, [source.pick([0, 1, 2, 3, 0x7F, 0x80, 0xFF])])
        case .recordTag:
            // A record's tag, or the tag that says whether a row's seen list follows.
            guard let span = map.pickSpan([.recordTag, .seenTag], using: &source) else { return false }
            // 0, 1, 2 are tags of both; 3 and 0xFF of neither.
            replace(&bytes, span.range, [source.pick([0, 1, 2, 3, 0xFF])])
        default:
            return false
        }
        return true
    }

    /// Rewrites a name or the header, or drops or swaps records; `false` when there is nothing to edit.
    private func editLayout(
        _ kind: Kind, _ map: BinaryChangesetMap, _ bytes: inout [UInt8], using source: inout ChoiceSource
    ) -> Bool {
        switch kind {
        case .name:
            guard !map.names.isEmpty else { return false }
            let range = source.pick(map.names)
            if source.bool(probability: 0.3) {
                // Another name of the same changeset (length included): duplicates, swapped roles.
                replace(&bytes, range, Array(bytes[source.pick(map.names)]))
            } else {
                let name = source.pick(HostileValues.names)
                replace(&bytes, range, BinaryChangesetMap.varint(UInt64(name.count)) + name)
            }
        case .formatHeader:
            guard bytes.count >= 6 else { return false }
            switch source.choose(upTo: 4) {
            case 0:
                // 1: the oldest format, whose reader takes the release name for the source node id; 2: rows
                // without seen lists; 4: a newer one.
                replace(
                    &bytes, 4..<6,
                    BinaryChangesetMap.littleEndian(source.pick([0, 1, 2, 4, 0x0100, 0xFFFF]), width: 2))
            case 1: replace(&bytes, 0..<4, Array(source.pick(["CNCE", "cncd", "CNC", "{\"CN", ""]).utf8))
            case 2: bytes.insert(contentsOf: source.pick([[0xEF, 0xBB, 0xBF], [0x20], [0x00]]), at: 0)
            case 3 where map.needs != nil:
                // Another release than the format's: a newer or older one, none, or one an old build would not show.
                let release = source.pick([
                    "0.4.0", "0.2.0", "", "0.3.0 ", "0.3.0\u{0}", String(repeating: "9", count: 33),
                ])
                replace(&bytes, map.needs!, BinaryChangesetMap.varint(UInt64(release.utf8.count)) + Array(release.utf8))
            default: bytes += bytes.prefix(source.offset(below: bytes.count + 1))
            }
        case .dropRecord:
            guard !map.records.isEmpty else { return false }
            bytes.removeSubrange(source.pick(map.records))
            fixRowCount(&bytes, using: &source)
        case .swapRecords:
            guard map.records.count >= 2 else { return false }
            let i = source.offset(below: map.records.count)
            var j = source.offset(below: map.records.count)
            if j == i { j = (i + 1) % map.records.count }
            let (first, second) = (map.records[min(i, j)], map.records[max(i, j)])
            let moved = Array(bytes[second]) + bytes[first.upperBound..<second.lowerBound] + Array(bytes[first])
            replace(&bytes, first.lowerBound..<second.upperBound, moved)
        default:
            return false
        }
        return true
    }

    /// A varint for `value`: usually shortest, sometimes padded (not minimal) or eleven bytes long.
    private func varintBytes(_ value: UInt64, using source: inout ChoiceSource) -> [UInt8] {
        var bytes = BinaryChangesetMap.varint(value)
        switch source.index(weights: [12, 2, 1]) {
        case 1:
            bytes[bytes.count - 1] |= 0x80
            bytes.append(0)
        case 2:
            bytes = Array(repeating: 0xFF, count: 10) + [0x01]
        default:
            break
        }
        return bytes
    }

    /// Usually rewrites the end record's row count to the number of records now present.
    private func fixRowCount(_ bytes: inout [UInt8], using source: inout ChoiceSource) {
        guard source.bool(probability: 0.75) else { return }
        let map = BinaryChangesetMap(bytes)
        guard let range = map.rowCount else { return }
        bytes.replaceSubrange(range, with: BinaryChangesetMap.varint(UInt64(map.records.count)))
    }
}

/// Replaces the bytes in `range` with `new`: the one edit every structured mutation makes.
private func replace(_ bytes: inout [UInt8], _ range: Range<Int>, _ new: [UInt8]) {
    bytes.replaceSubrange(range, with: new)
}

extension BinaryChangesetMap {
    /// One span of `fields`, drawn from `source`; `nil`, drawing nothing, when the changeset has none.
    fileprivate func pickSpan(_ fields: Set<Field>, using source: inout ChoiceSource) -> Span? {
        let spans = spans(of: fields)
        return spans.isEmpty ? nil : source.pick(spans)
    }
}
