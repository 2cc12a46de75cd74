import ConcordCore

/// The numbers, names, values and JSON fragments ``ChangesetMutator`` writes into changesets.
///
/// Decoders fail at their edges: a length one past the data, a count that
/// overflows when converted to `Int`, a clock whose next tick wraps, a name
/// SQLite treats specially, a string JSON can spell but UTF-8 cannot hold.
/// Drawing replacements from short lists of such edges, rather than
/// uniformly, makes a few thousand mutants hit every one of them.
///
/// ```swift
/// let value = HostileValues.varints[2]   // 2
/// ```
enum HostileValues {
    /// Raw varint values: small, around every power of two that a conversion or a limit cares about, and the top.
    static let varints: [UInt64] = [
        0, 1, 2, 3, 127, 128, 255, 16_383, 16_384, 32_767, 32_768,
        UInt64(Int32.max), UInt64(Int32.max) + 1, UInt64(UInt32.max), 1 << 32,
        1_000_000_000, 1_000_000_001, 1 << 53,
        UInt64(Int64.max) - 1, UInt64(Int64.max), 1 << 63, (1 << 63) + 1,
        UInt64.max - 1, UInt64.max,
    ]

    /// Signed extremes for integers, counter amounts, since and upTo.
    static let int64s: [Int64] = [
        0, 1, -1, 2, -2, Int64(Int32.max), Int64(Int32.min), 1 << 53, -(1 << 53),
        Int64.max - 1, Int64.max, Int64.min, Int64.min + 1,
    ]

    /// Causal lengths: unknown, alive, dead, and the top of the range where `+ 1` overflows.
    static let causalLengths: [UInt64] = [
        0, 1, 2, 3, 4, 1 << 32, UInt64(Int64.max) - 1, UInt64(Int64.max), 1 << 63, (1 << 63) + 1,
        UInt64.max - 2, UInt64.max - 1, UInt64.max,
    ]

    /// Clock readings: zero, the top, the sign bit, and readings just around `near` (a real stamp):
    /// the next and previous counter, a full counter, and the maximum drift (5 minutes) and just past it.
    static func clocks(near: UInt64) -> [UInt64] {
        let drift: UInt64 = 300_000 << 16
        return [
            0, 1, UInt64.max, UInt64.max - 1, 1 << 63, (1 << 63) - 1, (1 << 63) + 1,
            ((1 << 48) - 1) << 16 | 0xFFFF, near &+ 1, near &- 1, near | 0xFFFF, near & ~0xFFFF,
            near &+ (1 << 16), near &+ drift, near &+ drift &+ (1 << 16), near &+ drift &+ (2 << 16), near >> 1,
        ]
    }

    /// Names for tables, key columns, columns and merges, as raw bytes (some not UTF-8, some not identifiers).
    static let names: [[UInt8]] = {
        var names: [[UInt8]] = [
            [], [0], Array("a\u{0}b".utf8), Array("'".utf8), Array("\"".utf8), Array("]".utf8), Array("`".utf8),
            Array("a'); DROP TABLE lists; --".utf8), Array("\"x\"\"y\"".utf8),
            Array("lww".utf8), Array("max".utf8), Array("min".utf8), Array("counter".utf8), Array("union".utf8),
            Array("LWW".utf8), Array("Counter".utf8), Array("custom".utf8),
            Array("rowid".utf8), Array("_rowid_".utf8), Array("oid".utf8), Array("main".utf8), Array("temp".utf8),
            Array("sqlite_master".utf8), Array("sqlite_schema".utf8), Array("sqlite_sequence".utf8),
            Array("_concord_state".utf8), Array("_concord_tables".utf8), Array("_concord_nodes".utf8),
            Array("lists".utf8), Array("LISTS".utf8), Array("items".utf8), Array("notes".utf8), Array("folders".utf8),
            Array("id".utf8), Array("ID".utf8), Array("list".utf8), Array("likes".utf8), Array("tags".utf8),
            Array("e\u{301}".utf8), Array("\u{E9}".utf8), Array(" ".utf8), Array("\t".utf8),
            [0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x61, 0xFE],
        ]
        names.append(Array(repeating: UInt8(ascii: "n"), count: 4_096))
        names.append(Array(repeating: UInt8(ascii: "n"), count: 70_000))
        return names
    }()

