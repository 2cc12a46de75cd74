import ConcordCore

/// Turns valid changesets into hostile ones, deterministically from a ``ChoiceSource``.
///
/// A replica applies whatever a peer sends, and a peer can send anything:
/// a file cut short, bits flipped in transit, two changesets glued together,
/// or a well-formed changeset whose numbers sit at the edge of their range
/// and whose names are ones SQLite treats specially. Each such input must be
/// refused with a clear error that leaves the database untouched, or merged
/// so that the replica stays consistent. Random bytes rarely get past the
/// magic and the checksum, so the mutator starts from valid changesets (its
/// *seeds*) and edits them at three levels:
///
/// - **bytes**: truncate, flip bits, overwrite, insert or delete runs, splice
///   two changesets, duplicate a record;
/// - **binary structure**: rewrite one field in place — a varint with an
///   extreme value (0, 2^63, 2^64−1, a length past the data), a stamp's clock,
///   a node id, a node reference, a value tag, a real's bits, a policy byte, a
///   record tag, a name — or drop and swap records, then recompute the
///   trailing CRC-32, so the damage reaches the decoder's deeper rules and the
///   replica behind them;
/// - **model**: edit the decoded `Changeset` (duplicate rows, odd keys and
///   values, extreme causal lengths, clocks and counter amounts, another
///   source, version ranges, reordered or renamed columns) and encode it
///   again, so the input is valid and tests the merge itself;
///
/// and, for the JSON form, **JSON**: truncate and edit bytes, or edit the
/// tree — numbers at and past the 64-bit edges, strings with `\u0000`, lone
/// surrogates or 70,000 characters, duplicate, missing and unknown keys,
/// wrong types, grafted subtrees and deep nesting.
///
/// Every choice comes from the source, so a seed (or a recorded choice
/// sequence) gives the same mutant on every run and every machine, and
/// ``Mutant/kinds`` says which edits made it.
///
/// ```swift
/// let mutator = try ChangesetMutator(seeds: [try phone.changes(since: 0)])
/// var source = ChoiceSource(seed: 7)
/// let hostile = mutator.mutant(using: &source)
/// do {
///     try laptop.apply(try Changeset.decode(anyFormat: hostile.bytes))
/// } catch {
///     print("refused:", error)   // and the file must be as it was
/// }
/// ```
public struct ChangesetMutator: Sendable {
    /// The two forms a changeset travels in.
    public enum Format: String, Sendable, Hashable, CaseIterable, Codable {
        /// The versioned, checksummed binary form (`Changeset.encoded()`, `Changeset(decoding:)`).
        case binary
        /// The JSON form for debugging (`Changeset.jsonData()`, `Changeset(json:)`).
        case json
    }

