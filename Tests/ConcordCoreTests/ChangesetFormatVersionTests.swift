import ConcordTestTraits
import Foundation
import Testing

@testable import ConcordCore

// MARK: - Fixtures

private let nodeA = NodeID(hex: "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf")!
private let nodeB = NodeID(hex: "b0b1b2b3b4b5b6b7b8b9babbbcbdbebf")!

private func stamp(_ hlc: UInt64, _ node: NodeID = nodeA) -> Stamp {
    Stamp(hlc: HLCTimestamp(rawValue: hlc), node: node)
}

/// Two rows of a table with a counter column, stamped by two nodes: every part of the layout a format changes.
private let sample = Changeset(
    source: nodeA, since: 2, upTo: 7,
    tables: [
        TableSchema(name: "cards", key: "id", columns: ["title", "likes"], policy: .column, merges: [.lww, .counter])
    ],
    rows: [
        RowChange(
            table: "cards", key: "c1",
            registers: RowRegisters(
                liveness: Liveness(causalLength: 1, stamp: stamp(0x1_0000)),
                columns: [
                    ColumnRegister(value: "Plan trip", stamp: stamp(0x1_0001, nodeB)),
                    ColumnRegister(
                        value: 3, stamp: stamp(0x1_0002),
                        contributions: [CounterContribution(causalLength: 1, amount: 3, stamp: stamp(0x1_0002))]),
                ])),
        RowChange(
            table: "cards", key: "c2",
            registers: RowRegisters(
                liveness: Liveness(causalLength: 2, stamp: stamp(0x1_0003, nodeB)), columns: [nil, nil])),
    ])

/// `sample` in format 1, as the format-1 encoder (Concord 0.1.0) wrote it; the CRC is that encoder's.
/// Its end: two rows, CRC-32.
private let sampleFormat1Hex = sampleHeaderHex + sampleRowHex[0] + sampleRowHex[1] + "02" + "02" + "8ca2e79a"

/// `sample`'s header in format 1.
private let sampleHeaderHex =
    "434e4344" + "0100" + "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf" + "04" + "0e"  // magic, format 1, source, since 2, upTo 7
    + "01" + "056361726473" + "026964" + "02"  // one table: cards, key id, two columns
    + "057469746c65" + "036c7777" + "056c696b6573" + "07636f756e746572" + "00"  // title lww, likes counter; column

/// `sample`'s two row records in formats 1 and 2.
private let sampleRowHex = [
    // c1: alive (1), stamped by the source.
    "01" + "00" + "03026331" + "02" + "01" + "01" + "0000010000000000"
        + "02" + "b0b1b2b3b4b5b6b7b8b9babbbcbdbebf" + "0100010000000000" + "0309506c616e2074726970"  // title: node B
        + "01" + "0200010000000000" + "0106" + "01" + "01" + "06" + "01" + "0200010000000000",  // likes: 3, one share
    // c2: deleted (2) by node B, no column written.
    "01" + "00" + "03026332" + "02" + "02" + "02" + "0300010000000000" + "00" + "00",
]

/// `sample` in format 2, as the format-2 encoder (Concord 0.2.0) wrote it: format 1 with the release the
/// format needs after its number.
private var sampleFormat2: [UInt8] {
    let format1 = hexBytes(sampleFormat1Hex)
    return resealed(Array(format1.prefix(4)) + [2, 0, 5] + Array("0.2.0".utf8) + format1.dropFirst(6))
}