    /// Values for keys and columns: every type, its edges, text that is not UTF-8 or holds NUL, JSON that is not
    /// a union, and a few large ones.
    static let values: [SQLiteValue] = [
        .null, .integer(0), .integer(1), .integer(-1), .integer(.max), .integer(.min),
        .real(0), .real(-0.0), .real(.infinity), .real(-.infinity), .real(.greatestFiniteMagnitude),
        .real(.leastNonzeroMagnitude), .real(1), .real(0.5),
        .text(""), .text(SQLiteText(bytes: [0])), .text(SQLiteText(bytes: [0x61, 0x00, 0x62])),
        .text(SQLiteText(bytes: [0xFF, 0xFE])), .text(SQLiteText(bytes: [0xED, 0xA0, 0x80])), .text("e\u{301}"),
        .text("\u{E9}"),
        .text("'"), .text("[]"), .text("[1,2"), .text("[\"b\",\"a\",\"a\"]"), .text("[1,\"1\",1.5,null,[]]"),
        .text("{}"),
        .text("[1e999]"), .text(String(repeating: "[", count: 2_000)), .text("[\"\\u0000\"]"),
        .blob([]), .blob([0]), .blob(Array(repeating: 0xAB, count: 16)),
        .text(SQLiteText(bytes: Array(repeating: UInt8(ascii: "t"), count: 100_000))),
        .blob(Array(repeating: 0xCD, count: 200_000)),
    ]

    /// JSON number texts: exact edges of UInt64 and Int64, one past them, and forms that are not integers.
    static let jsonNumbers: [String] = [
        "0", "1", "-1", "-0", "2", "18446744073709551615", "18446744073709551614", "18446744073709551616",
        "9223372036854775807", "9223372036854775808", "9223372036854775809", "-9223372036854775808",
        "-9223372036854775809", "-18446744073709551615", "2147483647", "2147483648", "4294967296",
        "1000000000", "1000000001", "99999999999999999999999999999999", "1.0", "1e3", "1E400", "-1e-400",
        "0.5", "1.7976931348623157e308", "5e-324", "-0.0", "01", "1e", "-", "+1", ".5", "1.", "0x10",
    ]

    /// JSON string bodies, as written between the quotes: escapes of NUL and lone surrogates, quotes,
    /// merge and policy names, special floats, table names, and malformed escapes.
    static let jsonStrings: [String] = [
        "", "\\u0000", "a\\u0000b", "\\ud800", "\\udc00", "\\ud800\\ud800", "\\udbff\\udfff", "\\ud83d\\ude00",
        "\\ud800x", "\\\"", "'", "\\\\", "\\/", "lww", "max", "min", "counter", "union", "LWW", "column", "row",
        "Row", "Infinity", "-Infinity", "NaN", "_concord_tables", "sqlite_master", "lists", "LISTS", "items", "id",
        "e\\u0301", "\\u00e9", "\\x41", "\\u12", "\\u12G4", "\\", "\u{1}", "00", "0", "zz", "abc",
        "00000000000000000000000000000000", "ffffffffffffffffffffffffffffffff", "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF",
        "0000000000000000000000000000000", "000000000000000000000000000000000",
        "g0000000000000000000000000000000",
    ]

    /// Bytes that carry meaning in JSON, for byte-level edits of JSON text.
    static let jsonBytes: [UInt8] =
        Array("{}[]\",:\\0123456789-+.eE tfn \n".utf8) + [0x00, 0x01, 0x7F, 0x80, 0xFF, 0xC3]
}