    /// One kind of edit; a mutant lists the kinds that made it, in order.
    ///
    /// The kinds fall in four groups: byte edits of the binary form, edits of
    /// one field of the binary form found by its structure, edits of the
    /// decoded changeset (``isModelLevel``), and edits of the JSON form.
    /// ``formats`` says which form each applies to. When a kind cannot apply
    /// (no field of its sort, no rows), the mutator makes another edit and
    /// records that one's kind instead.
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        // Binary, byte level.
        /// The bytes cut short, half the time at a field boundary.
        case truncate
        /// One to four bits flipped.
        case flipBits
        /// A run of up to 16 bytes overwritten with edge bytes (`00`, `01`, `7F`, `80`, `FF`) or arbitrary ones.
        case overwriteBytes
        /// A run of bytes inserted: edge or arbitrary bytes, or a copy of bytes from elsewhere in the changeset.
        case insertBytes
        /// A run of up to 16 bytes deleted.
        case deleteBytes
        /// The start of this changeset joined to the end of another seed's (binary or JSON).
        case splice
        /// A whole record repeated at a record boundary, usually with the row count fixed to match.
        case duplicateRecord
        // Binary, structure aware (the checksum is usually recomputed afterwards).
        /// A varint field (a version, a count, a length, an integer, a causal length) set to an extreme:
        /// 0, a power of two, 2^63, 2^64−1, or a length that runs past the data; sometimes padded.
        case varint
        /// A stamp's clock set near its current value or at an edge of the 64-bit range.
        case clock
        /// A node id replaced by another the changesets mention (or all zeros, all ones), or two ids swapped.
        case nodeID
        /// A reference to the node table pointed at 0, past its end, or far away.
        case nodeReference
        /// A value's type tag set to another type or to a byte no type uses.
        case valueTag
        /// A real's bits set to a NaN, an infinity, negative zero or the largest finite double.
        case realBits
        /// A table's policy byte set to one that names no policy.
        case policyByte
        /// A record's tag set to another record's or to one that names none.
        case recordTag
        /// A table or column name replaced with one SQLite treats specially, or with another name of the changeset.
        case name
        /// The magic, the format version or the release it needs rewritten, bytes put before it, or the header
        /// repeated after the end.
        case formatHeader
        /// A row record removed, usually with the row count fixed to match.
        case dropRecord
        /// Two row records swapped.
        case swapRecords
        /// The trailing CRC-32 was recomputed over the edited bytes.
        case recomputeChecksum
        // Model level: the decoded changeset edited and encoded again.
        /// A row repeated, sometimes with a neighbouring liveness stamp: a conflict inside one changeset.
        case duplicateRow
        /// A row's key replaced with another row's or with a hostile value.
        case key
        /// A column register's value replaced, created or removed.
        case value
        /// A row's causal length set to 0, an edge of its range, or one or two past its value.
        case causalLength
        /// One of a row's stamps (liveness, column or counter contribution) moved to another clock or node.
        case stamp
        /// A counter's contributions edited: extreme amounts and causal lengths, another node, none at all.
        case contributions
        /// The changeset's `since` and `upTo` set to an edge (0, `Int64.max`) or past the source's history.
        case versionRange
        /// The changeset's source replaced with another node id.
        case source
        /// A table declaration edited: columns reordered, removed or renamed, a merge or policy changed, the table renamed.
        case tableSchema
        /// What a row's writes saw forged: unknown, nothing, everything below them, or another register's stamp.
        case seen
        // JSON form.
        /// The JSON text cut short.
        case jsonTruncate
        /// A few bytes of the JSON text overwritten, inserted or deleted, mostly ones with a meaning in JSON.
        case jsonBytes
        /// A number replaced with one at or past the 64-bit edges, a fraction, an exponent or a malformed
        /// spelling (`01`, `1e`, `0x10`), or with its neighbour, its negation or its value with `.0` appended.
        case jsonNumber
        /// A string replaced or extended: an escaped NUL, a lone surrogate, a bad escape, a name Concord
        /// gives a meaning to (`lww`, `row`, `_concord_tables`), a hex string one digit off, or 70,000 characters.
        case jsonString
        /// An object's keys duplicated, removed, or joined by unknown ones.
        case jsonKeys
        /// A value replaced with one of another JSON type.
        case jsonWrongType
        /// An array's elements removed, repeated, swapped or reversed, or the array emptied or extended.
        case jsonArray
        /// A value replaced with a copy of another part of this changeset's tree or of another seed's.
        case jsonGraft
        /// A value wrapped in 2 to 500 levels of arrays or objects.
        case jsonNesting

        /// Whether the kind edits the decoded changeset rather than its bytes.
        public var isModelLevel: Bool {
            switch self {
            case .duplicateRow, .key, .value, .causalLength, .stamp, .contributions, .versionRange, .source,
                .tableSchema, .seen:
                true
            default:
                false
            }
        }

