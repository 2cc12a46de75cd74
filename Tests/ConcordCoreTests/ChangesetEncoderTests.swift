import ConcordTestTraits
import Testing

@testable import ConcordCore

private let sourceNode = NodeID(hex: "000102030405060708090a0b0c0d0e0f")!

private func stamp(_ hlc: UInt64) -> Stamp { Stamp(hlc: HLCTimestamp(rawValue: hlc), node: sourceNode) }

/// A counter column beside an lww one, and one row of it.
private let posts = TableSchema(
    name: "posts", key: "id", columns: ["likes", "title"], policy: .column, merges: [.counter, .lww])

private let post = RowChange(
    table: "posts", key: "p1",
    registers: RowRegisters(
        liveness: Liveness(causalLength: 1, stamp: stamp(1)),
        columns: [
            ColumnRegister(
                value: 2, stamp: stamp(2),
                contributions: [CounterContribution(causalLength: 1, amount: 2, stamp: stamp(2))]),
            ColumnRegister(value: "Hello", stamp: stamp(3)),
        ]))

private let header = ChangesetHeader(source: sourceNode, since: 0, upTo: 1, tables: [posts])

/// A sink that takes `capacity` bytes, then refuses writes; its flush fails when told to.
private final class LimitedSink: ByteSink {
    private(set) var bytes: [UInt8] = []
    let capacity: Int
    let flushFails: Bool
    static let full = ChangesetError.io(operation: "write", path: "test sink", reason: "No space left on device")

    init(capacity: Int = .max, flushFails: Bool = false) {
        self.capacity = capacity
        self.flushFails = flushFails
    }

    func write(_ bytes: [UInt8]) throws {
        guard self.bytes.count + bytes.count <= capacity else { throw Self.full }
        self.bytes += bytes
    }

    func flush() throws { if flushFails { throw Self.full } }
    func close() {}
}

