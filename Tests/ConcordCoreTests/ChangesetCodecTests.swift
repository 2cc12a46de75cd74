import ConcordTestTraits
import Foundation
import Testing

@testable import ConcordCore

// MARK: - Fixtures

private let sourceNode = NodeID(hex: "000102030405060708090a0b0c0d0e0f")!
private let otherNode = NodeID(hex: "ffeeddccbbaa99887766554433221100")!
private let thirdNode = NodeID(hex: "0123456789abcdef0123456789abcdef")!

private func stamp(_ hlc: UInt64, _ node: NodeID = sourceNode) -> Stamp {
    Stamp(hlc: HLCTimestamp(rawValue: hlc), node: node)
}

/// One table, one row: small enough to mutate every byte of.
private let tiny = Changeset(
    source: sourceNode, since: 0, upTo: 3,
    tables: [TableSchema(name: "reminders", key: "id", columns: ["title", "done"], policy: .column)],
    rows: [
        RowChange(
            table: "reminders", key: 1,
            registers: RowRegisters(
                liveness: Liveness(causalLength: 1, stamp: stamp(65536)),
                columns: [ColumnRegister(value: "Buy milk", stamp: stamp(65537, otherNode)), nil]))
    ])

/// The bytes of `tiny`, worked out by hand from the layout on `ChangesetEncoder` (CRC from zlib).
private let tinyHex =
    "434e43440300" + "05302e332e30" + "000102030405060708090a0b0c0d0e0f" + "0006" + "01"
    + "0972656d696e64657273" + "026964" + "02" + "057469746c65" + "036c7777" + "04646f6e65" + "036c7777" + "00"
    + "01" + "00" + "0102" + "02" + "01" + "01" + "0000010000000000"
    + "02" + "ffeeddccbbaa99887766554433221100" + "0100010000000000" + "0308427579206d696c6b" + "00"
    + "00"  // seen: not known
    + "02" + "01" + "d3b6152a"

/// A counter column beside a custom and a `max` one, over two rows and three nodes.
///
/// Row p1's counter has three contributions in node order (source < third < other);
/// the third node is introduced by the column's stamp, the other node inside a
/// contribution. Its value is the sum over the row's current life (causal length 3):
/// 5 - 2; the other node's 7 was made before a delete and re-insert. Row p2's counter
/// has no contributions.
private let counters = Changeset(
    source: sourceNode, since: 3, upTo: 9,
    tables: [
        TableSchema(
            name: "posts", key: "id", columns: ["likes", "tags", "score"], policy: .column,
            merges: [.counter, .custom("tagSet"), .max])
    ],
    rows: [
        RowChange(
            table: "posts", key: "p1",
            registers: RowRegisters(
                liveness: Liveness(causalLength: 3, stamp: stamp(0x2_0000)),
                columns: [
                    ColumnRegister(
                        value: 3, stamp: stamp(0x2_0005, thirdNode),
                        contributions: [
                            CounterContribution(causalLength: 3, amount: 5, stamp: stamp(0x2_0001)),
                            CounterContribution(causalLength: 3, amount: -2, stamp: stamp(0x2_0005, thirdNode)),
                            CounterContribution(causalLength: 1, amount: 7, stamp: stamp(0x1_0000, otherNode)),
                        ]),
                    ColumnRegister(value: #"["a"]"#, stamp: stamp(0x2_0002, otherNode)),
                    nil,
                ])),
        RowChange(
            table: "posts", key: "p2",
            registers: RowRegisters(
                liveness: Liveness(causalLength: 1, stamp: stamp(0x3_0000, otherNode)),
                columns: [
                    ColumnRegister(value: 0, stamp: stamp(0x3_0000, otherNode)),
                    nil,
                    ColumnRegister(value: 2.5, stamp: stamp(0x3_0001)),
                ])),
    ])

/// The bytes of `counters`, worked out by hand from the layout on `ChangesetEncoder` (CRC from zlib).
private let countersHex =
    "434e43440300" + "05302e332e30" + "000102030405060708090a0b0c0d0e0f" + "06" + "12" + "01"
    + "05706f737473" + "026964" + "03"
    + "056c696b6573" + "07636f756e746572"  // likes, counter
    + "0474616773" + "06746167536574"  // tags, tagSet
    + "0573636f7265" + "036d6178"  // score, max
    + "00"
    // p1: alive (3), stamped by the source.
    + "01" + "00" + "03027031" + "03" + "03" + "01" + "0000020000000000"
    // likes: a new node (third) introduced by its stamp, the integer 3, then 3 contributions.
    + "02" + "0123456789abcdef0123456789abcdef" + "0500020000000000" + "0106" + "03"
    + "03" + "0a" + "01" + "0100020000000000"  // cl 3, +5, source
    + "03" + "03" + "02" + "0500020000000000"  // cl 3, -2, third
    + "01" + "0e" + "03" + "ffeeddccbbaa99887766554433221100" + "0000010000000000"  // cl 1, +7, other: new node
    + "03" + "0200020000000000" + "03055b2261225d"  // tags: other, the text ["a"]
    + "00"  // score: never written
    + "00"  // seen: not known
    // p2: alive (1), stamped by the other node.
    + "01" + "00" + "03027032" + "03" + "01" + "03" + "0000030000000000"
    + "03" + "0000030000000000" + "0100" + "00"  // likes: 0, no contributions
    + "00"  // tags: never written
    + "01" + "0100030000000000" + "02" + "0000000000000440"  // score: the real 2.5
    + "00"  // seen: not known
    + "02" + "02" + "f11f7169"

/// Every kind of value, edge cases included, over two tables and three nodes.
private let everyKind: Changeset = {
    let values: [SQLiteValue] = [
        .null, .integer(0), .integer(1), .integer(-1), .integer(.min), .integer(.max),
        .real(0.0), .real(-0.0), .real(1.5), .real(-2.25e-300), .real(.leastNonzeroMagnitude),
        .real(.greatestFiniteMagnitude), .real(.infinity), .real(-.infinity), .real(0.1), .real(1e16),
        .text(""), .text("plain"), .text("naïve café 東京 🌍👩‍👩‍👧"), .text("e\u{301} vs \u{e9}"),
        .text("quote \" backslash \\ newline \n tab \t nul \u{0} bell \u{7} del \u{7f} sep \u{2028}"),
        .blob([]), .blob([0]), .blob(Array(0...255)),
    ]
    let notes = TableSchema(name: "notes", key: "uuid", columns: ["body", "extra", "Ünïcödé column"], policy: .row)
    let empty = TableSchema(name: "tags 🏷", key: "k", columns: [], policy: .column)
    var rows: [RowChange] = []
    for (n, value) in values.enumerated() {
        let node = [sourceNode, otherNode, thirdNode][n % 3]
        let key: SQLiteValue = value.isNull ? .integer(-7) : value
        rows.append(
            RowChange(
                table: "notes", key: key,
                registers: RowRegisters(
                    liveness: n % 4 == 0
                        ? .unknown : Liveness(causalLength: UInt64(n), stamp: stamp(UInt64(n) << 16, node)),
                    columns: [
                        ColumnRegister(value: value, stamp: stamp(ChangesetFormat.maxClock - UInt64(n), node)),
                        n % 2 == 0 ? nil : ColumnRegister(value: .null, stamp: stamp(0, thirdNode)),
                        ColumnRegister(value: values[values.count - 1 - n], stamp: stamp(UInt64(n), otherNode)),
                    ])))
    }
    rows.append(
        RowChange(
            table: "tags 🏷", key: "x",
            registers: RowRegisters(
                liveness: Liveness(causalLength: Liveness.maxCausalLength, stamp: stamp(9)), columns: [])))
    return Changeset(source: sourceNode, since: 5, upTo: .max, tables: [notes, empty], rows: rows)
}()

private func hexBytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    return stride(from: 0, to: digits.count, by: 2).map {
        UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
    }
}