        /// The formats this kind can appear in.
        public var formats: [Format] {
            switch self {
            case .truncate, .flipBits, .overwriteBytes, .insertBytes, .deleteBytes, .duplicateRecord, .varint,
                .clock, .nodeID, .nodeReference, .valueTag, .realBits, .policyByte, .recordTag, .name,
                .formatHeader, .dropRecord, .swapRecords, .recomputeChecksum:
                [.binary]
            case .jsonTruncate, .jsonBytes, .jsonNumber, .jsonString, .jsonKeys, .jsonWrongType, .jsonArray,
                .jsonGraft, .jsonNesting:
                [.json]
            default:
                [.binary, .json]
            }
        }
    }

    /// A hostile changeset: its bytes, its form, and how it was made.
    public struct Mutant: Sendable, Hashable, CustomStringConvertible {
        /// The bytes to hand to a replica.
        public var bytes: [UInt8]
        /// The form the bytes claim to be (a mutant may no longer be valid in either).
        public var format: Format
        /// The edits made, in order.
        public var kinds: [Kind]
        /// The index of the seed it started from (-1 for bytes that did not come from this mutator).
        public var seed: Int

        /// A mutant made elsewhere: bytes to replay through the same checks (`concord fuzz --replay`
        /// builds one, with `seed` -1, from a file).
        ///
        /// ```swift
        /// let input = ChangesetMutator.Mutant(bytes: Array(try Data(contentsOf: url)), format: .binary,
        ///                                     kinds: [], seed: -1)
        /// ```
        public init(bytes: [UInt8], format: Format, kinds: [Kind], seed: Int) {
            self.bytes = bytes
            self.format = format
            self.kinds = kinds
            self.seed = seed
        }

        /// `binary, 312 bytes, from seed 2: varint, recomputeChecksum`.
        public var description: String {
            "\(format.rawValue), \(bytes.count) bytes" + (seed >= 0 ? ", from seed \(seed)" : "")
                + (kinds.isEmpty ? "" : ": " + kinds.map(\.rawValue).joined(separator: ", "))
        }
    }

    /// The valid changesets mutants start from.
    public let seeds: [Changeset]
    /// Each seed in the binary form.
    public let binarySeeds: [[UInt8]]
    /// Each seed in the JSON form.
    public let jsonSeeds: [[UInt8]]
    /// Node ids edits may write: every node the seeds mention, the extra ones, all zeros and all ones; sorted.
    public let nodes: [NodeID]

    /// A mutator over `seeds` (at least one); `extraNodes` are ids worth writing too, such as the receiver's own.
    ///
    /// - Throws: the encoder's error if a seed cannot be encoded.
    public init(seeds: [Changeset], extraNodes: [NodeID] = []) throws {
        precondition(!seeds.isEmpty, "ChangesetMutator needs at least one seed")
        self.seeds = seeds
        binarySeeds = try seeds.map { try $0.encoded() }
        jsonSeeds = seeds.map { $0.jsonData() }
        var nodes = Set(extraNodes)
        nodes.insert(NodeID(bytes: Array(repeating: 0, count: NodeID.byteCount))!)
        nodes.insert(NodeID(bytes: Array(repeating: 0xFF, count: NodeID.byteCount))!)
        for seed in seeds {
            nodes.insert(seed.source)
            for row in seed.rows {
                if let stamp = row.registers.liveness.stamp { nodes.insert(stamp.node) }
                for register in row.registers.columns.compactMap({ $0 }) {
                    nodes.insert(register.stamp.node)
                    for contribution in register.contributions { nodes.insert(contribution.stamp.node) }
                }
            }
        }
        self.nodes = nodes.sorted()
    }

    /// A fresh mutant: a seed, a form, optionally model-level edits, then byte or tree edits (at least one edit).
    public func mutant(using source: inout ChoiceSource) -> Mutant {
        let seed = Int(source.choose(upTo: UInt64(seeds.count - 1)))
        let format: Format = source.bool(probability: 0.35) ? .json : .binary
        var kinds: [Kind] = []
        var bytes = format == .binary ? binarySeeds[seed] : jsonSeeds[seed]
        if source.bool(probability: 0.45) {
            var changeset = seeds[seed]
            let count = 1 + source.index(weights: [6, 3, 1])
            for _ in 0..<count { kinds.append(editModel(&changeset, using: &source)) }
            if format == .json {
                bytes = changeset.jsonData()
            } else if let encoded = try? changeset.encoded() {
                bytes = encoded
            } else {
                kinds = []
            }
        }
        let edits = (kinds.isEmpty ? 1 : 0) + source.index(weights: [4, 3, 1])
        for _ in 0..<edits {
            kinds.append(
                format == .binary
                    ? editBinary(&bytes, using: &source)
                    : editJSON(&bytes, using: &source))
        }
        if format == .binary, kinds.contains(where: { !$0.isModelLevel }) {
            let structured = kinds.contains {
                [
                    .varint, .clock, .nodeID, .nodeReference, .valueTag, .realBits,
                    .policyByte, .recordTag, .name, .dropRecord, .swapRecords,
                    .duplicateRecord,
                ].contains($0)
            }
            if source.bool(probability: structured ? 0.9 : 0.4) {
                BinaryChangesetMap.recomputeChecksum(&bytes)
                kinds.append(.recomputeChecksum)
            }
        }
        return Mutant(bytes: bytes, format: format, kinds: kinds, seed: seed)
    }

    /// Mutants as a generator, for ``Property`` checks.
    public var mutants: Gen<Mutant> {
        Gen { source in mutant(using: &source) }
    }

    /// Another seed's bytes in `format`, for splicing.
    func partner(_ format: Format, using source: inout ChoiceSource) -> [UInt8] {
        let index = Int(source.choose(upTo: UInt64(seeds.count - 1)))
        return format == .binary ? binarySeeds[index] : jsonSeeds[index]
    }
}

extension ChoiceSource {
    /// One element of a non-empty array; earlier elements are simpler.
    mutating func pick<T>(_ elements: [T]) -> T {
        elements[Int(choose(upTo: UInt64(elements.count - 1)))]
    }

    /// An offset in `0..<count` (0 when `count` is 0).
    mutating func offset(below count: Int) -> Int {
        count <= 1 ? 0 : Int(choose(upTo: UInt64(count - 1)))
    }

    /// `count` arbitrary bytes from a single recorded choice.
    mutating func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SeededGenerator(seed: choose(upTo: .max))
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
    }
}
