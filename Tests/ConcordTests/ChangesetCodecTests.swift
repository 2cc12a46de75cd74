import Foundation
import Testing

@testable import Concord

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
                columns: [ColumnRegister(value: "Buy milk", stamp: stamp(65537, otherNode)), nil])),
    ])

/// The bytes of `tiny`, worked out by hand from the layout on `ChangesetEncoder` (CRC from zlib).
private let tinyHex =
    "434e43440100" + "000102030405060708090a0b0c0d0e0f" + "0006" + "01"
    + "0972656d696e64657273" + "026964" + "02" + "057469746c65" + "04646f6e65" + "00"
    + "01" + "00" + "0102" + "02" + "01" + "01" + "0000010000000000"
    + "02" + "ffeeddccbbaa99887766554433221100" + "0100010000000000" + "0308427579206d696c6b" + "00"
    + "02" + "01" + "4d44ed86"

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
        rows.append(RowChange(
            table: "notes", key: key,
            registers: RowRegisters(
                liveness: n % 4 == 0 ? .unknown : Liveness(causalLength: UInt64(n), stamp: stamp(UInt64(n) << 16, node)),
                columns: [
                    ColumnRegister(value: value, stamp: stamp(.max - UInt64(n), node)),
                    n % 2 == 0 ? nil : ColumnRegister(value: .null, stamp: stamp(0, thirdNode)),
                    ColumnRegister(value: values[values.count - 1 - n], stamp: stamp(UInt64(n), otherNode)),
                ])))
    }
    rows.append(RowChange(
        table: "tags 🏷", key: "x",
        registers: RowRegisters(liveness: Liveness(causalLength: .max, stamp: stamp(9)), columns: [])))
    return Changeset(source: sourceNode, since: 5, upTo: .max, tables: [notes, empty], rows: rows)
}()

private func hexBytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    return stride(from: 0, to: digits.count, by: 2).map {
        UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
    }
}