/// The ``ChangesetError`` `body` throws, or `nil` (recorded) if it throws none or another type.
private func encoderError(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void)
    -> ChangesetError?
{
    do {
        try body()
        Issue.record("expected a ChangesetError, but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as ChangesetError {
        return error
    } catch {
        Issue.record("expected a ChangesetError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Why encoding `changes` is refused.
private func refusal(_ changes: Changeset, sourceLocation: SourceLocation = #_sourceLocation) -> ChangesetError? {
    encoderError(sourceLocation: sourceLocation) { _ = try changes.encoded() }
}

private func outOfOrder(_ call: String, _ detail: String) -> ChangesetError {
    .unencodable(field: call, reason: .encoderState(detail))
}

/// The encoder refuses what no decoder would read, names the field, and stops for good once its sink fails.
@Suite("Changeset encoder", .tags(.core))
struct ChangesetEncoderTests {
    @Test func itCountsTheRowsAndBytesItHandsOver() throws {
        let sink = LimitedSink()
        let encoder = ChangesetEncoder(sink: sink)
        #expect(encoder.rowCount == 0 && encoder.byteCount == 0)
        try encoder.begin(header: header)
        let headerBytes = encoder.byteCount
        #expect(headerBytes == sink.bytes.count && headerBytes > 0)
        try encoder.write(post)
        try encoder.write(post)
        #expect(encoder.rowCount == 2 && encoder.byteCount == sink.bytes.count)
        try encoder.finish()
        #expect(encoder.byteCount == sink.bytes.count)
        let decoded = try Changeset(decoding: sink.bytes)
        #expect(decoded == Changeset(header: header, rows: [post, post]))
    }

    @Test func aSinkThatFailsStopsTheEncoderForGood() throws {
        // During the header.
        let none = ChangesetEncoder(sink: LimitedSink(capacity: 0))
        #expect(encoderError { try none.begin(header: header) } == LimitedSink.full)
        #expect(
            encoderError { try none.begin(header: header) }
                == outOfOrder(
                    "begin(header:)",
                    "called after the sink failed; begin(header:) may be called only once, first; "
                        + "use a new encoder per changeset"))

        // During a row: nothing more is written, whatever is called.
        let headerSize = try Changeset(header: header, rows: []).encoded().count - 6  // less the end record and CRC
        let sink = LimitedSink(capacity: headerSize + 10)
        let encoder = ChangesetEncoder(sink: sink)
        try encoder.begin(header: header)
        #expect(encoderError { try encoder.write(post) } == LimitedSink.full)
        #expect(
            encoderError { try encoder.write(post) }
                == outOfOrder(
                    "write(_:)",
                    "called after the sink failed; write(_:) must come after begin(header:) and before finish()"))
        #expect(
            encoderError { try encoder.finish() }
                == outOfOrder("finish()", "called after the sink failed; finish() must come after begin(header:), once")
        )
        #expect(sink.bytes.count == headerSize)

        // At the end: a flush that fails fails the finish.
        let unflushable = ChangesetEncoder(sink: LimitedSink(flushFails: true))
        try unflushable.begin(header: header)
        try unflushable.write(post)
        #expect(encoderError { try unflushable.finish() } == LimitedSink.full)
        #expect(
            encoderError { try unflushable.finish() }
                == outOfOrder("finish()", "called after the sink failed; finish() must come after begin(header:), once")
        )
    }

    @Test func finishBeforeBeginIsRefused() {
        let encoder = ChangesetEncoder(sink: LimitedSink())
        #expect(
            encoderError { try encoder.finish() }
                == outOfOrder("finish()", "called before begin(header:); finish() must come after begin(header:), once")
        )
    }

    @Test func clocksAndCausalLengthsBeyondTheLimitsAreRefused() throws {
        var row = post
        row.registers.columns[1]!.stamp = stamp(1 << 63)
        #expect(
            refusal(Changeset(header: header, rows: [row]))
                == .unencodable(
                    field: "rows[0].columns[1].stamp (table 'posts', column 'title')",
                    reason: .clockOutOfRange(1 << 63)))
        row = post
        row.registers.liveness.stamp = stamp(.max)
        #expect(
            refusal(Changeset(header: header, rows: [row]))
                == .unencodable(field: "rows[0].liveness (table 'posts')", reason: .clockOutOfRange(.max)))
        row = post
        row.registers.liveness.causalLength = Liveness.maxCausalLength + 1
        #expect(
            refusal(Changeset(header: header, rows: [row]))
                == .unencodable(
                    field: "rows[0].liveness (table 'posts')",
                    reason: .causalLengthTooLarge(Liveness.maxCausalLength + 1)
                ))

        // The limits themselves encode and read back.
        row = post
        row.registers.liveness = Liveness(causalLength: Liveness.maxCausalLength, stamp: stamp(UInt64(Int64.max)))
        row.registers.columns[0]!.contributions[0].causalLength = Liveness.maxCausalLength
        let limits = Changeset(header: header, rows: [row])
        #expect(try Changeset(decoding: limits.encoded()) == limits)
        #expect(try Changeset(json: limits.jsonData()) == limits)
    }

    /// The encoder once named `contributions[0].stamp.node` for every problem of an entry, a causal
    /// length or a clock out of range included; it names the field the decoder names.
    @Test func aContributionBeyondTheLimitsIsRefusedNamingItsField() throws {
        let place = "(table 'posts', column 'likes')"
        var row = post
        row.registers.columns[0]!.contributions[0].causalLength = Liveness.maxCausalLength + 1
        #expect(
            refusal(Changeset(header: header, rows: [row]))
                == .unencodable(
                    field: "rows[0].columns[0].contributions[0].causalLength \(place)",
                    reason: .causalLengthTooLarge(Liveness.maxCausalLength + 1)))
        row = post
        row.registers.columns[0]!.contributions[0].stamp = stamp(1 << 63)
        #expect(
            refusal(Changeset(header: header, rows: [row]))
                == .unencodable(
                    field: "rows[0].columns[0].contributions[0].stamp \(place)", reason: .clockOutOfRange(1 << 63)))

        // The decoder refuses the same causal length at its varint: the largest one allowed, then one above it.
        row = post
        row.registers.columns[0]!.contributions[0].causalLength = Liveness.maxCausalLength
        var bytes = try Changeset(header: header, rows: [row]).encoded()
        let varint = bytes.ranges(of: [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40])
        try #require(varint.count == 1)
        let offset = varint[0].lowerBound
        bytes[offset] = 0x81  // 2^62 + 1
        let crc = CRC32.checksum(bytes.dropLast(4))
        bytes.replaceSubrange(
            bytes.count - 4..<bytes.count, with: (0..<4).map { UInt8(truncatingIfNeeded: crc >> ($0 * 8)) })
        #expect(
            encoderError { _ = try Changeset(decoding: bytes) }
                == .malformed(
                    offset: offset, field: "rows[0].columns[0].contributions[0].causalLength \(place)",
                    reason: .causalLengthTooLarge(Liveness.maxCausalLength + 1)))
    }

    @Test func aTableMayHaveAsManyColumnsAsSQLiteAndNoMore() throws {
        let widest = TableSchema(name: "wide", key: "id", columns: (0..<32_767).map { "c\($0)" }, policy: .row)
        let row = RowChange(
            table: "wide", key: .blob([1]),
            registers: RowRegisters(
                liveness: Liveness(causalLength: 1, stamp: stamp(1)),
                columns: [ColumnRegister(value: 1, stamp: stamp(1))] + Array(repeating: nil, count: 32_766)))
        let changes = Changeset(source: sourceNode, since: 0, upTo: 0, tables: [widest], rows: [row])
        #expect(try Changeset(decoding: changes.encoded()) == changes)
        var tooWide = widest
        tooWide.columns.append("c32767")
        tooWide.merges.append(.lww)
        #expect(
            refusal(Changeset(source: sourceNode, since: 0, upTo: 0, tables: [tooWide], rows: []))
                == .unencodable(field: "tables[0].columns", reason: .countTooLarge(declared: 32_768, limit: 32_767)))
    }
}