/// `sample` in format 1's JSON form, as the format-1 writer wrote it (here on fewer lines).
private let sampleFormat1JSON = #"""
    {
      "format": 1,
      "rows": [
        {
          "columns": [
            {"stamp": {"hlc": 65537, "node": "b0b1b2b3b4b5b6b7b8b9babbbcbdbebf"}, "value": {"text": "Plan trip"}},
            {
              "contributions": [
                {"amount": 3, "causalLength": 1, "stamp": {"hlc": 65538, "node": "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf"}}
              ],
              "stamp": {"hlc": 65538, "node": "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf"},
              "value": {"integer": 3}
            }
          ],
          "key": {"text": "c1"},
          "liveness": {"causalLength": 1, "stamp": {"hlc": 65536, "node": "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf"}},
          "table": "cards"
        },
        {
          "columns": [null, null],
          "key": {"text": "c2"},
          "liveness": {"causalLength": 2, "stamp": {"hlc": 65539, "node": "b0b1b2b3b4b5b6b7b8b9babbbcbdbebf"}},
          "table": "cards"
        }
      ],
      "since": 2,
      "source": "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf",
      "tables": [
        {"columns": ["title", "likes"], "key": "id", "merges": ["lww", "counter"], "name": "cards", "policy": "column"}
      ],
      "upTo": 7
    }
    """#

private func hexBytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    return stride(from: 0, to: digits.count, by: 2).map {
        UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
    }
}

/// `body` with its last four bytes replaced by the CRC-32 of the rest, as an encoder would seal it.
private func resealed(_ body: [UInt8]) -> [UInt8] {
    let crc = CRC32.checksum(body.dropLast(4))
    return body.dropLast(4) + [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: crc >> UInt32($0)) }
}

/// The header of a changeset in `format`, with `release` where format 2 on puts the release it needs
/// (`nil`: nothing), then `rest`: what a later format's layout might hold.
private func crafted(format: UInt16, release: [UInt8]?, rest: [UInt8] = Array(0..<40)) -> [UInt8] {
    var bytes = Array("CNCD".utf8) + [UInt8(format & 0xFF), UInt8(format >> 8)]
    if let release {
        ChangesetFormat.appendVarint(UInt64(release.count), to: &bytes)
        bytes += release
    }
    return bytes + rest
}

/// A source that hands out one byte per read and never says how much is left, like a slow pipe.
private final class OneByteSource: ByteSource {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func read(maxCount: Int) -> [UInt8] {
        guard position < bytes.count, maxCount > 0 else { return [] }
        defer { position += 1 }
        return [bytes[position]]
    }
}

/// The error decoding `bytes` throws (in memory, and streamed a byte at a time, which must agree), or `nil`.
private func binaryRefusal(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> ChangesetError? {
    var errors: [ChangesetError] = []
    for streamed in [false, true] {
        do {
            if streamed {
                let decoder = try ChangesetDecoder(source: OneByteSource(bytes))
                while try decoder.next() != nil {}
            } else {
                _ = try Changeset(decoding: bytes)
            }
            Issue.record("expected a refusal (streamed: \(streamed))", sourceLocation: sourceLocation)
        } catch let error as ChangesetError {
            errors.append(error)
        } catch {
            Issue.record("expected a ChangesetError, got \(error)", sourceLocation: sourceLocation)
        }
    }
    #expect(errors.count == 2 && errors[0] == errors[1], "\(errors)", sourceLocation: sourceLocation)
    return errors.first
}

/// The error reading the JSON `text` throws, or `nil` (recorded) if it throws none or another type.
private func jsonRefusal(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> ChangesetError? {
    do {
        _ = try Changeset(json: Array(text.utf8))
        Issue.record("expected a refusal", sourceLocation: sourceLocation)
    } catch let error as ChangesetError {
        return error
    } catch {
        Issue.record("expected a ChangesetError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// `text` with `old`, which it must contain, replaced by `new`.
private func edited(_ text: String, _ old: String, _ new: String, sourceLocation: SourceLocation = #_sourceLocation)
    -> String
{
    #expect(text.contains(old), "the fixture lacks \(old)", sourceLocation: sourceLocation)
    return text.replacingOccurrences(of: old, with: new)
}

/// The message a build gives for a changeset in `format` that needs release `needs`.
private func needsMessage(_ needs: String, format: Int) -> String {
    "This changeset needs Concord ≥ \(needs) (it is in format \(format); this build, Concord "
        + "\(ConcordRelease.current), reads formats 1–3): update Concord on this device."
}

/// The message a build gives for a changeset in `format` that names no release it can show.
private func unnamedMessage(format: Int) -> String {
    "This changeset is in format \(format), and it does not say which Concord release reads it (this build, "
        + "Concord \(ConcordRelease.current), reads formats 1–3): update Concord on this device, or export the "
        + "changeset again if the file is damaged."
}

/// A release name as numbers (`0.2.0` → [0, 2, 0]), or `nil` if a part is not a number.
private func numbers(_ release: String) -> [Int]? {
    let parts = release.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
    return parts.contains(nil) ? nil : parts.compactMap { $0 }
}

// MARK: - Tests

/// A newer build reads every older changeset format; an older build refuses a newer one, naming the release it needs.
@Suite("Changeset format versions", .tags(.core), .timeLimit(.hangGuard))
struct ChangesetFormatVersionTests {
    @Test func aFormatOneChangesetDecodesToTheSameChangeset() throws {
        let bytes = hexBytes(sampleFormat1Hex)
        #expect(try Changeset(decoding: bytes) == sample)
        let decoder = try ChangesetDecoder(source: OneByteSource(bytes))
        #expect(decoder.header == sample.header)
        #expect(try decoder.next() == sample.rows[0])
        #expect(try decoder.next() == sample.rows[1])
        #expect(try decoder.next() == nil)
        #expect(decoder.checksum == 0x9AE7_A28C)
        #expect(try Changeset.decode(anyFormat: bytes) == sample)
        // Damage is still refused in the older format, by the checksum it has.
        var damaged = bytes
        damaged[30] ^= 1
        guard case .checksumMismatch? = binaryRefusal(damaged) else {
            Issue.record("a flipped bit in a format-1 table name was not caught by the checksum")
            return
        }
    }

    @Test func aFormatTwoChangesetDecodesToTheSameChangeset() throws {
        let bytes = sampleFormat2
        #expect(Array(bytes.prefix(12)) == Array("CNCD".utf8) + [2, 0, 5] + Array("0.2.0".utf8))
        #expect(try Changeset(decoding: bytes) == sample)
        #expect(try ChangesetDecoder(bytes: bytes).format == 2)
        #expect(
            try Changeset(decoding: bytes).rows.allSatisfy { $0.seen == nil }, "format 2 does not say what writes saw")
    }

    @Test func formatThreeIsFormatTwoWithASeenTagAfterEachRow() throws {
        let format2 = sampleFormat2
        let encoded = try sample.encoded()
        #expect(Array(encoded.prefix(12)) == Array("CNCD".utf8) + [3, 0, 5] + Array("0.3.0".utf8))
        // The rows of format 2, each followed by the tag 0: what its writes saw is not known.
        let header = hexBytes(sampleHeaderHex)
        let expected =
            Array(header.prefix(4)) + [3, 0, 5] + Array("0.3.0".utf8) + header.dropFirst(6)
            + hexBytes(sampleRowHex[0]) + [0] + hexBytes(sampleRowHex[1]) + [0] + [2, 2, 0, 0, 0, 0]
        #expect(encoded == resealed(expected))
        #expect(try Changeset(decoding: encoded) == sample)
        #expect(try ChangesetDecoder(bytes: encoded).format == 3)
        // Re-encoding an older changeset writes format 3.
        #expect(try Changeset(decoding: hexBytes(sampleFormat1Hex)).encoded() == encoded)
        #expect(try Changeset(decoding: format2).encoded() == encoded)
    }

    @Test func aSeenListHasAStampOrNoneForEachLastWriterWinsRegister() throws {
        var seen = sample
        // c1's title (node B's write) saw a value of node A; its counter has no seen stamp; c2 saw nothing.
        seen.rows[0].seen = [stamp(0x1_0000), nil]
        seen.rows[1].seen = [nil, nil]
        let encoded = try seen.encoded()
        #expect(try Changeset(decoding: encoded) == seen)
        #expect(try Changeset(json: seen.jsonData()) == seen)
        let plain = try sample.encoded()
        // c1's list: tag 1, node reference 1 (the source, node A) and its clock; c2's: tag 2, none saw anything.
        #expect(encoded.count == plain.count + 9)
        #expect(encoded[encoded.count - 7] == 2, "c2's tag, before the end record")
        // A seen stamp above its register's, or on a counter, or one too many, is refused.
        for (entries, reason) in [
            (
                [stamp(0x1_0002), nil],
                ChangesetError.Reason.seenAfterWrite(seen: stamp(0x1_0002), write: stamp(0x1_0001, nodeB))
            ),
            ([nil, stamp(0x1_0000)], .seenWithoutRegister),
            ([nil], .columnCountMismatch(expected: 2, found: 1)),
        ] as [([Stamp?], ChangesetError.Reason)] {
            var bad = sample
            bad.rows[0].seen = entries
            #expect(throws: ChangesetError.self) { try bad.encoded() }
            do {
                _ = try bad.encoded()
            } catch let ChangesetError.unencodable(_, found) {
                #expect(found == reason)
            }
            var json = bad
            json.rows[0].seen = entries
            guard case .malformed(_, _, let found)? = jsonRefusal(String(decoding: json.jsonData(), as: UTF8.self))
            else { continue }
            #expect(found == reason)
        }
    }

    @Test func aNewerFormatNamesTheReleaseItNeeds() throws {
        let future = crafted(format: 4, release: Array("0.4.0".utf8))
        let error = binaryRefusal(future)
        #expect(error == .unsupportedVersion(found: 4, supported: [1, 2, 3], needs: "0.4.0"))
        #expect(error?.description == needsMessage("0.4.0", format: 4))
        #expect(throws: ChangesetError.unsupportedVersion(found: 4, supported: [1, 2, 3], needs: "0.4.0")) {
            try Changeset.decode(anyFormat: future)
        }
        // Nothing after the name is read: it may end there, or hold anything.
        #expect(binaryRefusal(crafted(format: 4, release: Array("0.4.0".utf8), rest: [])) == error)
        // The longest name shown, and every character a name may have, in the largest format number.
        let longest = "10.20.300-rc.1+build.A-Za-z.0129"
        #expect(longest.utf8.count == ChangesetFormat.maxReleaseLength)
        #expect(
            binaryRefusal(crafted(format: 0xFFFF, release: Array(longest.utf8)))
                == .unsupportedVersion(found: 65_535, supported: [1, 2, 3], needs: longest))
    }

    @Test(
        arguments: [
            ("nothing after the format number", nil),
            ("an empty name", []),
            ("33 characters", Array(String(repeating: "9", count: 33).utf8)),
            ("a space", Array("0.3.0 beta".utf8)),
            ("a NUL", Array("0.3.0\u{0}".utf8)),
            ("a newline", Array("0.3.0\n".utf8)),
            ("a non-ASCII letter", Array("0.3.0-é".utf8)),
            ("not UTF-8", [0x30, 0x2E, 0xFF]),
        ] as [(String, [UInt8]?)])
    func aNewerFormatWithoutAReadableNameSaysWhatThisBuildReads(_ what: String, _ release: [UInt8]?) {
        let error = binaryRefusal(crafted(format: 4, release: release, rest: []))
        #expect(error == .unsupportedVersion(found: 4, supported: [1, 2, 3], needs: nil), "\(what)")
        #expect(error?.description == unnamedMessage(format: 4), "\(what)")
    }

    @Test func aNameCutShortOrWithALongLengthIsNotShown() {
        // The length says five bytes, three follow.
        let cut = Array(crafted(format: 4, release: Array("0.4.0".utf8), rest: []).dropLast(2))
        #expect(binaryRefusal(cut) == .unsupportedVersion(found: 4, supported: [1, 2, 3], needs: nil))
        // A length of two varint bytes (5 + 128) is more than a name may have.
        let long = Array("CNCD".utf8) + [4, 0, 0x85, 0x01] + Array("0.4.0".utf8)
        #expect(binaryRefusal(long) == .unsupportedVersion(found: 4, supported: [1, 2, 3], needs: nil))
    }

    @Test func formatZeroIsDamagedNotNewer() {
        // Bytes that would read as a release name are not taken for one: no format before 1 was written.
        let error = binaryRefusal(crafted(format: 0, release: Array("0.3.0".utf8)))
        #expect(error == .unsupportedVersion(found: 0, supported: [1, 2, 3], needs: nil))
        #expect(
            error?.description
                == "This changeset says it is in format 0, which no Concord release writes (this build, Concord "
                + "\(ConcordRelease.current), reads formats 1–3): it is damaged; export it again.")
    }

    @Test func formatTwoMustNameItsOwnRelease() throws {
        let encoded = sampleFormat2
        /// `encoded` with the release name replaced by `release`, resealed so only the name is wrong.
        func withRelease(_ release: [UInt8]) -> [UInt8] {
            var length: [UInt8] = []
            ChangesetFormat.appendVarint(UInt64(release.count), to: &length)
            return resealed(Array(encoded.prefix(6)) + length + release + encoded.dropFirst(12))
        }
        let field = "the release that format 2 needs"
        for release in ["0.3.0", "0.1.0", "0.2.0+1", "0.2", ""] {
            let error = binaryRefusal(withRelease(Array(release.utf8)))
            #expect(
                error
                    == .malformed(
                        offset: 6, field: field,
                        reason: .releaseMismatch(format: 2, expected: "0.2.0", found: release)), "\(release)")
        }
        #expect(
            binaryRefusal(withRelease(Array(String(repeating: "0", count: 33).utf8)))
                == .malformed(offset: 6, field: field, reason: .lengthTooLarge(declared: 33, limit: 32)))
        #expect(binaryRefusal(Array(encoded.prefix(9))) == .truncated(offset: 9, field: field))
        let message = binaryRefusal(withRelease(Array("0.3.0".utf8)))?.description ?? ""
        #expect(
            message.hasPrefix(
                "The changeset is malformed at byte 6, reading the release that format 2 needs: format 2 names "
                    + #"Concord 0.2.0 as the oldest release that reads it, but this changeset names "0.3.0"."#))
    }

    // MARK: JSON

    @Test func aFormatOneJSONChangesetDecodesToTheSameChangeset() throws {
        #expect(try Changeset(json: Array(sampleFormat1JSON.utf8)) == sample)
        #expect(try Changeset.decode(anyFormat: Array(sampleFormat1JSON.utf8)) == sample)
        // Format 1 has no "needs": one there is an unknown key, at the key.
        let withNeeds = edited(sampleFormat1JSON, #""format": 1,"#, #""format": 1, "needs": "0.2.0","#)
        let offset = Array(withNeeds.utf8).firstRange(of: Array(#""needs""#.utf8))!.lowerBound
        #expect(
            jsonRefusal(withNeeds)
                == .malformed(offset: offset, field: "the changeset", reason: .unexpectedKey("needs")))
    }

    @Test func formatTwoJSONHasNoSeenLists() throws {
        let format2 = edited(sampleFormat1JSON, #""format": 1,"#, #""format": 2, "needs": "0.2.0","#)
        #expect(try Changeset(json: Array(format2.utf8)) == sample)
        let withSeen = edited(
            format2, #""table": "cards"\#n    },"#, #""table": "cards", "seen": [null, null]\#n    },"#)
        let offset = Array(withSeen.utf8).firstRange(of: Array(#""seen""#.utf8))!.lowerBound
        #expect(
            jsonRefusal(withSeen) == .malformed(offset: offset, field: "rows[0]", reason: .unexpectedKey("seen")))
    }

    @Test func formatThreeJSONRoundTripsAndNamesItsRelease() throws {
        let json = String(decoding: sample.jsonData(), as: UTF8.self)
        #expect(json.hasPrefix("{\n  \"format\": 3,\n  \"needs\": \"0.3.0\",\n  \"rows\": ["))
        #expect(try Changeset(json: Array(json.utf8)) == sample)
        #expect(
            json
                == String(
                    decoding: try Changeset(json: Array(sampleFormat1JSON.utf8)).jsonData(), as: UTF8.self))

        let missing = edited(json, "  \"needs\": \"0.3.0\",\n", "")
        #expect(jsonRefusal(missing) == .malformed(offset: 0, field: "the changeset", reason: .missingKey("needs")))
        for (value, reason) in [
            (#""0.2.0""#, ChangesetError.Reason.releaseMismatch(format: 3, expected: "0.3.0", found: "0.2.0")),
            (#""""#, .releaseMismatch(format: 3, expected: "0.3.0", found: "")),
            ("3", .wrongType(expected: "a string", found: "a number")),
        ] {
            let text = edited(json, #""needs": "0.3.0""#, #""needs": \#(value)"#)
            let offset = Array(text.utf8).firstRange(of: Array(#""needs": "#.utf8))!.upperBound
            #expect(jsonRefusal(text) == .malformed(offset: offset, field: "needs", reason: reason), "\(value)")
        }
    }

    @Test func aNewerJSONFormatNamesTheReleaseItNeeds() throws {
        let json = String(decoding: sample.jsonData(), as: UTF8.self)
        // A later format may change everything after its number and "needs".
        let future = #"{"format": 4, "needs": "0.4.0", "changes": {"cards": []}}"#
        let error = jsonRefusal(future)
        #expect(error == .unsupportedVersion(found: 4, supported: [1, 2, 3], needs: "0.4.0"))
        #expect(error?.description == needsMessage("0.4.0", format: 4))
        #expect(
            jsonRefusal(edited(edited(json, #""format": 3"#, #""format": 70000"#), #""0.3.0""#, #""1.0.0""#))
                == .unsupportedVersion(found: 70_000, supported: [1, 2, 3], needs: "1.0.0"))

        for needs in [nil, #""0.4.0 beta""#, #""""#, "4", "null", #"["0.4.0"]"#] {
            let member = needs.map { ", \"needs\": \($0)" } ?? ""
            let text = "{\"format\": 4\(member), \"changes\": []}"
            let unnamed = jsonRefusal(text)
            #expect(unnamed == .unsupportedVersion(found: 4, supported: [1, 2, 3], needs: nil), "\(text)")
            #expect(unnamed?.description == unnamedMessage(format: 4), "\(text)")
        }
        #expect(
            jsonRefusal(#"{"format": 0, "needs": "0.4.0"}"#)
                == .unsupportedVersion(found: 0, supported: [1, 2, 3], needs: nil))
    }

    // MARK: Releases

    @Test func thisReleaseReadsTheFormatItWritesAndOlderBuildsWouldShowIt() throws {
        let release = try #require(numbers(ConcordRelease.current), "\(ConcordRelease.current) is not x.y.z")
        let needs = try #require(numbers(ChangesetFormat.writtenNeeds))
        #expect(release.count == 3)
        #expect(!release.lexicographicallyPrecedes(needs), "this release is older than the format it writes needs")
        #expect(ChangesetFormat.releaseName(Array(ConcordRelease.current.utf8)) == ConcordRelease.current)
        #expect(ChangesetFormat.releaseName(Array(ChangesetFormat.writtenNeeds.utf8)) == ChangesetFormat.writtenNeeds)
        // Every format this build reads is one it knows how to read, and it writes the newest.
        #expect(ChangesetFormat.supportedVersions == Array(1...Changeset.formatVersion))
        #expect(ChangesetFormat.needs.keys.sorted() == Array(2...Changeset.formatVersion))
    }
}