/// The error `body` throws, or `nil` (recorded as an issue) if it throws none or another type.
private func changesetError<T>(_ body: () throws -> T, sourceLocation: SourceLocation = #_sourceLocation) -> ChangesetError? {
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

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func varint(_ v: UInt64) { ChangesetFormat.appendVarint(v, to: &bytes) }
    mutating func zigzag(_ v: Int64) { varint(ChangesetFormat.zigzag(v)) }
    mutating func u64(_ v: UInt64) { ChangesetFormat.appendUInt64(v, to: &bytes) }
    mutating func string(_ s: String) { ChangesetFormat.appendString(s, to: &bytes) }
    mutating func raw(_ b: [UInt8]) { bytes += b }

    /// Magic, version, source, since, upTo and the given tables (name, key, columns, policy byte).
    static func header(
        version: UInt16 = 1, since: Int64 = 0, upTo: Int64 = 5,
        tables: [(String, String, [String], UInt8)] = [("t", "id", ["a"], 0)]
    ) -> Raw {
        var r = Raw()
        r.raw(Array("CNCD".utf8))
        r.u8(UInt8(version & 0xFF))
        r.u8(UInt8(version >> 8))
        r.raw(sourceNode.bytes)
        r.zigzag(since)
        r.zigzag(upTo)
        r.varint(UInt64(tables.count))
        for (name, key, columns, policy) in tables {
            r.string(name)
            r.string(key)
            r.varint(UInt64(columns.count))
            for column in columns { r.string(column) }
            r.u8(policy)
        }
        return r
    }

    /// A valid row of table 0 (one column): key 1, alive, column unset.
    mutating func row(key: Int64 = 1) {
        u8(1); varint(0); u8(1); zigzag(key); varint(1); varint(1); varint(1); u64(42); varint(0)
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

private func malformedReason(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> (Int, ChangesetError.Reason)? {
    guard let error = changesetError({ try Changeset(decoding: bytes) }, sourceLocation: sourceLocation) else { return nil }
    guard case .malformed(let offset, _, let reason) = error else {
        Issue.record("expected .malformed, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
    #expect(error.description.contains("byte \(offset)"), sourceLocation: sourceLocation)
    return (offset, reason)
}

// MARK: - Random changesets

/// The seeds a randomized test runs: `CONCORD_SEED` alone when set (to replay a failure), else `count` fixed ones.
private func seeds(_ count: UInt64, salt: UInt64) -> [UInt64] {
    if let text = ProcessInfo.processInfo.environment["CONCORD_SEED"], let seed = UInt64(text) { return [seed] }
    return (0..<count).map { $0 &* 0x9E37_79B9 &+ salt }
}

private func randomText(_ rng: inout SeededGenerator, maxLength: Int = 12) -> String {
    let ranges: [ClosedRange<UInt32>] = [0x20...0x7E, 0x00...0x1F, 0xA0...0x17F, 0x300...0x36F, 0x4E00...0x4E80, 0x1F600...0x1F64F, 0xFFF0...0xFFFF]
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
    case 4: return .real([0.0, -0.0, .infinity, -.infinity, 0.1, 1e-5, 123456.789, .leastNonzeroMagnitude].randomElement(using: &rng)!)
    case 5, 6: return .text(randomText(&rng))
    default: return .blob((0..<Int.random(in: 0...20, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
    }
}

private func randomChangeset(_ rng: inout SeededGenerator) -> Changeset {
    let nodes = (0..<Int.random(in: 1...4, using: &rng)).map { _ in NodeID.random(using: &rng) }
    let names = ["reminders", "Lists", "naïve", "表", "a b", "x\"y", "tags", "items"].shuffled(using: &rng)
    var tables: [TableSchema] = []
    for name in names.prefix(Int.random(in: 0...3, using: &rng)) {
        let columns = ["title", "done", "Due", "ünï", "notes", "rank"].shuffled(using: &rng)
        tables.append(TableSchema(
            name: name, key: "id", columns: Array(columns.prefix(Int.random(in: 0...5, using: &rng))),
            policy: TablePolicy.allCases.randomElement(using: &rng)!))
    }
    func randomStamp(_ rng: inout SeededGenerator) -> Stamp {
        Stamp(hlc: HLCTimestamp(rawValue: rng.next() >> UInt64.random(in: 0...63, using: &rng)), node: nodes.randomElement(using: &rng)!)
    }
    var rows: [RowChange] = []
    if !tables.isEmpty {
        for _ in 0..<Int.random(in: 0...20, using: &rng) {
            let table = tables.randomElement(using: &rng)!
            var key = randomValue(&rng)
            if key.isNull { key = .integer(0) }
            let length = Bool.random(using: &rng) ? UInt64.random(in: 0...5, using: &rng) : rng.next()
            let liveness = length == 0 && Bool.random(using: &rng)
                ? Liveness.unknown : Liveness(causalLength: length, stamp: randomStamp(&rng))
            let columns: [ColumnRegister?] = table.columns.map { _ in
                Bool.random(using: &rng) ? nil : ColumnRegister(value: randomValue(&rng), stamp: randomStamp(&rng))
            }
            rows.append(RowChange(table: table.name, key: key, registers: RowRegisters(liveness: liveness, columns: columns)))
        }
    }
    let upTo = Int64.random(in: 0...Int64.max, using: &rng)
    return Changeset(
        source: nodes[0], since: Int64.random(in: 0...upTo, using: &rng), upTo: upTo, tables: tables, rows: rows)
}

// MARK: - Tests

@Suite("Changeset codec")
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
              "format": 1,
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
        #expect(decoded.rows.map { Array($0.key.textValue?.utf8 ?? "".utf8) }
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
        #expect(error?.description.contains("'/nonexistent/changes.cncd'") == true)
    }

    @Test func everyTruncationIsRefusedAtItsOffset() throws {
        let bytes = try tiny.encoded()
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
                    Issue.record("prefix of \(length) bytes: expected .truncated, got \(String(describing: error))")
                    continue
                }
                #expect(offset == length, "field: \(field)")
                #expect(error!.description.contains("byte \(length)"))
            }
        }
    }

    @Test func everySingleBitFlipIsRefused() throws {
        // Every bit of the small changeset; every 7th bit (so each bit position in turn) of the large one.
        for (changes, step) in [(tiny, 1), (everyKind, 7)] {
            let bytes = try changes.encoded()
            for bit in stride(from: 0, to: bytes.count * 8, by: step) {
                var damaged = bytes
                damaged[bit / 8] ^= 1 << UInt8(bit % 8)
                _ = changesetError { try Changeset(decoding: damaged) }
            }
        }
    }

    @Test func checksumMismatchNamesBothValues() throws {
        var bytes = try tiny.encoded()
        bytes[bytes.count - 1] ^= 0x80
        let error = changesetError { try Changeset(decoding: bytes) }
        #expect(error == .checksumMismatch(stored: 0x06ED_444D, computed: 0x86ED_444D, offset: bytes.count - 4))
        #expect(error?.description.contains("0x06ED444D") == true)
        #expect(error?.description.contains("0x86ED444D") == true)
        #expect(error?.description.contains("byte \(bytes.count - 4)") == true)

        // A change in a row is only caught by the checksum, at the end.
        var text = try tiny.encoded()
        let position = text.firstIndex(of: UInt8(ascii: "B"))!
        text[position] = UInt8(ascii: "C")
        #expect({ if case .checksumMismatch? = changesetError({ try Changeset(decoding: text) }) { true } else { false } }())
    }

    @Test func badMagicUnknownVersionAndTrailingBytesAreRefused() throws {
        let bytes = try tiny.encoded()
        let zip: [UInt8] = [0x50, 0x4B, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00]
        let notOurs = changesetError { try Changeset(decoding: zip) }
        #expect(notOurs == .notAChangeset(prefix: Array(zip.prefix(8))))
        #expect(notOurs?.description.contains("50 4B 03 04") == true)
        #expect(changesetError { try Changeset.decode(anyFormat: Array("hello".utf8)) } == .notAChangeset(prefix: Array("hello".utf8)))
        #expect(changesetError { try Changeset.decode(anyFormat: []) } == .notAChangeset(prefix: []))

        var future = bytes
        future[4] = 2
        let version = changesetError { try Changeset(decoding: future) }
        #expect(version == .unsupportedVersion(found: 2, supported: [1]))
        #expect(version?.description.contains("version 2") == true)
        #expect(version?.description.contains("only version 1") == true)

        let trailing = changesetError { try Changeset(decoding: bytes + [0]) }
        #expect(trailing == .trailingBytes(offset: bytes.count))
        #expect(trailing?.description.contains("byte \(bytes.count)") == true)
        #expect(changesetError { try decodeStreaming(bytes + bytes) } == .trailingBytes(offset: bytes.count))
    }

    @Test func malformedHeadersAreRefusedWithReasonAndOffset() throws {
        // since > upTo
        #expect(malformedReason(Raw.header(since: 6, upTo: 5).sealed(rows: 0))?.1 == .invalidVersionRange(since: 6, upTo: 5))
        #expect(malformedReason(Raw.header(since: -1, upTo: 5).sealed(rows: 0))?.1 == .invalidVersionRange(since: -1, upTo: 5))
        // Names: empty, NUL, duplicates (ASCII case-insensitive), key repeated as a column.
        #expect(malformedReason(Raw.header(tables: [("", "id", [], 0)]).sealed(rows: 0))?.1 == .emptyIdentifier)
        #expect(malformedReason(Raw.header(tables: [("t", "i\u{0}d", [], 0)]).sealed(rows: 0))?.1 == .identifierContainsNUL)
        #expect(malformedReason(Raw.header(tables: [("t", "id", [""], 0)]).sealed(rows: 0))?.1 == .emptyIdentifier)
        #expect(malformedReason(Raw.header(tables: [("t", "id", [], 0), ("T", "id", [], 0)]).sealed(rows: 0))?.1
            == .duplicateTable("T"))
        #expect(malformedReason(Raw.header(tables: [("t", "id", ["a", "A"], 0)]).sealed(rows: 0))?.1 == .duplicateColumn("A"))
        #expect(malformedReason(Raw.header(tables: [("t", "id", ["ID"], 0)]).sealed(rows: 0))?.1 == .duplicateColumn("ID"))
        #expect(malformedReason(Raw.header(tables: [("t", "id", [], 2)]).sealed(rows: 0))?.1 == .unknownPolicy("byte 2"))
        // Invalid UTF-8 in a name, at the name's offset.
        var utf8 = Raw.header(tables: [])
        utf8.bytes.removeLast()
        utf8.varint(1)
        let nameOffset = utf8.bytes.count
        utf8.raw([2, 0xC3, 0x28, 2, 0x69, 0x64, 0, 0])
        let invalid = malformedReason(utf8.sealed(rows: 0))
        #expect(invalid?.0 == nameOffset)
        #expect(invalid?.1 == .invalidUTF8)
        // Too many columns for SQLite.
        var wide = Raw.header(tables: [])
        wide.bytes.removeLast()
        wide.varint(1); wide.string("t"); wide.string("id"); wide.varint(40_000)
        #expect(malformedReason(wide.sealed(rows: 0))?.1 == .countTooLarge(declared: 40_000, limit: 32_767))
    }

    @Test func malformedVarintsAndLengthsAreRefused() throws {
        var long = Raw.header()
        long.u8(1)
        long.raw(Array(repeating: 0x80, count: 10) + [0])
        #expect(malformedReason(long.sealed(rows: 0))?.1 == .varintTooLong)

        var overflow = Raw.header()
        overflow.u8(1)
        overflow.raw(Array(repeating: 0xFF, count: 9) + [0x02])
        #expect(malformedReason(overflow.sealed(rows: 0))?.1 == .varintTooLong)

        var padded = Raw.header()
        padded.u8(1)
        padded.raw([0x80, 0x00])
        #expect(malformedReason(padded.sealed(rows: 0))?.1 == .nonMinimalVarint)

        var huge = Raw.header()
        huge.u8(1); huge.varint(0); huge.u8(4); huge.varint(2_000_000_000)
        #expect(malformedReason(huge.sealed(rows: 0))?.1 == .lengthTooLarge(declared: 2_000_000_000, limit: 1_000_000_000))

        // A length SQLite allows but the data does not hold: refused before allocating, as a truncation.
        var long2 = Raw.header()
        long2.u8(1); long2.varint(0); long2.u8(4); long2.varint(900_000_000)
        let bytes = long2.sealed(rows: 0)
        #expect(changesetError { try Changeset(decoding: bytes) } == .truncated(offset: bytes.count, field: "rows[0].key (table 't')"))
        #expect(changesetError { try decodeStreaming(bytes, chunks: [65536]) }
            == .truncated(offset: bytes.count, field: "rows[0].key (table 't')"))
    }

    @Test func malformedRowsAreRefusedWithReasonAndOffset() throws {
        func row(_ build: (inout Raw) -> Void) -> [UInt8] {
            var r = Raw.header()
            build(&r)
            return r.sealed(rows: 1)
        }
        let rowStart = Raw.header().bytes.count

        #expect(malformedReason(row { $0.u8(9) })! == (rowStart, .unknownRecordTag(9)))
        #expect(malformedReason(row { $0.u8(1); $0.varint(1) })! == (rowStart + 1, .tableIndexOutOfRange(index: 1, tableCount: 1)))
        #expect(malformedReason(row { $0.u8(1); $0.varint(0); $0.u8(7) })! == (rowStart + 2, .unknownValueTag(7)))
        #expect(malformedReason(row { $0.u8(1); $0.varint(0); $0.u8(0) })! == (rowStart + 2, .nullKey))
        #expect(malformedReason(row { $0.u8(1); $0.varint(0); $0.u8(2); $0.u64(Double.nan.bitPattern) })!
            == (rowStart + 2, .notANumber))
        #expect(malformedReason(row { $0.u8(1); $0.varint(0); $0.u8(3); $0.raw([1, 0xFF]) })! == (rowStart + 3, .invalidUTF8))
        #expect(malformedReason(row { $0.u8(1); $0.varint(0); $0.u8(1); $0.zigzag(1); $0.varint(2) })!
            == (rowStart + 4, .columnCountMismatch(expected: 1, found: 2)))
        #expect(malformedReason(row { $0.u8(1); $0.varint(0); $0.u8(1); $0.zigzag(1); $0.varint(1); $0.varint(3); $0.varint(0) })!
            == (rowStart + 6, .liveWithoutStamp(causalLength: 3)))
        // Node references: 1 is the source, 2 would introduce a new node, 3 is out of range.
        #expect(malformedReason(row { $0.u8(1); $0.varint(0); $0.u8(1); $0.zigzag(1); $0.varint(1); $0.varint(1); $0.varint(3) })!
            == (rowStart + 6, .nodeIndexOutOfRange(index: 3, nodeCount: 1)))
        #expect(malformedReason(row {
            $0.u8(1); $0.varint(0); $0.u8(1); $0.zigzag(1); $0.varint(1); $0.varint(1); $0.varint(2); $0.raw(sourceNode.bytes)
        })! == (rowStart + 7, .duplicateNode(sourceNode)))
        // The end record must count the rows.
        var miscounted = Raw.header()
        miscounted.row()
        let countOffset = miscounted.bytes.count + 1
        #expect(malformedReason(miscounted.sealed(rows: 2))! == (countOffset, .rowCountMismatch(stored: 2, counted: 1)))
        // A length-0 row without a stamp is fine, as is a new node introduced once.
        var fine = Raw.header()
        fine.u8(1); fine.varint(0); fine.u8(1); fine.zigzag(1); fine.varint(1); fine.varint(0); fine.varint(0)
        fine.varint(2); fine.raw(otherNode.bytes); fine.u64(5); fine.u8(0)
        fine.row(key: 2)
        let decoded = try Changeset(decoding: fine.sealed(rows: 2))
        #expect(decoded.rows[0].registers == RowRegisters(liveness: .unknown, columns: [ColumnRegister(value: .null, stamp: stamp(5, otherNode))]))
        #expect(decoded.rows[1].key == 2)
    }

    @Test func decoderKeepsFailingAfterAnError() throws {
        var bytes = try tiny.encoded()
        bytes[bytes.count - 1] ^= 1
        let decoder = try ChangesetDecoder(bytes: bytes)
        #expect(try decoder.next() == tiny.rows[0])
        let first = changesetError { try decoder.next() }
        #expect(changesetError { try decoder.next() } == first)
    }

    @Test func encoderRefusesWhatDecodersWouldRefuse() throws {
        func refusal(_ changes: Changeset) -> ChangesetError.Reason? {
            guard case .unencodable(_, let reason)? = changesetError({ try changes.encoded() }) else { return nil }
            return reason
        }
        var c = tiny
        c.since = 4
        #expect(refusal(c) == .invalidVersionRange(since: 4, upTo: 3))
        c = tiny
        c.rows[0].table = "Reminders"
        #expect(refusal(c) == .unknownTable("Reminders"))
        c = tiny
        c.rows[0].key = .null
        #expect(refusal(c) == .nullKey)
        c = tiny
        c.rows[0].registers.columns[0]!.value = .real(.nan)
        #expect(refusal(c) == .notANumber)
        c = tiny
        c.rows[0].registers.columns.append(nil)
        #expect(refusal(c) == .columnCountMismatch(expected: 2, found: 3))
        c = tiny
        c.rows[0].registers.liveness.stamp = nil
        #expect(refusal(c) == .liveWithoutStamp(causalLength: 1))
        c = tiny
        c.tables.append(TableSchema(name: "REMINDERS", key: "id", columns: [], policy: .row))
        #expect(refusal(c) == .duplicateTable("REMINDERS"))
        c = tiny
        c.tables[0].columns = ["title", "Title"]
        #expect(refusal(c) == .duplicateColumn("Title"))
        c = tiny
        c.tables[0].key = ""
        #expect(refusal(c) == .emptyIdentifier)

        // A refused row writes nothing; the encoder carries on.
        let sink = MemoryByteSink()
        let encoder = ChangesetEncoder(sink: sink)
        #expect(changesetError { try encoder.write(tiny.rows[0]) }.map { if case .unencodable = $0 { true } else { false } } == true)
        try encoder.begin(header: tiny.header)
        #expect(changesetError { try encoder.begin(header: tiny.header) } != nil)
        var bad = tiny.rows[0]
        bad.key = .null
        #expect(changesetError { try encoder.write(bad) } != nil)
        try encoder.write(tiny.rows[0])
        try encoder.finish()
        #expect(sink.bytes == (try tiny.encoded()))
        #expect(changesetError { try encoder.write(tiny.rows[0]) }?.description.contains("after finish()") == true)
        #expect(changesetError { try encoder.finish() } != nil)
    }

    @Test func jsonIsValidatedStrictly() throws {
        let good = String(decoding: tiny.jsonData(), as: UTF8.self)
        func reason(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> ChangesetError.Reason? {
            guard let error = changesetError({ try Changeset(json: Array(text.utf8)) }, sourceLocation: sourceLocation) else { return nil }
            guard case .malformed(let offset, _, let reason) = error else {
                Issue.record("expected .malformed, got \(error)", sourceLocation: sourceLocation)
                return nil
            }
            #expect(error.description.contains("byte \(offset)"), sourceLocation: sourceLocation)
            return reason
        }
        func edit(_ old: String, _ new: String) -> String {
            #expect(good.contains(old), "fixture lacks \(old)")
            return good.replacingOccurrences(of: old, with: new)
        }

        #expect(reason(edit(#""upTo": 3"#, #""upTo": 3, "extra": 1"#)) == .unexpectedKey("extra"))
        #expect(reason(edit(#""upTo": 3"#, #""upTo": 3, "since": 0"#)) == .duplicateKey("since"))
        #expect(reason(edit(#""since": 0,"#, "")) == .missingKey("since"))
        #expect(reason(edit(#""since": 0"#, #""since": "0""#)) == .wrongType(expected: "an integer", found: "a string"))
        #expect(reason(edit(#""since": 0"#, #""since": 0.0"#)) == .numberOutOfRange("0.0"))
        #expect(reason(edit(#""upTo": 3"#, #""upTo": 9223372036854775808"#)) == .numberOutOfRange("9223372036854775808"))
        #expect(reason(edit(#""since": 0"#, #""since": 4"#)) == .invalidVersionRange(since: 4, upTo: 3))
        #expect(reason(edit(#""policy": "column""#, #""policy": "Column""#)) == .unknownPolicy("\"Column\""))
        #expect(reason(edit(#""done""#, #""Title""#)) == .duplicateColumn("Title"))
        #expect(reason(edit(#""name": "reminders""#, #""name": """#)) == .emptyIdentifier)
        #expect(reason(edit(#""table": "reminders""#, #""table": "lists""#)) == .unknownTable("lists"))
        #expect(reason(edit(#""integer": 1"#, #""integer": 1, "text": "x""#))
            == .wrongType(expected: "null or an object with one key: integer, real, text or blob", found: "an object with 2 keys"))
        #expect(reason(edit(#""integer": 1"#, #""float": 1"#)) == .unexpectedKey("float"))
        #expect(reason(edit(#""integer": 1"#, #""real": "NaN""#)) == .notANumber)
        #expect(reason(edit(#""integer": 1"#, #""real": 1e999"#)) == .numberOutOfRange("1e999"))
        #expect(reason(edit(#""integer": 1"#, #""blob": "abc""#)) == .invalidHex)
        #expect(reason(edit(#""integer": 1"#, #""blob": "zz""#)) == .invalidHex)
        #expect(reason(edit(#""key": {"#, #""key": null, "was": {"#)) == .unexpectedKey("was"))
        #expect(reason(edit(#""source": "000102030405060708090a0b0c0d0e0f""#, #""source": "0001""#)) == .invalidNodeID("0001"))
        #expect(reason(edit(#""causalLength": 1"#, #""causalLength": -1"#)) == .numberOutOfRange("-1"))
        #expect(reason(edit("        null\n", "        null,\n        null\n")) == .columnCountMismatch(expected: 2, found: 3))
        #expect(reason(edit(#""Buy milk""#, #""Buy \ud83d milk""#)) == .invalidJSON("a high surrogate escape must be followed by a low one"))
        #expect(reason(edit(#""Buy milk""#, "\"Buy\tmilk\"")) == .invalidJSON("a control character must be escaped inside a string"))
        #expect(reason(edit(#""since": 0"#, #""since": 01"#)) == .invalidJSON("a number cannot start with 0"))
        #expect(reason(edit(#""since": 0,"#, #""since": 0,,"#)) == .invalidJSON("expected a string key"))
        #expect(reason(String(repeating: "[", count: 100)) == .nestingTooDeep(limit: 32))

        // The offset points at the offending key.
        let extra = edit(#""upTo": 3"#, #""upTo": 3, "extra": 1"#)
        let error = changesetError { try Changeset(json: Array(extra.utf8)) }
        let keyOffset = Array(extra.utf8).firstRange(of: Array(#""extra""#.utf8))!.lowerBound
        #expect(error.map { if case .malformed(let offset, _, _) = $0 { offset == keyOffset } else { false } } == true)

        // Escapes decode; invalid UTF-8, truncation, trailing text, other versions are refused.
        let escaped = try Changeset(json: Array(edit(#""Buy milk""#, #""\u00e9\ud83c\udf0d\/\n""#).utf8))
        #expect(escaped.rows[0].registers.columns[0]?.value == .text("é🌍/\n"))
        var invalidUTF8 = Array(good.utf8)
        invalidUTF8[invalidUTF8.firstRange(of: Array("Buy".utf8))!.lowerBound] = 0xFF
        #expect(changesetError { try Changeset(json: invalidUTF8) }.map {
            if case .malformed(_, _, .invalidUTF8) = $0 { true } else { false }
        } == true)
        let cut = Array(good.utf8.prefix(100))
        #expect(changesetError { try Changeset(json: cut) } == .truncated(offset: 100, field: "the JSON text"))
        #expect(changesetError { try Changeset(json: Array((good + "x").utf8)) } == .trailingBytes(offset: good.utf8.count))
        #expect(changesetError { try Changeset(json: Array(edit(#""format": 1"#, #""format": 7"#).utf8)) }
            == .unsupportedVersion(found: 7, supported: [1]))
        #expect(try Changeset.decode(anyFormat: Array(("\u{FEFF} \n" + good).utf8)) == tiny)
    }

    @Test func everyJSONTruncationIsRefused() throws {
        let json = tiny.jsonData()
        for length in 0..<json.count - 1 {  // the final newline is optional
            let error = changesetError { try Changeset(json: Array(json.prefix(length))) }
            guard case .truncated(let offset, _)? = error else {
                Issue.record("prefix of \(length) bytes: expected .truncated, got \(String(describing: error))")
                continue
            }
            #expect(offset == length)
        }
    }

    @Test func randomChangesetsRoundTripInBothForms() throws {
        for seed in seeds(200, salt: 1) {
            var rng = SeededGenerator(seed: seed)
            let changes = randomChangeset(&rng)
            let bytes = try changes.encoded()
            let decoded = try Changeset(decoding: bytes)
            #expect(decoded == changes, "seed \(seed) (replay with CONCORD_SEED=\(seed))")
            #expect(try decoded.encoded() == bytes, "seed \(seed) (replay with CONCORD_SEED=\(seed))")
            let chunks = (0..<3).map { _ in Int.random(in: 1...300, using: &rng) }
            #expect(try decodeStreaming(bytes, chunks: chunks) == changes, "seed \(seed) (replay with CONCORD_SEED=\(seed))")
            let json = changes.jsonData()
            let fromJSON = try Changeset(json: json)
            #expect(try fromJSON.encoded() == bytes, "seed \(seed) (replay with CONCORD_SEED=\(seed))")
            #expect(fromJSON.jsonData() == json, "seed \(seed) (replay with CONCORD_SEED=\(seed))")
        }
    }

    @Test func randomDamageIsRefusedOrHarmless() throws {
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
            for data in [bytes, json] {
                do {
                    let decoded = try Changeset.decode(anyFormat: data)
                    #expect(throws: Never.self, "seed \(seed) (replay with CONCORD_SEED=\(seed))") { try decoded.encoded() }
                } catch is ChangesetError {
                } catch {
                    Issue.record("seed \(seed) (replay with CONCORD_SEED=\(seed)): unexpected error \(error)")
                }
            }
        }
    }
}