/// The error `body` throws, or `nil` (recorded as an issue) if it throws none or another type.
private func changesetError<T>(_ body: () throws -> T, sourceLocation: SourceLocation = #_sourceLocation)
    -> ChangesetError?
{
    do {
        _ = try body()
        Issue.record("expected a ChangesetError, but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as ChangesetError {
        return error
    } catch {
        Issue.record("expected a ChangesetError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// A source that hands out at most `chunk` bytes per read and never says how much is left, like a pipe.
private final class TrickleSource: ByteSource {
    private let bytes: [UInt8]
    private let chunks: [Int]
    private var position = 0
    private var reads = 0

    init(_ bytes: [UInt8], chunks: [Int] = [1]) {
        self.bytes = bytes
        self.chunks = chunks
    }

    func read(maxCount: Int) -> [UInt8] {
        let n = min(maxCount, chunks[reads % chunks.count], bytes.count - position)
        reads += 1
        defer { position += n }
        return Array(bytes[position..<position + n])
    }
}

private func decodeStreaming(_ bytes: [UInt8], chunks: [Int] = [1]) throws -> Changeset {
    let decoder = try ChangesetDecoder(source: TrickleSource(bytes, chunks: chunks))
    var rows: [RowChange] = []
    while let row = try decoder.next() { rows.append(row) }
    return Changeset(header: decoder.header, rows: rows)
}

/// Assembles binary changesets by hand, to produce exactly one defect at a time.
private struct Raw {
    var bytes: [UInt8] = []
    /// Where ``header(version:since:upTo:tables:merges:)`` put each field, by the decoder's name for it
    /// (`since`, `tables[1].name`, `tables[0].columns[0]`, `tables[0].merges[0]`, `tables[0].policy`, ...).
    var offsets: [String: Int] = [:]
    /// Whether rows end with a seen tag (format 3 on); ``row(key:)`` writes 0, "not known".
    var rowsHaveSeen = true

    /// Notes that the field `name` starts here.
    mutating func mark(_ name: String) { offsets[name] = bytes.count }
    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func varint(_ v: UInt64) { ChangesetFormat.appendVarint(v, to: &bytes) }
    mutating func zigzag(_ v: Int64) { varint(ChangesetFormat.zigzag(v)) }
    mutating func u64(_ v: UInt64) { ChangesetFormat.appendUInt64(v, to: &bytes) }
    mutating func string(_ s: String) { ChangesetFormat.appendString(s, to: &bytes) }
    mutating func raw(_ b: [UInt8]) { bytes += b }

    /// Magic, version (and the release it needs, from format 2 on), source, since, upTo and the given
    /// tables (name, key, columns, policy byte).
    ///
    /// `merges[t]`, when given, holds table `t`'s merge names; otherwise every column is `lww`.
    static func header(
        version: UInt16 = Changeset.formatVersion, since: Int64 = 0, upTo: Int64 = 5,
        tables: [(String, String, [String], UInt8)] = [("t", "id", ["a"], 0)],
        merges: [[String]]? = nil
    ) -> Raw {
        var r = Raw()
        r.rowsHaveSeen = version >= ChangesetFormat.firstWithSeen
        r.raw(Array("CNCD".utf8))
        r.u8(UInt8(version & 0xFF))
        r.u8(UInt8(version >> 8))
        if let needs = ChangesetFormat.needs[version] { r.string(needs) }
        r.raw(sourceNode.bytes)
        r.mark("since")
        r.zigzag(since)
        r.zigzag(upTo)
        r.varint(UInt64(tables.count))
        for (t, (name, key, columns, policy)) in tables.enumerated() {
            r.mark("tables[\(t)].name")
            r.string(name)
            r.mark("tables[\(t)].key")
            r.string(key)
            r.varint(UInt64(columns.count))
            for (c, column) in columns.enumerated() {
                r.mark("tables[\(t)].columns[\(c)]")
                r.string(column)
                r.mark("tables[\(t)].merges[\(c)]")
                r.string(merges?[t][c] ?? "lww")
            }
            r.mark("tables[\(t)].policy")
            r.u8(policy)
        }
        return r
    }

    /// A row record's first fields: its tag, table 0, the integer key `key` and the column count.
    mutating func rowHead(key: Int64 = 1, columns: UInt64 = 1) {
        u8(1)
        varint(0)
        u8(1)
        zigzag(key)
        varint(columns)
    }

    /// A valid row of table 0 (one column): key 1, alive, column unset.
    mutating func row(key: Int64 = 1) {
        rowHead(key: key, columns: 1)
        varint(1)
        varint(1)
        u64(42)
        varint(0)
        if rowsHaveSeen { u8(0) }
    }

    /// The start of a row of table 0 up to its first column: key `key`, alive (length 1), stamped by the source.
    mutating func rowStart(key: Int64 = 1, columns: UInt64 = 1) {
        rowHead(key: key, columns: columns)
        varint(1)
        varint(1)
        u64(42)
    }

    /// A stamp by node reference `ref` (1 is the source) at clock `hlc`.
    mutating func stamp(_ ref: UInt64, _ hlc: UInt64) {
        varint(ref)
        u64(hlc)
    }

    /// End tag, row count, CRC of everything so far.
    func sealed(rows: UInt64) -> [UInt8] {
        var r = self
        r.u8(2)
        r.varint(rows)
        let crc = CRC32.checksum(r.bytes)
        r.raw([0, 8, 16, 24].map { UInt8(truncatingIfNeeded: crc >> UInt32($0)) })
        return r.bytes
    }
}

/// Expects decoding `bytes` to be refused as malformed for `reason` at byte `offset`, which the message names.
private func expectMalformed(
    _ bytes: [UInt8], at offset: Int, _ reason: ChangesetError.Reason,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let error = changesetError({ try Changeset(decoding: bytes) }, sourceLocation: sourceLocation) else { return }
    guard case .malformed(let found, _, let foundReason) = error else {
        Issue.record("expected .malformed(\(reason)) at byte \(offset), got \(error)", sourceLocation: sourceLocation)
        return
    }
    #expect(foundReason == reason, "at byte \(found)", sourceLocation: sourceLocation)
    #expect(found == offset, "\(foundReason)", sourceLocation: sourceLocation)
    #expect(error.description.contains("byte \(found)"), sourceLocation: sourceLocation)
}

/// Expects the JSON `text` to be refused as malformed for `reason` at byte `offset`, which the message names.
private func expectRefused(
    _ text: String, at offset: Int, _ reason: ChangesetError.Reason,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let error = changesetError({ try Changeset(json: Array(text.utf8)) }, sourceLocation: sourceLocation) else {
        return
    }
    guard case .malformed(let found, _, let foundReason) = error else {
        Issue.record("expected .malformed(\(reason)) at byte \(offset), got \(error)", sourceLocation: sourceLocation)
        return
    }
    #expect(foundReason == reason, "at byte \(found)", sourceLocation: sourceLocation)
    #expect(found == offset, "\(foundReason)", sourceLocation: sourceLocation)
    #expect(error.description.contains("byte \(found)"), sourceLocation: sourceLocation)
}

/// Expects the JSON `text` to be refused for `reason` where `marker` starts, the first time it follows `prefix`.
private func expectRefused(
    _ text: String, at marker: String, after prefix: String = "", _ reason: ChangesetError.Reason,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let bytes = Array(text.utf8)
    guard let range = bytes.firstRange(of: Array((prefix + marker).utf8)) else {
        Issue.record("the JSON text lacks \((prefix + marker).debugDescription)", sourceLocation: sourceLocation)
        return
    }
    expectRefused(text, at: range.lowerBound + prefix.utf8.count, reason, sourceLocation: sourceLocation)
}

/// For each byte of `bytes`, a valid binary changeset, the offset where the field holding it starts.
///
/// Cut short before byte `n`, the decoder says which field it was reading when the bytes ran out:
/// the field that holds byte `n`. A field's bytes are the run of positions that name it. (So fields
/// of one name next to each other read as one, which only makes the bound this gives looser.)
private func fieldStarts(_ bytes: [UInt8]) -> [Int] {
    var starts: [Int] = []
    var previous: String?
    for n in bytes.indices {
        var field: String =
            switch changesetError({ try Changeset(decoding: Array(bytes.prefix(n))) }) {
            case .truncated(_, let field)?: field
            case let other: "unexpected \(String(describing: other))"
            }
        // The decoder checks the version range as one field, "since and upTo", at since's offset.
        if field == "upTo" { field = "since" }
        starts.append(field == previous ? starts[n - 1] : n)
        previous = field
    }
    return starts
}

// MARK: - Random changesets

/// The seeds a randomized test runs: `CONCORD_SEED` alone when set (to replay a failure), else `count` fixed ones.
private func seeds(_ count: UInt64, salt: UInt64) -> [UInt64] {
    if let text = ProcessInfo.processInfo.environment["CONCORD_SEED"], let seed = UInt64(text) { return [seed] }
    return (0..<count).map { $0 &* 0x9E37_79B9 &+ salt }
}

private func randomText(_ rng: inout SeededGenerator, maxLength: Int = 12) -> String {
    let ranges: [ClosedRange<UInt32>] = [
        0x20...0x7E, 0x00...0x1F, 0xA0...0x17F, 0x300...0x36F, 0x4E00...0x4E80, 0x1F600...0x1F64F, 0xFFF0...0xFFFF,
    ]
    var text = String.UnicodeScalarView()
    for _ in 0..<Int.random(in: 0...maxLength, using: &rng) {
        let range = ranges.randomElement(using: &rng)!
        text.append(Unicode.Scalar(UInt32.random(in: range, using: &rng))!)
    }
    return String(text)
}

private func randomValue(_ rng: inout SeededGenerator) -> SQLiteValue {
    switch Int.random(in: 0..<8, using: &rng) {
    case 0: return .null
    case 1: return .integer([0, 1, -1, .min, .max, 127, 128, -64, -65].randomElement(using: &rng)!)
    case 2: return .integer(Int64(bitPattern: rng.next()) >> UInt64.random(in: 0...63, using: &rng))
    case 3:
        var bits = rng.next()
        while Double(bitPattern: bits).isNaN { bits = rng.next() }
        return .real(Double(bitPattern: bits))
    case 4:
        return .real(
            [0.0, -0.0, .infinity, -.infinity, 0.1, 1e-5, 123456.789, .leastNonzeroMagnitude].randomElement(
                using: &rng)!)
    case 5, 6: return .text(randomText(&rng))
    default: return .blob((0..<Int.random(in: 0...20, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
    }
}

extension Stamp {
    /// A stamp of `node` at a random clock, small or large.
    fileprivate init(node: NodeID, _ rng: inout SeededGenerator) {
        self.init(hlc: HLCTimestamp(rawValue: rng.next() >> UInt64.random(in: 1...63, using: &rng)), node: node)
    }
}

/// What the writes of `columns` saw, as a peer may say it: unknown (an older format), nothing at all, or per
/// last-writer-wins register nothing, its own stamp (everything below it), or any stamp at or below it,
/// clock 0 and another register's node included.
private func randomSeen(
    _ columns: [ColumnRegister?], merges: [ColumnMerge], nodes: [NodeID], _ rng: inout SeededGenerator
) -> [Stamp?]? {
    switch Int.random(in: 0..<6, using: &rng) {
    case 0: return nil
    case 1: return Array(repeating: nil, count: columns.count)
    default:
        return zip(columns, merges).map { register, merge in
            guard let register, merge == .lww else { return nil }
            let hlc = register.stamp.hlc.rawValue
            // Below the register's clock any node will do; at clock 0 only the register's own stamp is not above it.
            guard hlc > 0 else { return Bool.random(using: &rng) ? nil : register.stamp }
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: return nil
            case 1: return register.stamp
            case 2: return Stamp(hlc: HLCTimestamp(rawValue: 0), node: nodes.randomElement(using: &rng)!)
            default:
                let below = UInt64.random(in: 0..<hlc, using: &rng)
                return Stamp(hlc: HLCTimestamp(rawValue: below), node: nodes.randomElement(using: &rng)!)
            }
        }
    }
}

private func randomChangeset(_ rng: inout SeededGenerator) -> Changeset {
    let nodes = (0..<Int.random(in: 1...4, using: &rng)).map { _ in NodeID.random(using: &rng) }
    let names = ["reminders", "Lists", "naïve", "表", "a b", "x\"y", "tags", "items"].shuffled(using: &rng)
    let mergeChoices = ColumnMerge.builtIns + [.custom("tagSet"), .custom("Max"), .custom("ünïon 🧮")]
    var tables: [TableSchema] = []
    for name in names.prefix(Int.random(in: 0...3, using: &rng)) {
        let columns = ["title", "done", "Due", "ünï", "notes", "rank"].shuffled(using: &rng)
            .prefix(Int.random(in: 0...5, using: &rng))
        // Counters half the time, so most changesets have some.
        let merges = columns.map { _ in
            Bool.random(using: &rng) ? ColumnMerge.counter : mergeChoices.randomElement(using: &rng)!
        }
        tables.append(
            TableSchema(
                name: name, key: "id", columns: Array(columns),
                policy: TablePolicy.allCases.randomElement(using: &rng)!, merges: merges))
    }
    func randomStamp(_ rng: inout SeededGenerator) -> Stamp {
        Stamp(node: nodes.randomElement(using: &rng)!, &rng)
    }
    var rows: [RowChange] = []
    if !tables.isEmpty {
        for _ in 0..<Int.random(in: 0...20, using: &rng) {
            let table = tables.randomElement(using: &rng)!
            var key = randomValue(&rng)
            if key.isNull { key = .integer(0) }
            let length = Bool.random(using: &rng) ? UInt64.random(in: 0...5, using: &rng) : rng.next() >> 2
            let liveness =
                length == 0 && Bool.random(using: &rng)
                ? Liveness.unknown : Liveness(causalLength: length, stamp: randomStamp(&rng))
            let columns: [ColumnRegister?] = table.merges.map { merge in
                if Bool.random(using: &rng) { return nil }
                var register = ColumnRegister(value: randomValue(&rng), stamp: randomStamp(&rng))
                if merge == .counter {
                    // A random subset of the nodes, each at most once, in node order.
                    register.contributions = nodes.sorted().filter { _ in Bool.random(using: &rng) }.map { node in
                        let amounts: [Int64] = [
                            0, 1, -1, .min, .max,
                            Int64(bitPattern: rng.next()) >> UInt64.random(in: 0...63, using: &rng),
                        ]
                        return CounterContribution(
                            causalLength: Bool.random(using: &rng)
                                ? UInt64.random(in: 0...5, using: &rng) : rng.next() >> 2,
                            amount: amounts.randomElement(using: &rng)!,
                            stamp: Stamp(node: node, &rng))
                    }
                }
                return register
            }
            rows.append(
                RowChange(
                    table: table.name, key: key, registers: RowRegisters(liveness: liveness, columns: columns),
                    seen: randomSeen(columns, merges: table.merges, nodes: nodes, &rng)))
        }
    }
    let upTo = Int64.random(in: 0...Int64.max, using: &rng)
    return Changeset(
        source: nodes[0], since: Int64.random(in: 0...upTo, using: &rng), upTo: upTo, tables: tables, rows: rows)
}

// MARK: - Tests

@Suite("Changeset codec", .tags(.core), .timeLimit(.hangGuard))
struct ChangesetCodecTests {
    @Test func crc32MatchesZlib() {
        #expect(CRC32.checksum([UInt8]()) == 0)
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum(Array("The quick brown fox jumps over the lazy dog".utf8)) == 0x414F_A339)
        var crc = CRC32()
        crc.update(Array("1234".utf8))
        crc.update(Array("56789".utf8)[...])
        #expect(crc.value == 0xCBF4_3926)
    }

    @Test func varintsAndZigzag() {
        for value: Int64 in [0, 1, -1, 63, -64, 64, .max, .min, 1 << 40] {
            #expect(ChangesetFormat.unzigzag(ChangesetFormat.zigzag(value)) == value)
        }
        #expect(ChangesetFormat.zigzag(-1) == 1)
        #expect(ChangesetFormat.zigzag(1) == 2)
        var bytes: [UInt8] = []
        ChangesetFormat.appendVarint(300, to: &bytes)
        #expect(bytes == [0xAC, 0x02])
        bytes = []
        ChangesetFormat.appendVarint(.max, to: &bytes)
        #expect(bytes == Array(repeating: 0xFF, count: 9) + [0x01])
    }

    @Test func binaryLayoutIsPinned() throws {
        let bytes = try tiny.encoded()
        #expect(bytes == hexBytes(tinyHex))
        #expect(try Changeset(decoding: hexBytes(tinyHex)) == tiny)
    }

    @Test func jsonLayoutIsPinned() throws {
        let expected = """
            {
              "format": 3,
              "needs": "0.3.0",
              "rows": [
                {
                  "columns": [
                    {
                      "stamp": {
                        "hlc": 65537,
                        "node": "ffeeddccbbaa99887766554433221100"
                      },
                      "value": {
                        "text": "Buy milk"
                      }
                    },
                    null
                  ],
                  "key": {
                    "integer": 1
                  },
                  "liveness": {
                    "causalLength": 1,
                    "stamp": {
                      "hlc": 65536,
                      "node": "000102030405060708090a0b0c0d0e0f"
                    }
                  },
                  "table": "reminders"
                }
              ],
              "since": 0,
              "source": "000102030405060708090a0b0c0d0e0f",
              "tables": [
                {
                  "columns": [
                    "title",
                    "done"
                  ],
                  "key": "id",
                  "merges": [
                    "lww",
                    "lww"
                  ],
                  "name": "reminders",
                  "policy": "column"
                }
              ],
              "upTo": 3
            }

            """
        #expect(String(decoding: tiny.jsonData(), as: UTF8.self) == expected)
        #expect(try Changeset(json: Array(expected.utf8)) == tiny)
    }

    @Test func binaryRoundTripKeepsEveryValueBitExact() throws {
        let bytes = try everyKind.encoded()
        let decoded = try Changeset(decoding: bytes)
        #expect(decoded == everyKind)
        // == treats -0.0 and 0.0 alike; re-encoding compares the bit patterns too.
        #expect(try decoded.encoded() == bytes)
        let negativeZero = decoded.rows.first { $0.key.description == "-0.0" }
        #expect(negativeZero.map { if case .real(let v) = $0.key { v.sign == .minus } else { false } } == true)
        // Text keeps its exact bytes, not merely a canonically equivalent string.
        #expect(
            decoded.rows.map { Array($0.key.textValue?.utf8 ?? "".utf8) }
                == everyKind.rows.map { Array($0.key.textValue?.utf8 ?? "".utf8) })
    }

    @Test func jsonRoundTripKeepsEveryValueBitExact() throws {
        let json = everyKind.jsonData()
        let decoded = try Changeset(json: json)
        #expect(decoded == everyKind)
        #expect(try decoded.encoded() == everyKind.encoded())
        #expect(decoded.jsonData() == json)
        #expect(try Changeset.decode(anyFormat: json) == everyKind)
        #expect(try Changeset.decode(anyFormat: everyKind.encoded()) == everyKind)
    }

    @Test func emptyChangesetRoundTrips() throws {
        let empty = Changeset(source: sourceNode, since: 0, upTo: 0, tables: [], rows: [])
        #expect(try Changeset(decoding: empty.encoded()) == empty)
        #expect(try Changeset(json: empty.jsonData()) == empty)
        #expect(String(decoding: empty.jsonData(), as: UTF8.self).contains(#""rows": []"#))
    }

    @Test func streamingDecodeReadsRowByRow() throws {
        let bytes = try everyKind.encoded()
        let decoder = try ChangesetDecoder(source: TrickleSource(bytes, chunks: [1, 3, 7, 64]))
        #expect(decoder.header == everyKind.header)
        for expected in everyKind.rows {
            #expect(try decoder.next() == expected)
        }
        #expect(decoder.rowsRead == everyKind.rows.count)
        #expect(try decoder.next() == nil)
        #expect(try decoder.next() == nil)
    }

    @Test func streamingEncodeMatchesWholeEncode() throws {
        let sink = MemoryByteSink()
        let encoder = ChangesetEncoder(sink: sink)
        try encoder.begin(header: everyKind.header)
        for row in everyKind.rows { try encoder.write(row) }
        try encoder.finish()
        #expect(sink.bytes == (try everyKind.encoded()))
        #expect(encoder.rowCount == everyKind.rows.count)
        #expect(encoder.byteCount == sink.bytes.count)
    }

    @Test func largeBlobsStreamAcrossChunks() throws {
        var rng = SeededGenerator(seed: 99)
        let blob = (0..<200_000).map { _ in UInt8.random(in: 0...255, using: &rng) }
        var changes = tiny
        changes.rows[0].registers.columns[1] = ColumnRegister(value: .blob(blob), stamp: stamp(7, thirdNode))
        let bytes = try changes.encoded()
        #expect(try decodeStreaming(bytes, chunks: [4093, 1, 65536]) == changes)

        let path = NSTemporaryDirectory() + "concord-codec-\(ProcessInfo.processInfo.processIdentifier).cncd"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sink = try FileByteSink(path: path)
        try ChangesetEncoder(sink: sink).encode(changes)
        try sink.close()
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: path))) == bytes)
        let source = try FileByteSource(path: path)
        defer { source.close() }
        let decoder = try ChangesetDecoder(source: source)
        #expect(try decoder.next() == changes.rows[0])
        #expect(try decoder.next() == nil)
    }

    @Test func missingFileSaysWhichPath() {
        let error = changesetError { try FileByteSource(path: "/nonexistent/changes.cncd") }
        guard case .io("open", "/nonexistent/changes.cncd", let reason)? = error else {
            Issue.record("expected .io opening the path, got \(String(describing: error))")
            return
        }
        #expect(!reason.isEmpty)
        #expect(error?.description.contains("'/nonexistent/changes.cncd'") == true)
    }

    @Test(arguments: [("tiny", tiny), ("counters", counters)])
    func everyTruncationIsRefusedAtItsOffset(_ name: String, _ changes: Changeset) throws {
        let bytes = try changes.encoded()
        for length in 0..<bytes.count {
            let prefix = Array(bytes.prefix(length))
            for streaming in [false, true] {
                let error = changesetError {
                    streaming ? try decodeStreaming(prefix, chunks: [5]) : try Changeset(decoding: prefix)
                }
                if length == 0 {
                    #expect(error == .notAChangeset(prefix: []))
                    continue
                }
                guard case .truncated(let offset, let field)? = error else {
                    Issue.record(
                        "\(name), prefix of \(length) bytes: expected .truncated, got \(String(describing: error))")
                    continue
                }
                #expect(offset == length, "\(name), field: \(field)")
                #expect(error!.description.contains("byte \(length)"))
            }
        }
    }

    /// Each flip is refused with the kind of error its place calls for, at an offset no earlier than
    /// the field holding the flipped byte: the decoder cannot notice a flip before it reads it. It may
    /// notice later — a flipped length or count misreads what follows, found where that runs into
    /// trouble, or at the end — so the offset is a lower bound, not the flip's own position.
    @Test(.tags(.fuzz)) func everySingleBitFlipIsRefused() throws {
        var kinds: [String: Int] = [:]
        // Every bit of the small ones; every 7th bit (so each bit position in turn) of the large one.
        for (name, changes, step) in [("tiny", tiny, 1), ("counters", counters, 1), ("everyKind", everyKind, 7)] {
            let bytes = try changes.encoded()
            let checksumOffset = bytes.count - 4
            let storedChecksum = bytes[checksumOffset...].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let fieldStart = fieldStarts(bytes)
            for bit in stride(from: 0, to: bytes.count * 8, by: step) {
                var damaged = bytes
                let flipped = bit / 8
                damaged[flipped] ^= 1 << UInt8(bit % 8)
                for streaming in [false, true] {
                    let context = "\(name), bit \(bit % 8) of byte \(flipped)\(streaming ? ", streaming" : "")"
                    let refusal = changesetError {
                        streaming ? try decodeStreaming(damaged, chunks: [3]) : try Changeset(decoding: damaged)
                    }
                    guard let error = refusal else { continue }
                    switch error {
                    case .notAChangeset(let prefix):
                        kinds["notAChangeset", default: 0] += 1
                        #expect(flipped < 4 && prefix == Array(damaged.prefix(prefix.count)), "\(context): \(error)")
                    case .unsupportedVersion(let found, _, _):
                        kinds["unsupportedVersion", default: 0] += 1
                        #expect(
                            (4...5).contains(flipped) && found == UInt64(damaged[4]) | UInt64(damaged[5]) << 8,
                            "\(context): \(error)")
                    case .truncated(let offset, _):
                        // A flipped length or count claimed more bytes than there are: they run out at the end.
                        kinds["truncated", default: 0] += 1
                        #expect(offset == bytes.count && flipped < checksumOffset, "\(context): \(error)")
                    case .checksumMismatch(let stored, let computed, let offset) where offset == checksumOffset:
                        // Bytes that still parse are caught by the checksum, at its offset.
                        kinds["checksumMismatch", default: 0] += 1
                        if flipped >= checksumOffset {
                            #expect(stored != storedChecksum && computed == storedChecksum, "\(context): \(error)")
                        } else {
                            #expect(stored == storedChecksum && computed != storedChecksum, "\(context): \(error)")
                        }
                    case .checksumMismatch(_, _, let offset):
                        // A flip that ended the rows early (a record tag, a length): the checksum is read where
                        // the decoder took the end to be, after the flip.
                        kinds["checksumMismatch early", default: 0] += 1
                        #expect(offset > flipped && offset < checksumOffset, "\(context): \(error)")
                    case .malformed(let offset, _, _):
                        kinds["malformed", default: 0] += 1
                        #expect(
                            offset >= fieldStart[flipped],
                            "\(context): the field holding the flip starts at \(fieldStart[flipped]); \(error)")
                    case .trailingBytes(let offset):
                        kinds["trailingBytes", default: 0] += 1
                        #expect(offset >= fieldStart[flipped], "\(context): \(error)")
                    case .unencodable, .io:
                        Issue.record("\(context): a decoding error was expected, got \(error)")
                    }
                }
            }
        }
        // Every way a flip is caught comes up (trailing bytes would need a flip that parses to an earlier,
        // matching checksum: none here).
        #expect(
            Set(kinds.keys) == [
                "notAChangeset", "unsupportedVersion", "truncated", "checksumMismatch",
                "checksumMismatch early", "malformed",
            ], "\(kinds)")
    }

    @Test func checksumMismatchNamesBothValues() throws {
        var bytes = try tiny.encoded()
        bytes[bytes.count - 1] ^= 0x80
        let error = changesetError { try Changeset(decoding: bytes) }
        #expect(error == .checksumMismatch(stored: 0xAA15_B6D3, computed: 0x2A15_B6D3, offset: bytes.count - 4))
        #expect(error?.description.contains("0xAA15B6D3") == true)
        #expect(error?.description.contains("0x2A15B6D3") == true)
        #expect(error?.description.contains("byte \(bytes.count - 4)") == true)

        // A change in a row is only caught by the checksum, at the end.
        var text = try tiny.encoded()
        let position = text.firstIndex(of: UInt8(ascii: "B"))!
        text[position] = UInt8(ascii: "C")
        #expect(
            changesetError { try Changeset(decoding: text) }
                == .checksumMismatch(
                    stored: 0x2A15_B6D3, computed: CRC32.checksum(text.dropLast(4)), offset: text.count - 4))
    }

    @Test func badMagicUnknownVersionAndTrailingBytesAreRefused() throws {
        let bytes = try tiny.encoded()
        let zip: [UInt8] = [0x50, 0x4B, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00]
        let notOurs = changesetError { try Changeset(decoding: zip) }
        #expect(notOurs == .notAChangeset(prefix: Array(zip.prefix(8))))
        #expect(notOurs?.description.contains("50 4B 03 04") == true)
        #expect(
            changesetError { try Changeset.decode(anyFormat: Array("hello".utf8)) }
                == .notAChangeset(prefix: Array("hello".utf8)))
        #expect(changesetError { try Changeset.decode(anyFormat: []) } == .notAChangeset(prefix: []))

        // Format 0 was never written; newer formats are tested in ChangesetFormatVersionTests.
        var damaged = bytes
        damaged[4] = 0
        let version = changesetError { try Changeset(decoding: damaged) }
        #expect(version == .unsupportedVersion(found: 0, supported: [1, 2, 3], needs: nil))
        #expect(version?.description.contains("format 0, which no Concord release writes") == true)

        let trailing = changesetError { try Changeset(decoding: bytes + [0]) }
        #expect(trailing == .trailingBytes(offset: bytes.count))
        #expect(trailing?.description.contains("byte \(bytes.count)") == true)
        #expect(changesetError { try decodeStreaming(bytes + bytes) } == .trailingBytes(offset: bytes.count))
    }

    @Test func malformedHeadersAreRefusedWithReasonAndOffset() throws {
        /// Expects `header` to be refused for `reason` at the start of its field `field`.
        func expectRefused(
            _ header: Raw, at field: String, _ reason: ChangesetError.Reason,
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            expectMalformed(header.sealed(rows: 0), at: header.offsets[field]!, reason, sourceLocation: sourceLocation)
        }
        // since > upTo, or negative: the pair is checked at since.
        expectRefused(Raw.header(since: 6, upTo: 5), at: "since", .invalidVersionRange(since: 6, upTo: 5))
        expectRefused(Raw.header(since: -1, upTo: 5), at: "since", .invalidVersionRange(since: -1, upTo: 5))
        // Names: empty, NUL, duplicates (ASCII case-insensitive), key repeated as a column.
        expectRefused(Raw.header(tables: [("", "id", [], 0)]), at: "tables[0].name", .emptyIdentifier)
        expectRefused(Raw.header(tables: [("t", "i\u{0}d", [], 0)]), at: "tables[0].key", .identifierContainsNUL)
        expectRefused(Raw.header(tables: [("t", "id", [""], 0)]), at: "tables[0].columns[0]", .emptyIdentifier)
        expectRefused(
            Raw.header(tables: [("t", "id", [], 0), ("T", "id", [], 0)]), at: "tables[1].name", .duplicateTable("T"))
        expectRefused(
            Raw.header(tables: [("t", "id", ["a", "A"], 0)]), at: "tables[0].columns[1]", .duplicateColumn("A"))
        expectRefused(Raw.header(tables: [("t", "id", ["ID"], 0)]), at: "tables[0].columns[0]", .duplicateColumn("ID"))
        expectRefused(Raw.header(tables: [("t", "id", [], 2)]), at: "tables[0].policy", .unknownPolicy("byte 2"))
        // Invalid UTF-8 in a name, at the name's offset.
        var utf8 = Raw.header(tables: [])
        utf8.bytes.removeLast()
        utf8.varint(1)
        let nameOffset = utf8.bytes.count
        utf8.raw([2, 0xC3, 0x28, 2, 0x69, 0x64, 0, 0])
        expectMalformed(utf8.sealed(rows: 0), at: nameOffset, .invalidUTF8)
        // Too many columns for SQLite, at the column count.
        var wide = Raw.header(tables: [])
        wide.bytes.removeLast()
        wide.varint(1)
        wide.string("t")
        wide.string("id")
        let countOffset = wide.bytes.count
        wide.varint(40_000)
        expectMalformed(wide.sealed(rows: 0), at: countOffset, .countTooLarge(declared: 40_000, limit: 32_767))
    }

    @Test func malformedVarintsAndLengthsAreRefused() throws {
        // Each defect is in the first row, after its record tag: in the table index, or the key's length.
        let rowStart = Raw.header().bytes.count
        var long = Raw.header()
        long.u8(1)
        long.raw(Array(repeating: 0x80, count: 10) + [0])
        expectMalformed(long.sealed(rows: 0), at: rowStart + 1, .varintTooLong)

        var overflow = Raw.header()
        overflow.u8(1)
        overflow.raw(Array(repeating: 0xFF, count: 9) + [0x02])
        expectMalformed(overflow.sealed(rows: 0), at: rowStart + 1, .varintTooLong)

        var padded = Raw.header()
        padded.u8(1)
        padded.raw([0x80, 0x00])
        expectMalformed(padded.sealed(rows: 0), at: rowStart + 1, .nonMinimalVarint)

        // Record tag, table index, value tag (blob), then the length.
        var huge = Raw.header()
        huge.u8(1)
        huge.varint(0)
        huge.u8(4)
        huge.varint(2_000_000_000)
        expectMalformed(
            huge.sealed(rows: 0), at: rowStart + 3, .lengthTooLarge(declared: 2_000_000_000, limit: 1_000_000_000))

        // A length SQLite allows but the data does not hold: refused before allocating, as a truncation.
        var long2 = Raw.header()
        long2.u8(1)
        long2.varint(0)
        long2.u8(4)
        long2.varint(900_000_000)
        let bytes = long2.sealed(rows: 0)
        #expect(
            changesetError { try Changeset(decoding: bytes) }
                == .truncated(offset: bytes.count, field: "rows[0].key (table 't')"))
        #expect(
            changesetError { try decodeStreaming(bytes, chunks: [65536]) }
                == .truncated(offset: bytes.count, field: "rows[0].key (table 't')"))
    }

    @Test func malformedRowsAreRefusedWithReasonAndOffset() throws {
        func row(_ build: (inout Raw) -> Void) -> [UInt8] {
            var r = Raw.header()
            build(&r)
            return r.sealed(rows: 1)
        }
        let rowStart = Raw.header().bytes.count

        expectMalformed(row { $0.u8(9) }, at: rowStart, .unknownRecordTag(9))
        expectMalformed(
            row {
                $0.u8(1)
                $0.varint(1)
            }, at: rowStart + 1, .tableIndexOutOfRange(index: 1, tableCount: 1))
        expectMalformed(
            row {
                $0.u8(1)
                $0.varint(0)
                $0.u8(7)
            }, at: rowStart + 2, .unknownValueTag(7))
        expectMalformed(
            row {
                $0.u8(1)
                $0.varint(0)
                $0.u8(0)
            }, at: rowStart + 2, .nullKey)
        expectMalformed(
            row {
                $0.u8(1)
                $0.varint(0)
                $0.u8(2)
                $0.u64(Double.nan.bitPattern)
            }, at: rowStart + 2, .notANumber)
        // Text is bytes, as in SQLite: a key that is not UTF-8 is a key like any other (the row is cut short after it).
        // The row then reads the end tag (2) as its column count.
        expectMalformed(
            row {
                $0.u8(1)
                $0.varint(0)
                $0.u8(3)
                $0.raw([1, 0xFF])
            }, at: rowStart + 5,
            .columnCountMismatch(expected: 1, found: 2))
        expectMalformed(
            row {
                $0.rowHead(columns: 2)
            },
            at: rowStart + 4, .columnCountMismatch(expected: 1, found: 2))
        expectMalformed(
            row {
                $0.rowHead()
                $0.varint(3)
                $0.varint(0)
            },
            at: rowStart + 6, .liveWithoutStamp(causalLength: 3))
        // Node references: 1 is the source, 2 would introduce a new node, 3 is out of range.
        expectMalformed(
            row {
                $0.rowHead()
                $0.varint(1)
                $0.varint(3)
            },
            at: rowStart + 6, .nodeIndexOutOfRange(index: 3, nodeCount: 1))
        expectMalformed(
            row {
                $0.rowHead()
                $0.varint(1)
                $0.varint(2)
                $0.raw(sourceNode.bytes)
            }, at: rowStart + 7, .duplicateNode(sourceNode))
        // The end record must count the rows.
        var miscounted = Raw.header()
        miscounted.row()
        let countOffset = miscounted.bytes.count + 1
        expectMalformed(miscounted.sealed(rows: 2), at: countOffset, .rowCountMismatch(stored: 2, counted: 1))
        // A length-0 row without a stamp is fine, as is a new node introduced once.
        var fine = Raw.header()
        fine.u8(1)
        fine.varint(0)
        fine.u8(1)
        fine.zigzag(1)
        fine.varint(1)
        fine.varint(0)
        fine.varint(0)
        fine.varint(2)
        fine.raw(otherNode.bytes)
        fine.u64(5)
        fine.u8(0)
        fine.u8(0)  // seen: not known
        fine.row(key: 2)
        let decoded = try Changeset(decoding: fine.sealed(rows: 2))
        #expect(
            decoded.rows[0].registers
                == RowRegisters(liveness: .unknown, columns: [ColumnRegister(value: .null, stamp: stamp(5, otherNode))])
        )
        #expect(decoded.rows[1].key == 2)
    }

    @Test func decoderKeepsFailingAfterAnError() throws {
        var bytes = try tiny.encoded()
        bytes[bytes.count - 1] ^= 1
        let decoder = try ChangesetDecoder(bytes: bytes)
        #expect(try decoder.next() == tiny.rows[0])
        let first = changesetError { try decoder.next() }
        #expect(first == .checksumMismatch(stored: 0x2B15_B6D3, computed: 0x2A15_B6D3, offset: bytes.count - 4))
        #expect(changesetError { try decoder.next() } == first)
    }

    @Test func encoderRefusesWhatDecodersWouldRefuse() throws {
        // The encoder has no offsets: it names the field, as the decoder would.
        func refusal(_ changes: Changeset) -> ChangesetError? { changesetError { try changes.encoded() } }
        var c = tiny
        c.since = 4
        #expect(
            refusal(c)
                == .unencodable(field: "the header's since and upTo", reason: .invalidVersionRange(since: 4, upTo: 3)))
        c = tiny
        c.rows[0].table = "Reminders"
        #expect(refusal(c) == .unencodable(field: "rows[0].table", reason: .unknownTable("Reminders")))
        c = tiny
        c.rows[0].key = .null
        #expect(refusal(c) == .unencodable(field: "rows[0].key (table 'reminders')", reason: .nullKey))
        c = tiny
        c.rows[0].registers.columns[0]!.value = .real(.nan)
        #expect(
            refusal(c)
                == .unencodable(
                    field: "rows[0].columns[0].value (table 'reminders', column 'title')", reason: .notANumber))
        c = tiny
        c.rows[0].registers.columns.append(nil)
        #expect(
            refusal(c)
                == .unencodable(
                    field: "rows[0].columns (table 'reminders')",
                    reason: .columnCountMismatch(expected: 2, found: 3)))
        c = tiny
        c.rows[0].registers.liveness.stamp = nil
        #expect(
            refusal(c)
                == .unencodable(
                    field: "rows[0].liveness (table 'reminders')", reason: .liveWithoutStamp(causalLength: 1)))
        c = tiny
        c.tables.append(TableSchema(name: "REMINDERS", key: "id", columns: [], policy: .row))
        #expect(refusal(c) == .unencodable(field: "tables[1].name", reason: .duplicateTable("REMINDERS")))
        c = tiny
        c.tables[0].columns = ["title", "Title"]
        #expect(refusal(c) == .unencodable(field: "tables[0].columns[1]", reason: .duplicateColumn("Title")))
        c = tiny
        c.tables[0].key = ""
        #expect(refusal(c) == .unencodable(field: "tables[0].key", reason: .emptyIdentifier))
        c = tiny
        c.tables[0].merges = [.lww]
        #expect(
            refusal(c) == .unencodable(field: "tables[0].merges", reason: .mergeCountMismatch(columns: 2, merges: 1)))
        c = tiny
        c.tables[0].merges[1] = .custom("")
        #expect(refusal(c) == .unencodable(field: "tables[0].merges[1]", reason: .emptyIdentifier))
        c = tiny
        c.tables[0].merges[1] = .custom("sum\u{0}")
        #expect(refusal(c) == .unencodable(field: "tables[0].merges[1]", reason: .identifierContainsNUL))
        c = tiny
        c.tables[0].merges[1] = .custom("max")
        #expect(refusal(c) == .unencodable(field: "tables[0].merges[1]", reason: .customMergeShadowsBuiltIn("max")))
        #expect(refusal(c)?.description.contains("tables[0].merges[1]") == true)

        /// Expects `body` to be refused as a call to `call` out of order, saying `why`.
        func expectOutOfOrder(
            _ call: String, _ why: String, sourceLocation: SourceLocation = #_sourceLocation,
            _ body: () throws -> Void
        ) {
            let error = changesetError(body, sourceLocation: sourceLocation)
            guard case .unencodable(call, .encoderState(let detail))? = error, detail.contains(why) else {
                Issue.record(
                    "expected \(call) to be refused as \(why.debugDescription), got \(String(describing: error))",
                    sourceLocation: sourceLocation)
                return
            }
        }
        // A refused row writes nothing; the encoder carries on.
        let sink = MemoryByteSink()
        let encoder = ChangesetEncoder(sink: sink)
        expectOutOfOrder("write(_:)", "called before begin(header:)") { try encoder.write(tiny.rows[0]) }
        try encoder.begin(header: tiny.header)
        expectOutOfOrder("begin(header:)", "may be called only once") { try encoder.begin(header: tiny.header) }
        var bad = tiny.rows[0]
        bad.key = .null
        #expect(
            changesetError { try encoder.write(bad) }
                == .unencodable(field: "rows[0].key (table 'reminders')", reason: .nullKey))
        try encoder.write(tiny.rows[0])
        try encoder.finish()
        #expect(sink.bytes == (try tiny.encoded()))
        expectOutOfOrder("write(_:)", "called after finish()") { try encoder.write(tiny.rows[0]) }
        expectOutOfOrder("finish()", "called after finish()") { try encoder.finish() }
    }

    @Test func jsonIsValidatedStrictly() throws {
        let good = String(decoding: tiny.jsonData(), as: UTF8.self)
        func edit(_ old: String, _ new: String) -> String {
            #expect(good.contains(old), "fixture lacks \(old)")
            return good.replacingOccurrences(of: old, with: new)
        }

        // The offset is the offending key, value or character: each case names it (after a prefix
        // where it is not the first of its kind).
        expectRefused(edit(#""upTo": 3"#, #""upTo": 3, "extra": 1"#), at: #""extra""#, .unexpectedKey("extra"))
        expectRefused(
            edit(#""upTo": 3"#, #""upTo": 3, "since": 0"#), at: #""since""#, after: "3, ", .duplicateKey("since"))
        expectRefused(edit(#""since": 0,"#, ""), at: 0, .missingKey("since"))  // the object that lacks it
        expectRefused(
            edit(#""since": 0"#, #""since": "0""#), at: #""0""#, after: #""since": "#,
            .wrongType(expected: "an integer", found: "a string"))
        expectRefused(edit(#""since": 0"#, #""since": 0.0"#), at: "0.0", .numberOutOfRange("0.0"))
        expectRefused(
            edit(#""upTo": 3"#, #""upTo": 9223372036854775808"#), at: "9223372036854775808",
            .numberOutOfRange("9223372036854775808"))
        expectRefused(
            edit(#""since": 0"#, #""since": 4"#), at: "4", after: #""since": "#,
            .invalidVersionRange(since: 4, upTo: 3))  // the pair, at since
        expectRefused(
            edit(#""policy": "column""#, #""policy": "Column""#), at: #""Column""#, .unknownPolicy("\"Column\""))
        expectRefused(edit(#""done""#, #""Title""#), at: #""Title""#, .duplicateColumn("Title"))
        expectRefused(edit(#""name": "reminders""#, #""name": """#), at: #""""#, after: #""name": "#, .emptyIdentifier)
        expectRefused(edit(#""table": "reminders""#, #""table": "lists""#), at: #""lists""#, .unknownTable("lists"))
        expectRefused(
            edit(#""integer": 1"#, #""integer": 1, "text": "x""#), at: "{", after: #""key": "#,
            .wrongType(
                expected: "null or an object with one key: integer, real, text, textHex or blob",
                found: "an object with 2 keys"))
        expectRefused(edit(#""integer": 1"#, #""float": 1"#), at: #""float""#, .unexpectedKey("float"))
        expectRefused(edit(#""integer": 1"#, #""real": "NaN""#), at: #""NaN""#, .notANumber)
        expectRefused(edit(#""integer": 1"#, #""real": 1e999"#), at: "1e999", .numberOutOfRange("1e999"))
        expectRefused(edit(#""integer": 1"#, #""blob": "abc""#), at: #""abc""#, .invalidHex)
        expectRefused(edit(#""integer": 1"#, #""blob": "zz""#), at: #""zz""#, .invalidHex)
        expectRefused(edit(#""key": {"#, #""key": null, "was": {"#), at: #""was""#, .unexpectedKey("was"))
        expectRefused(
            edit(#""source": "000102030405060708090a0b0c0d0e0f""#, #""source": "0001""#), at: #""0001""#,
            .invalidNodeID("0001"))
        expectRefused(edit(#""causalLength": 1"#, #""causalLength": -1"#), at: "-1", .numberOutOfRange("-1"))
        expectRefused(
            edit("        null\n", "        null,\n        null\n"), at: "[", after: #""columns": "#,
            .columnCountMismatch(expected: 2, found: 3))  // the row's list of columns
        expectRefused(
            edit(#""Buy milk""#, #""Buy \ud83d milk""#), at: #"\ud83d"#,
            .invalidJSON("a high surrogate escape must be followed by a low one"))
        expectRefused(
            edit(#""Buy milk""#, "\"Buy\tmilk\""), at: "\t",
            .invalidJSON("a control character must be escaped inside a string"))
        expectRefused(
            edit(#""since": 0"#, #""since": 01"#), at: "01", after: #""since": "#,
            .invalidJSON("a number cannot start with 0"))
        expectRefused(
            edit(#""since": 0,"#, #""since": 0,,"#), at: ",", after: #""since": 0,"#,
            .invalidJSON("expected a string key"))
        expectRefused(String(repeating: "[", count: 100), at: 32, .nestingTooDeep(limit: 32))  // the 33rd bracket

        // Escapes decode; invalid UTF-8, truncation, trailing text, other versions are refused.
        let escaped = try Changeset(json: Array(edit(#""Buy milk""#, #""\u00e9\ud83c\udf0d\/\n""#).utf8))
        #expect(escaped.rows[0].registers.columns[0]?.value == .text("é🌍/\n"))
        var invalidUTF8 = Array(good.utf8)
        let buy = invalidUTF8.firstRange(of: Array("Buy".utf8))!.lowerBound
        invalidUTF8[buy] = 0xFF
        #expect(
            changesetError { try Changeset(json: invalidUTF8) }  // at the string that holds it
                == .malformed(offset: buy - 1, field: "the JSON text", reason: .invalidUTF8))
        let cut = Array(good.utf8.prefix(100))
        #expect(changesetError { try Changeset(json: cut) } == .truncated(offset: 100, field: "the JSON text"))
        #expect(
            changesetError { try Changeset(json: Array((good + "x").utf8)) } == .trailingBytes(offset: good.utf8.count))
        #expect(
            changesetError { try Changeset(json: Array(edit(#""format": 3"#, #""format": 7"#).utf8)) }
                == .unsupportedVersion(found: 7, supported: [1, 2, 3], needs: "0.3.0"))
        #expect(try Changeset.decode(anyFormat: Array(("\u{FEFF} \n" + good).utf8)) == tiny)
    }

    @Test(arguments: [tiny, counters])
    func everyJSONTruncationIsRefused(_ changes: Changeset) throws {
        let json = changes.jsonData()
        for length in 0..<json.count - 1 {  // the final newline is optional
            let error = changesetError { try Changeset(json: Array(json.prefix(length))) }
            guard case .truncated(let offset, _)? = error else {
                Issue.record("prefix of \(length) bytes: expected .truncated, got \(String(describing: error))")
                continue
            }
            #expect(offset == length)
        }
    }

    // MARK: Merges and counter contributions

    @Test func counterLayoutIsPinned() throws {
        #expect(try counters.encoded() == hexBytes(countersHex))
        #expect(try Changeset(decoding: hexBytes(countersHex)) == counters)
        #expect(try decodeStreaming(hexBytes(countersHex), chunks: [1, 2, 5]) == counters)
    }

    @Test func counterJSONLayoutIsPinned() throws {
        let expected = #"""
            {
              "format": 3,
              "needs": "0.3.0",
              "rows": [
                {
                  "columns": [
                    {
                      "contributions": [
                        {
                          "amount": 5,
                          "causalLength": 3,
                          "stamp": {
                            "hlc": 131073,
                            "node": "000102030405060708090a0b0c0d0e0f"
                          }
                        },
                        {
                          "amount": -2,
                          "causalLength": 3,
                          "stamp": {
                            "hlc": 131077,
                            "node": "0123456789abcdef0123456789abcdef"
                          }
                        },
                        {
                          "amount": 7,
                          "causalLength": 1,
                          "stamp": {
                            "hlc": 65536,
                            "node": "ffeeddccbbaa99887766554433221100"
                          }
                        }
                      ],
                      "stamp": {
                        "hlc": 131077,
                        "node": "0123456789abcdef0123456789abcdef"
                      },
                      "value": {
                        "integer": 3
                      }
                    },
                    {
                      "stamp": {
                        "hlc": 131074,
                        "node": "ffeeddccbbaa99887766554433221100"
                      },
                      "value": {
                        "text": "[\"a\"]"
                      }
                    },
                    null
                  ],
                  "key": {
                    "text": "p1"
                  },
                  "liveness": {
                    "causalLength": 3,
                    "stamp": {
                      "hlc": 131072,
                      "node": "000102030405060708090a0b0c0d0e0f"
                    }
                  },
                  "table": "posts"
                },
                {
                  "columns": [
                    {
                      "contributions": [],
                      "stamp": {
                        "hlc": 196608,
                        "node": "ffeeddccbbaa99887766554433221100"
                      },
                      "value": {
                        "integer": 0
                      }
                    },
                    null,
                    {
                      "stamp": {
                        "hlc": 196609,
                        "node": "000102030405060708090a0b0c0d0e0f"
                      },
                      "value": {
                        "real": 2.5
                      }
                    }
                  ],
                  "key": {
                    "text": "p2"
                  },
                  "liveness": {
                    "causalLength": 1,
                    "stamp": {
                      "hlc": 196608,
                      "node": "ffeeddccbbaa99887766554433221100"
                    }
                  },
                  "table": "posts"
                }
              ],
              "since": 3,
              "source": "000102030405060708090a0b0c0d0e0f",
              "tables": [
                {
                  "columns": [
                    "likes",
                    "tags",
                    "score"
                  ],
                  "key": "id",
                  "merges": [
                    "counter",
                    "tagSet",
                    "max"
                  ],
                  "name": "posts",
                  "policy": "column"
                }
              ],
              "upTo": 9
            }

            """#
        #expect(String(decoding: counters.jsonData(), as: UTF8.self) == expected)
        #expect(try Changeset(json: Array(expected.utf8)) == counters)
    }

    @Test func counterRegistersRoundTripInBothForms() throws {
        // Six contributions at the extremes of every field; node ids ascending by their last byte.
        let nodes = (0..<6).map { NodeID(bytes: [UInt8](repeating: 0xA5, count: 15) + [UInt8($0 * 40)])! }
        let lengths: [UInt64] = [0, 1, Liveness.maxCausalLength, 3, 127, 128]
        let amounts: [Int64] = [.min, .max, 0, -1, 1, -64]
        let clocks: [UInt64] = [0, ChangesetFormat.maxClock, 1, 65536, 127, 128]
        var changes = counters
        changes.rows[0].registers.columns[0]!.contributions = nodes.indices.map {
            CounterContribution(causalLength: lengths[$0], amount: amounts[$0], stamp: stamp(clocks[$0], nodes[$0]))
        }
        // A counter in a row-policy table, and a second counter column in the same row.
        changes.tables[0].policy = .row
        changes.tables[0].merges[2] = .counter
        changes.rows[1].registers.columns[2]!.contributions = [
            CounterContribution(causalLength: 1, amount: 2, stamp: stamp(0x3_0001)),
            CounterContribution(causalLength: 1, amount: 1, stamp: stamp(0x3_0000, nodes[5])),
        ]

        let bytes = try changes.encoded()
        let decoded = try Changeset(decoding: bytes)
        #expect(decoded == changes)
        #expect(try decoded.encoded() == bytes)
        #expect(try decodeStreaming(bytes, chunks: [1, 7, 64]) == changes)

        let json = changes.jsonData()
        let fromJSON = try Changeset(json: json)
        #expect(fromJSON == changes)
        #expect(fromJSON.jsonData() == json)
        #expect(try fromJSON.encoded() == bytes)
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains(#""amount": -9223372036854775808"#))
        #expect(text.contains(#""causalLength": 4611686018427387904"#))
        // The p2 counter has an empty list, which JSON still writes for a counter column.
        #expect(text.contains(#""contributions": []"#))
    }

    @Test func customMergeNamesRoundTripExactly() throws {
        let names = [
            "lww", "max", "min", "counter", "union", "tagSet", "Max", "LWW", " counter", "ünïon 🧮", "a\"b\\c\n",
        ]
        let merges = names.map(ColumnMerge.init(name:))
        #expect(Array(merges.prefix(5)) == ColumnMerge.builtIns)
        #expect(merges[6] == .custom("Max"))  // names compare exactly: no case folding into a built-in
        let table = TableSchema(
            name: "t", key: "id", columns: names.indices.map { "c\($0)" }, policy: .column, merges: merges)
        let changes = Changeset(source: sourceNode, since: 0, upTo: 0, tables: [table], rows: [])

        let decoded = try Changeset(decoding: changes.encoded())
        #expect(decoded.tables[0].merges == merges)
        #expect(decoded.tables[0].merges.map(\.name) == names)
        #expect(try Changeset(json: changes.jsonData()).tables[0].merges == merges)
        #expect(String(decoding: changes.jsonData(), as: UTF8.self).contains(#""a\"b\\c\n""#))
        // The default is lww for every column.
        #expect(TableSchema(name: "t", key: "id", columns: ["a", "b"], policy: .column).merges == [.lww, .lww])
    }

    @Test func malformedMergeNamesAreRefusedWithOffsets() throws {
        // The merge string is the last thing before the policy byte.
        let empty = Raw.header(merges: [[""]])
        expectMalformed(empty.sealed(rows: 0), at: empty.bytes.count - 2, .emptyIdentifier)
        let nul = Raw.header(merges: [["su\u{0}m"]])
        expectMalformed(nul.sealed(rows: 0), at: nul.bytes.count - 6, .identifierContainsNUL)
        var utf8 = Raw.header(tables: [("t", "id", [], 0)])
        utf8.bytes.removeLast(2)  // column count 0, policy
        utf8.varint(1)
        utf8.string("a")
        let mergeOffset = utf8.bytes.count
        utf8.raw([2, 0xC3, 0x28, 0])
        expectMalformed(utf8.sealed(rows: 0), at: mergeOffset, .invalidUTF8)
        let error = changesetError { try Changeset(decoding: empty.sealed(rows: 0)) }
        #expect(error?.description.contains("tables[0].merges[0] (table 't', column 'a')") == true)
    }

    @Test func unsortedOrDuplicateContributionsAreRefusedWithOffsets() throws {
        /// Table t with one counter column n; one row whose register holds `build`'s contributions.
        func row(_ count: UInt64, _ build: (inout Raw) -> Void) -> (bytes: [UInt8], listStart: Int) {
            var r = Raw.header(tables: [("t", "id", ["n"], 0)], merges: [["counter"]])
            r.rowStart()
            r.stamp(1, 50)
            r.u8(1)
            r.zigzag(3)
            r.varint(count)
            let listStart = r.bytes.count
            build(&r)
            r.u8(0)  // seen: not known
            return (r.sealed(rows: 1), listStart)
        }
        // Each entry: varint causalLength (1 byte here), zigzag amount (1 byte), then the stamp.
        let entry = 2
        let stampSize = 1 + 8
        let newNodeStampSize = 1 + 16 + 8

        // other (ffee...), then source (0001...): out of order.
        let unsorted = row(2) {
            $0.varint(1)
            $0.zigzag(5)
            $0.varint(2)
            $0.raw(otherNode.bytes)
            $0.u64(7)
            $0.varint(1)
            $0.zigzag(-2)
            $0.stamp(1, 8)
        }
        expectMalformed(
            unsorted.bytes, at: unsorted.listStart + entry + newNodeStampSize + entry,
            .contributionsOutOfOrder(previous: otherNode, found: sourceNode))
        let message = changesetError { try Changeset(decoding: unsorted.bytes) }?.description ?? ""
        #expect(message.contains("rows[0].columns[0].contributions[1].stamp (table 't', column 'n')"))
        #expect(message.contains("strictly increasing node-id order"))

        // source twice.
        let duplicate = row(2) {
            $0.varint(1)
            $0.zigzag(5)
            $0.stamp(1, 7)
            $0.varint(3)
            $0.zigzag(1)
            $0.stamp(1, 8)
        }
        expectMalformed(
            duplicate.bytes, at: duplicate.listStart + entry + stampSize + entry, .duplicateContribution(sourceNode))

        // A contribution without a stamp, and a count beyond the limit.
        let unstamped = row(1) {
            $0.varint(1)
            $0.zigzag(5)
            $0.varint(0)
        }
        expectMalformed(unstamped.bytes, at: unstamped.listStart + entry, .contributionWithoutStamp)
        let tooMany = row(3_000_000_000) { _ in }
        expectMalformed(
            tooMany.bytes, at: tooMany.listStart - 5, .countTooLarge(declared: 3_000_000_000, limit: 2_147_483_647))

        // The same entries sorted decode, the new node introduced inside a contribution.
        let sorted = row(2) {
            $0.varint(1)
            $0.zigzag(-2)
            $0.stamp(1, 8)
            $0.varint(1)
            $0.zigzag(5)
            $0.varint(2)
            $0.raw(otherNode.bytes)
            $0.u64(7)
        }
        let decoded = try Changeset(decoding: sorted.bytes)
        #expect(
            decoded.rows[0].registers.columns[0]?.contributions == [
                CounterContribution(causalLength: 1, amount: -2, stamp: stamp(8)),
                CounterContribution(causalLength: 1, amount: 5, stamp: stamp(7, otherNode)),
            ])

        // The encoder refuses the same, naming the entry, and writes nothing for the row.
        func refusal(_ changes: Changeset) -> ChangesetError? { changesetError { try changes.encoded() } }
        var swapped = counters
        swapped.rows[0].registers.columns[0]!.contributions.swapAt(0, 1)
        #expect(
            refusal(swapped)
                == .unencodable(
                    field: "rows[0].columns[0].contributions[1].stamp.node (table 'posts', column 'likes')",
                    reason: .contributionsOutOfOrder(previous: thirdNode, found: sourceNode)))
        var twice = counters
        twice.rows[0].registers.columns[0]!.contributions[1].stamp.node = sourceNode
        #expect(
            refusal(twice)
                == .unencodable(
                    field: "rows[0].columns[0].contributions[1].stamp.node (table 'posts', column 'likes')",
                    reason: .duplicateContribution(sourceNode)))
        let sink = MemoryByteSink()
        let encoder = ChangesetEncoder(sink: sink)
        try encoder.begin(header: counters.header)
        #expect(
            changesetError { try encoder.write(swapped.rows[0]) }
                == .unencodable(
                    field: "rows[0].columns[0].contributions[1].stamp.node (table 'posts', column 'likes')",
                    reason: .contributionsOutOfOrder(previous: thirdNode, found: sourceNode)))
        for row in counters.rows { try encoder.write(row) }
        try encoder.finish()
        #expect(sink.bytes == hexBytes(countersHex))

        // JSON: the same rules, at the offending entry's stamp. (jsonData writes what it is given.)
        for (bad, reason) in [
            (swapped, ChangesetError.Reason.contributionsOutOfOrder(previous: thirdNode, found: sourceNode)),
            (twice, .duplicateContribution(sourceNode)),
        ] {
            let json = bad.jsonData()
            let list = json.firstRange(of: Array(#""contributions": ["#.utf8))!.upperBound
            let stamps = json[list...].ranges(of: Array(#""stamp": {"#.utf8))
            let secondStamp = stamps[1].upperBound - 1
            #expect(
                changesetError { try Changeset(json: json) }
                    == .malformed(
                        offset: secondStamp, field: "rows[0].columns[0].contributions[1].stamp", reason: reason))
        }
    }

    @Test func contributionsOnOtherColumnsAreRefused() throws {
        let contribution = CounterContribution(causalLength: 1, amount: 1, stamp: stamp(65536))
        // Encoder: an lww column and a custom one.
        var lww = tiny
        lww.rows[0].registers.columns[0]!.contributions = [contribution]
        #expect(
            changesetError { try lww.encoded() }
                == .unencodable(
                    field: "rows[0].columns[0].contributions (table 'reminders', column 'title')",
                    reason: .contributionsOnNonCounterColumn(merge: "lww")))
        var custom = counters
        custom.rows[0].registers.columns[1]!.contributions = [contribution]
        #expect(
            changesetError { try custom.encoded() }
                == .unencodable(
                    field: "rows[0].columns[1].contributions (table 'posts', column 'tags')",
                    reason: .contributionsOnNonCounterColumn(merge: "tagSet")))
        #expect(changesetError { try custom.encoded() }?.description.contains("only 'counter' columns") == true)

        // JSON: the key is refused where it stands (jsonData writes it rather than drop the contributions).
        // In `custom`, the first "contributions" key is the (valid) counter column's.
        for (bad, merge, column, occurrence) in [(lww, "lww", 0, 0), (custom, "tagSet", 1, 1)] {
            let json = bad.jsonData()
            let key = json.ranges(of: Array(#""contributions""#.utf8))[occurrence].lowerBound
            #expect(
                changesetError { try Changeset(json: json) }
                    == .malformed(
                        offset: key, field: "rows[0].columns[\(column)]",
                        reason: .contributionsOnNonCounterColumn(merge: merge)))
        }
        // ... and a counter column's register must have the key, even when empty.
        let good = String(decoding: counters.jsonData(), as: UTF8.self)
        let missing = Array(good.replacingOccurrences(of: "\"contributions\": [],\n", with: "").utf8)
        #expect(missing != Array(good.utf8))
        // At the register that lacks it: the first object in the second row's columns.
        let secondRow = missing.ranges(of: Array(#""columns": ["#.utf8))[1].upperBound
        let register = try #require(missing[secondRow...].firstIndex(of: UInt8(ascii: "{")))
        #expect(
            changesetError { try Changeset(json: missing) }
                == .malformed(offset: register, field: "rows[1].columns[0]", reason: .missingKey("contributions")))

        // Binary (format 2, whose rows end with their registers): an lww register has no place for
        // contributions, so bytes that try to add one are read as the next record (tag 1 = a row, whose table
        // index is then out of range).
        var r = Raw.header(version: 2)
        r.rowStart()
        r.stamp(1, 50)
        r.u8(1)
        r.zigzag(3)
        r.varint(1)
        let misread = r.bytes.count
        r.varint(1)
        r.zigzag(1)
        r.stamp(1, 7)
        expectMalformed(r.sealed(rows: 1), at: misread, .tableIndexOutOfRange(index: 1, tableCount: 1))
    }

    @Test func jsonMergesAreValidatedStrictly() throws {
        let good = String(decoding: tiny.jsonData(), as: UTF8.self)
        /// `good` with every `old` replaced by `new` (both of the table's merges, for "lww").
        func edit(_ old: String, _ new: String) -> String {
            #expect(good.contains(old), "fixture lacks \(old)")
            return good.replacingOccurrences(of: old, with: new)
        }
        let firstMerge = "\"merges\": [\n        "
        expectRefused(
            edit(#""merges": ["#, #""merges": ["max", "#), at: "[", after: #""merges": "#,
            .mergeCountMismatch(columns: 2, merges: 3))  // the list
        expectRefused(edit(#""merges": ["#, #""was": ["#), at: #""was""#, .unexpectedKey("was"))
        expectRefused(edit(#""lww""#, #""""#), at: #""""#, after: firstMerge, .emptyIdentifier)
        expectRefused(edit(#""lww""#, #""a\u0000""#), at: #""a\u0000""#, after: firstMerge, .identifierContainsNUL)
        expectRefused(
            edit(#""lww""#, "7"), at: "7", after: firstMerge, .wrongType(expected: "a string", found: "a number"))
        // Names compare exactly, so "lww " is a custom merge, not an error.
        let spaced = good.replacingOccurrences(of: #""lww""#, with: #""lww ""#)
        #expect(try Changeset(json: Array(spaced.utf8)).tables[0].merges == [.custom("lww "), .custom("lww ")])
    }

    @Test func randomChangesetsRoundTripInBothForms() throws {
        var contributionsSeen = 0
        var customMergesSeen = 0
        var seenStamps = 0
        for seed in seeds(200, salt: 1) {
            var rng = SeededGenerator(seed: seed)
            let changes = randomChangeset(&rng)
            contributionsSeen += changes.rows.flatMap(\.registers.columns).reduce(0) {
                $0 + ($1?.contributions.count ?? 0)
            }
            customMergesSeen +=
                changes.tables.flatMap(\.merges).filter { if case .custom = $0 { true } else { false } }.count
            seenStamps += changes.rows.compactMap(\.seen).joined().compactMap { $0 }.count
            let bytes = try changes.encoded()
            let decoded = try Changeset(decoding: bytes)
            #expect(decoded == changes, "seed \(seed) (replay with CONCORD_SEED=\(seed))")
            #expect(try decoded.encoded() == bytes, "seed \(seed) (replay with CONCORD_SEED=\(seed))")
            let chunks = (0..<3).map { _ in Int.random(in: 1...300, using: &rng) }
            #expect(
                try decodeStreaming(bytes, chunks: chunks) == changes, "seed \(seed) (replay with CONCORD_SEED=\(seed))"
            )
            let json = changes.jsonData()
            let fromJSON = try Changeset(json: json)
            #expect(try fromJSON.encoded() == bytes, "seed \(seed) (replay with CONCORD_SEED=\(seed))")
            #expect(fromJSON.jsonData() == json, "seed \(seed) (replay with CONCORD_SEED=\(seed))")
        }
        // The generator really exercises counters and custom merges (unless replaying one seed).
        if ProcessInfo.processInfo.environment["CONCORD_SEED"] == nil {
            #expect(contributionsSeen > 200)
            #expect(customMergesSeen > 20)
            #expect(seenStamps > 25, "the seen lists of format 3 are exercised")
        }
    }

    @Test(.tags(.fuzz)) func randomDamageIsRefusedOrHarmless() throws {
        for seed in seeds(300, salt: 2) {
            var rng = SeededGenerator(seed: seed)
            let changes = randomChangeset(&rng)
            var bytes = try changes.encoded()
            var json = changes.jsonData()
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                for target in 0..<2 {
                    var data = target == 0 ? bytes : json
                    if data.isEmpty { continue }
                    let at = Int.random(in: 0..<data.count, using: &rng)
                    switch Int.random(in: 0..<4, using: &rng) {
                    case 0: data[at] = UInt8.random(in: 0...255, using: &rng)
                    case 1: data.remove(at: at)
                    case 2: data.insert(UInt8.random(in: 0...255, using: &rng), at: at)
                    default: data = Array(data.prefix(at))
                    }
                    if target == 0 { bytes = data } else { json = data }
                }
            }
            // Never a crash; any other error type, or accepting a changeset that would not re-encode, is a bug.
            // A refusal is a decoding error whose offset lies in the data: truncation at its end, a
            // checksum before its last four bytes, anything else before its end.
            for data in [bytes, json] {
                let context = "seed \(seed) (replay with CONCORD_SEED=\(seed))"
                do {
                    let decoded = try Changeset.decode(anyFormat: data)
                    #expect(throws: Never.self, "\(context)") { try decoded.encoded() }
                } catch let error as ChangesetError {
                    switch error {
                    case .notAChangeset, .unsupportedVersion: break
                    case .truncated(let offset, _): #expect(offset == data.count, "\(context): \(error)")
                    case .checksumMismatch(_, _, let offset):
                        #expect(offset >= 0 && offset <= data.count - 4, "\(context): \(error)")
                    case .malformed(let offset, _, _), .trailingBytes(let offset):
                        #expect(offset >= 0 && offset < data.count, "\(context): \(error)")
                    case .unencodable, .io: Issue.record("\(context): a decoding error was expected, got \(error)")
                    }
                } catch {
                    Issue.record("\(context): unexpected error \(error)")
                }
            }
        }
    }
}
