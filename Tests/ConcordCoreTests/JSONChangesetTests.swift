import ConcordTestTraits
import Foundation
import Testing

@testable import ConcordCore

private let nodeHex = "000102030405060708090a0b0c0d0e0f"
private let sourceNode = NodeID(hex: nodeHex)!

private func stamp(_ hlc: UInt64) -> Stamp { Stamp(hlc: HLCTimestamp(rawValue: hlc), node: sourceNode) }

private func jsonStamp(_ hlc: String) -> String { #"{"hlc": \#(hlc), "node": "\#(nodeHex)"}"# }

private let postsTable =
    #"{"name": "posts", "key": "id", "columns": ["title", "likes"], "merges": ["lww", "counter"], "policy": "column"}"#

/// A row of `posts`; each part can be replaced by hand-written JSON.
private func postRow(
    key: String = #"{"text": "p1"}"#,
    liveness: String = #"{"causalLength": 1, "stamp": \#(jsonStamp("65536"))}"#,
    title: String = #"{"stamp": \#(jsonStamp("65537")), "value": {"text": "Hello"}}"#,
    contributions: String = #"[{"causalLength": 1, "amount": 2, "stamp": \#(jsonStamp("65538"))}]"#
) -> String {
    #"{"table": "posts", "key": \#(key), "liveness": \#(liveness), "columns": [\#(title), "#
        + #"{"stamp": \#(jsonStamp("65538")), "value": {"integer": 2}, "contributions": \#(contributions)}]}"#
}

/// A changeset in hand-written JSON, format 1 (no `"needs"`) unless told; each part can be replaced.
private func changesetJSON(format: String = "1", tables: String = "[\(postsTable)]", rows: String? = nil) -> String {
    #"{"format": \#(format), "source": "\#(nodeHex)", "since": 0, "upTo": 1, "tables": \#(tables), "#
        + #""rows": \#(rows ?? "[\(postRow())]")}"#
}

/// The error reading `json` throws, or `nil` (recorded) if it throws none or another type.
private func refusal(_ json: String) -> ChangesetError? { refusal(Array(json.utf8)) }

private func refusal(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> ChangesetError? {
    do {
        let changes = try Changeset(json: bytes)
        Issue.record("expected a refusal, read \(changes.rows.count) rows", sourceLocation: sourceLocation)
    } catch let error as ChangesetError {
        return error
    } catch {
        Issue.record("expected a ChangesetError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Expects `json` to be refused as malformed in `field` for `reason`, at the first byte of `marker`
/// (which must occur in it exactly once) plus `plus`.
private func expectMalformed(
    _ json: String, at marker: String, plus: Int = 0, _ field: String, _ reason: ChangesetError.Reason,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let bytes = Array(json.utf8)
    let found = bytes.ranges(of: Array(marker.utf8))
    guard found.count == 1 else {
        Issue.record("\(marker) occurs \(found.count) times in \(json)", sourceLocation: sourceLocation)
        return
    }
    #expect(
        refusal(bytes, sourceLocation: sourceLocation)
            == .malformed(offset: found[0].lowerBound + plus, field: field, reason: reason),
        sourceLocation: sourceLocation)
}

private func invalidJSON(_ detail: String) -> ChangesetError.Reason { .invalidJSON(detail) }

private let valueKinds = "null or an object with one key: integer, real, text, textHex or blob"

/// The JSON form carries every value bit-exact and refuses every malformed shape at its byte offset.
@Suite("Changeset JSON form", .tags(.core))
struct JSONChangesetTests {
    @Test func theHandWrittenFixtureReads() throws {
        let changes = try Changeset(json: Array(changesetJSON().utf8))
        #expect(
            changes.tables == [
                TableSchema(
                    name: "posts", key: "id", columns: ["title", "likes"], policy: .column, merges: [.lww, .counter])
            ])
        #expect(
            changes.rows == [
                RowChange(
                    table: "posts", key: "p1",
                    registers: RowRegisters(
                        liveness: Liveness(causalLength: 1, stamp: stamp(65536)),
                        columns: [
                            ColumnRegister(value: "Hello", stamp: stamp(65537)),
                            ColumnRegister(
                                value: 2, stamp: stamp(65538),
                                contributions: [CounterContribution(causalLength: 1, amount: 2, stamp: stamp(65538))]),
                        ]))
            ])
    }

    /// Values no JSON number or string spells directly: each must come back with the same type and bits.
    @Test func edgeValuesRoundTripBitExact() throws {
        let values: [SQLiteValue] = [
            .null, .integer(.min), .integer(.max), .integer(0),
            .real(-0.0), .real(0.0), .real(.infinity), .real(-.infinity), .real(.leastNonzeroMagnitude),
            .real(-.greatestFiniteMagnitude), .real(0.1), .real(1e16), .real(9_007_199_254_740_992),
            .text(""), .text("\u{0}\u{1}\u{8}\u{C}\t\n\r\"\\/\u{1F}\u{7F}"), .text("caf\u{E9} \u{1F600}"),
            .text(SQLiteText(bytes: [0x61, 0xFF, 0x62])), .text(SQLiteText(bytes: [0xED, 0xA0, 0x80])),
            .text(SQLiteText(bytes: [0xC0, 0x80])), .text("61ff62"),
            .blob([]), .blob([0x00, 0xFF]),
        ]
        let keys: [SQLiteValue] = [
            "k", .text(SQLiteText(bytes: [0xFF])), .blob([]), .integer(.min), .real(-0.0), .real(-.infinity),
        ]
        let rows =
            values.enumerated().map { i, value in
                RowChange(
                    table: "values", key: .integer(Int64(i)),
                    registers: RowRegisters(
                        liveness: Liveness(causalLength: 1, stamp: stamp(1)),
                        columns: [ColumnRegister(value: value, stamp: stamp(2))]))
            }
            + keys.map { key in
                RowChange(
                    table: "values", key: key,
                    registers: RowRegisters(liveness: Liveness(causalLength: 2, stamp: stamp(3)), columns: [nil]))
            }
        let changes = Changeset(
            source: sourceNode, since: 0, upTo: .max,
            tables: [TableSchema(name: "values", key: "id", columns: ["v"], policy: .column)], rows: rows)
        let json = changes.jsonData()
        #expect(try Changeset(json: json) == changes)
        #expect(try Changeset(decoding: changes.encoded()) == changes)
        #expect(try Changeset.decode(anyFormat: json) == changes)

        // How each travels in the text.
        let text = String(decoding: json, as: UTF8.self)
        for spelled in [
            #""integer": -9223372036854775808"#, #""real": -0.0"#, #""real": "-Infinity""#, #""real": 5e-324"#,
            #""real": 1e+16"#, #""textHex": "61ff62""#, #""textHex": "eda080""#, #""textHex": "c080""#,
            #""text": "61ff62""#, #""text": "\u0000\u0001\b\f\t\n\r\"\\/\u001f"#, #""blob": """#, #""blob": "00ff""#,
            #""textHex": "ff""#, #""upTo": 9223372036854775807"#,
        ] {
            #expect(text.contains(spelled), "\(spelled)")
        }
    }

    @Test func theRootMustBeAChangesetObject() {
        #expect(
            refusal("[1]")
                == .malformed(
                    offset: 0, field: "the changeset", reason: .wrongType(expected: "an object", found: "an array")))
        #expect(
            refusal("\n  \"x\"")
                == .malformed(
                    offset: 3, field: "the changeset", reason: .wrongType(expected: "an object", found: "a string")))
        #expect(refusal("{}") == .malformed(offset: 0, field: "the changeset", reason: .missingKey("format")))
        #expect(refusal("") == .truncated(offset: 0, field: "the JSON text"))
        expectMalformed(
            changesetJSON(format: "true"), at: "true", "format", .wrongType(expected: "an integer", found: "a boolean"))
        expectMalformed(
            changesetJSON(format: "false"), at: "false", "format",
            .wrongType(expected: "an integer", found: "a boolean"))
        expectMalformed(changesetJSON(format: "1.0"), at: "1.0", "format", .numberOutOfRange("1.0"))
        #expect(refusal(changesetJSON(format: "4")) == .unsupportedVersion(found: 4, supported: [1, 2, 3], needs: nil))
    }

    @Test func tablesAreRefusedWhereTheyBreakARule() {
        expectMalformed(
            changesetJSON(tables: "{}"), at: "{}", "tables", .wrongType(expected: "an array", found: "an object"))
        expectMalformed(
            changesetJSON(tables: "[7]"), at: "[7]", plus: 1, "tables[0]",
            .wrongType(expected: "an object", found: "a number"))
        let twice = postsTable.replacingOccurrences(of: #""posts""#, with: #""Posts""#)
        expectMalformed(
            changesetJSON(tables: "[\(postsTable), \(twice)]"), at: #""Posts""#, "tables[1].name",
            .duplicateTable("Posts"))
        let nameless = postsTable.replacingOccurrences(of: #""name": "posts""#, with: #""name": 5"#)
        expectMalformed(
            changesetJSON(tables: "[\(nameless)]"), at: #""name": 5"#, plus: 8, "tables[0].name",
            .wrongType(expected: "a string", found: "a number"))
    }

    @Test func aTableMayHaveAsManyColumnsAsSQLiteAndNoMore() throws {
        func table(columns: Int) -> String {
            let names = (0..<columns).map { "\"c\($0)\"" }.joined(separator: ",")
            let merges = [String](repeating: #""lww""#, count: columns).joined(separator: ",")
            return #"[{"name": "wide", "key": "id", "columns": [\#(names)], "merges": [\#(merges)], "policy": "row"}]"#
        }
        let widest = try Changeset(json: Array(changesetJSON(tables: table(columns: 32_767), rows: "[]").utf8))
        #expect(widest.tables[0].columns.count == 32_767 && widest.tables[0].columns.last == "c32766")
        expectMalformed(
            changesetJSON(tables: table(columns: 32_768), rows: "[]"), at: #""columns": ["#, plus: 11,
            "tables[0].columns", .countTooLarge(declared: 32_768, limit: 32_767))
    }

    @Test func valuesMustBeNullOrOneKnownKind() throws {
        func withKey(_ key: String) -> String { changesetJSON(rows: "[\(postRow(key: key))]") }
        expectMalformed(
            withKey("5"), at: #""key": 5"#, plus: 7, "rows[0].key", .wrongType(expected: valueKinds, found: "a number"))
        expectMalformed(
            withKey("{}"), at: #""key": {}"#, plus: 7, "rows[0].key",
            .wrongType(expected: valueKinds, found: "an object with 0 keys"))
        expectMalformed(withKey("null"), at: #""key": null"#, plus: 7, "rows[0].key", .nullKey)
        expectMalformed(withKey(#"{"textHex": "6"}"#), at: #""6""#, "rows[0].key.textHex", .invalidHex)
        expectMalformed(withKey(#"{"textHex": "zz"}"#), at: #""zz""#, "rows[0].key.textHex", .invalidHex)
        expectMalformed(
            withKey(#"{"textHex": 61}"#), at: "61}", "rows[0].key.textHex",
            .wrongType(expected: "a string", found: "a number"))
        expectMalformed(
            withKey(#"{"blob": ["00"]}"#), at: #"["00"]"#, "rows[0].key.blob",
            .wrongType(expected: "a string", found: "an array"))
        let read = try Changeset(json: Array(withKey(#"{"textHex": "61FF62"}"#).utf8))
        #expect(read.rows[0].key == .text(SQLiteText(bytes: [0x61, 0xFF, 0x62])), "either case of hex digits")

        func withTitle(_ value: String) -> String {
            changesetJSON(rows: "[\(postRow(title: #"{"stamp": \#(jsonStamp("65537")), "value": \#(value)}"#))]")
        }
        let realKinds = "a number, \"Infinity\" or \"-Infinity\""
        expectMalformed(
            withTitle(#"{"real": true}"#), at: "true", "rows[0].columns[0].value.real",
            .wrongType(expected: realKinds, found: "a boolean"))
        expectMalformed(
            withTitle(#"{"real": "inf"}"#), at: #""inf""#, "rows[0].columns[0].value.real",
            .wrongType(expected: realKinds, found: "a string"))
        expectMalformed(
            withTitle(#"{"real": null}"#), at: #""real": null"#, plus: 8, "rows[0].columns[0].value.real",
            .wrongType(expected: realKinds, found: "null"))
        let infinite = try Changeset(json: Array(withTitle(#"{"real": "Infinity"}"#).utf8))
        #expect(infinite.rows[0].registers.columns[0]?.value == .real(.infinity))
        let negativeZero = try Changeset(json: Array(withTitle(#"{"real": -0}"#).utf8))
        #expect(negativeZero.rows[0].registers.columns[0]?.value == .real(-0.0), "an integral real stays a real")
    }

    @Test func livenessAndStampsAreCheckedAgainstTheFormatsLimits() {
        func withLiveness(_ liveness: String) -> String { changesetJSON(rows: "[\(postRow(liveness: liveness))]") }
        expectMalformed(
            withLiveness(#"{"causalLength": 4611686018427387905, "stamp": \#(jsonStamp("1"))}"#),
            at: "4611686018427387905", "rows[0].liveness.causalLength", .causalLengthTooLarge(4_611_686_018_427_387_905)
        )
        expectMalformed(
            withLiveness(#"{"causalLength": 1, "stamp": null}"#), at: "null", "rows[0].liveness.stamp",
            .liveWithoutStamp(causalLength: 1))
        expectMalformed(
            withLiveness(#"{"causalLength": 1, "stamp": \#(jsonStamp("9223372036854775808"))}"#),
            at: "9223372036854775808", "rows[0].liveness.stamp.hlc", .clockOutOfRange(9_223_372_036_854_775_808))
        expectMalformed(
            withLiveness(#"{"causalLength": 1, "stamp": {"hlc": 1, "node": "00"}}"#), at: #""00""#,
            "rows[0].liveness.stamp.node", .invalidNodeID("00"))
        // The limits themselves are accepted: the largest causal length, the largest clock, and a row never written.
        for liveness in [
            #"{"causalLength": 4611686018427387904, "stamp": \#(jsonStamp("9223372036854775807"))}"#,
            #"{"causalLength": 0, "stamp": null}"#,
        ] {
            #expect(throws: Never.self) { _ = try Changeset(json: Array(withLiveness(liveness).utf8)) }
        }

        func withContributions(_ list: String) -> String { changesetJSON(rows: "[\(postRow(contributions: list))]") }
        expectMalformed(
            withContributions(#"[{"causalLength": 4611686018427387905, "amount": 1, "stamp": \#(jsonStamp("1"))}]"#),
            at: "4611686018427387905", "rows[0].columns[1].contributions[0].causalLength",
            .causalLengthTooLarge(4_611_686_018_427_387_905))
        expectMalformed(
            withContributions("{}"), at: #""contributions": {}"#, plus: 17, "rows[0].columns[1].contributions",
            .wrongType(expected: "an array", found: "an object"))
        expectMalformed(
            withContributions(#"[{"causalLength": 1, "amount": 9223372036854775808, "stamp": \#(jsonStamp("1"))}]"#),
            at: "9223372036854775808", "rows[0].columns[1].contributions[0].amount",
            .numberOutOfRange("9223372036854775808"))
    }

    @Test func syntaxErrorsNameTheOffendingByte() {
        let base = changesetJSON()
        func edit(_ old: String, _ new: String) -> String {
            #expect(base.contains(old), "the fixture lacks \(old)")
            return base.replacingOccurrences(of: old, with: new)
        }
        let text = "the JSON text"
        expectMalformed(edit("Hello", #"He\xllo"#), at: #"\x"#, text, invalidJSON(#"unknown escape '\x'"#))
        expectMalformed(
            edit("Hello", #"\udc00"#), at: #"\udc00"#, text, invalidJSON("a low surrogate escape without a high one"))
        expectMalformed(
            edit("Hello", #"\ud83d\u0041"#), at: #"\ud83d"#, text,
            invalidJSON("a high surrogate escape must be followed by a low one"))
        expectMalformed(edit("Hello", #"\u12G4"#), at: "G", text, invalidJSON(#"expected four hex digits after \u"#))
        expectMalformed(edit(#""since": 0"#, #""since": -x"#), at: "-x", plus: 1, text, invalidJSON("expected a digit"))
        expectMalformed(
            edit(#""since": 0"#, #""since": 1.e5"#), at: ".e5", plus: 1, text, invalidJSON("expected a digit"))
        expectMalformed(
            edit(#""since": 0"#, #""since": 1e,"#), at: "1e,", plus: 2, text, invalidJSON("expected a digit"))
        expectMalformed(edit(#""since": 0"#, #""since": @"#), at: "@", text, invalidJSON("expected a value"))
        expectMalformed(
            edit(#""since": 0"#, #""since": nul"#), at: "nul,", plus: 3, text, invalidJSON("expected 'null'"))
        expectMalformed(edit(#""format": 1"#, #""format": trUe"#), at: "U", text, invalidJSON("expected 'true'"))
        expectMalformed(
            edit(#""format": 1"#, #""format": fals"#), at: "fals,", plus: 4, text, invalidJSON("expected 'false'"))
        expectMalformed(
            edit(#""since": 0"#, #""since" 0"#), at: #"" 0"#, plus: 2, text, invalidJSON("expected ':' after a key"))
        expectMalformed(
            edit(#""upTo": 1,"#, #""upTo": 1"#), at: #"1 "tables""#, plus: 2, text, invalidJSON("expected ',' or '}'"))
        expectMalformed(
            edit(#"["title", "likes"]"#, #"["title" "likes"]"#), at: #" "likes""#, plus: 1, text,
            invalidJSON("expected ',' or ']'"))
        // Truncated inside a literal or an escape: the text ends too soon, it is not wrong.
        #expect(refusal(#"{"format": tr"#) == .truncated(offset: 13, field: text))
        #expect(refusal(#"{"format": "\ud83d\"#) == .truncated(offset: 19, field: text))
    }

    @Test func anyFormatTellsBinaryFromJSONFromNeither() throws {
        func error(_ bytes: [UInt8]) -> ChangesetError? {
            do {
                _ = try Changeset.decode(anyFormat: bytes)
            } catch let error as ChangesetError {
                return error
            } catch {}
            return nil
        }
        #expect(error([]) == .notAChangeset(prefix: []))
        #expect(
            error([]).map(String.init(describing:))
                == "This is not a Concord changeset: it is empty, not the magic \"CNCD\" of a binary changeset nor the '{' "
                + "of a JSON one. Check that the right file was passed; if it was, export the changeset again.")
        let text = Array("hello, world".utf8)
        #expect(error(text) == .notAChangeset(prefix: Array(text.prefix(8))))
        #expect(
            error(text)?.description.contains("it starts with bytes 68 65 6C 6C 6F 2C 20 77, not the magic") == true)
        #expect(error([0xEF, 0xBB, 0xBF]) == .notAChangeset(prefix: [0xEF, 0xBB, 0xBF]), "a byte-order mark alone")
        #expect(error(Array(" \r\n\t[]".utf8)) == .notAChangeset(prefix: Array(" \r\n\t[]".utf8)))
        // A prefix of the magic is a binary changeset cut short; whitespace and then '{' is JSON.
        #expect(error(Array("CN".utf8)) == .truncated(offset: 2, field: "the magic \"CNCD\""))
        #expect(error(Array(" \r\n\t{".utf8)) == .truncated(offset: 5, field: "the JSON text"))
        let json = Array(changesetJSON().utf8)
        #expect(try Changeset.decode(anyFormat: [0xEF, 0xBB, 0xBF] + json) == Changeset(json: json))
    }
}
