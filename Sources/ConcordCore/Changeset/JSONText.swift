/// A minimal JSON reader and writer that keep byte offsets and produce byte-identical output.
///
/// The changeset's JSON form must be deterministic (sorted keys, fixed
/// layout), keep 64-bit integers exact, and report errors at a byte offset;
/// Foundation's `JSONSerialization` guarantees none of these, so this small
/// implementation of RFC 8259 does it instead. Only the changeset JSON code
/// uses it.
///
/// ```swift
/// let value = try JSONText.parse(Array(#"{"a": [1, "x"]}"#.utf8))
/// JSONText.write(.object([("a", .number("1"))]))   // bytes of "{\n  \"a\": 1\n}"
/// ```
enum JSONText {
    /// A JSON value to write. Numbers are already-formatted text; object keys are sorted on output.
    indirect enum Value {
        case null
        case number(String)
        case string(String)
        case array([Value])
        case object([(String, Value)])
    }

    /// A parsed JSON value and the offset of its first byte.
    struct Node {
        indirect enum Kind {
            case null
            case bool(Bool)
            /// The number's text, checked against the JSON grammar.
            case number(String)
            case string(String)
            case array([Node])
            /// Members in document order, each with the offset of its key; duplicates are kept.
            case object([(key: String, keyOffset: Int, value: Node)])
        }

        var kind: Kind
        var offset: Int

        /// "a number", "an object", ... for messages.
        var typeName: String {
            switch kind {
            case .null: "null"
            case .bool: "a boolean"
            case .number: "a number"
            case .string: "a string"
            case .array: "an array"
            case .object: "an object"
            }
        }
    }

    static let maxDepth = 32

    // MARK: Writing

    /// Pretty-printed UTF-8: two-space indents, `"key": value`, keys in UTF-8 byte order, a final newline.
    static func write(_ value: Value) -> [UInt8] {
        var out: [UInt8] = []
        write(value, indent: 0, to: &out)
        out.append(UInt8(ascii: "\n"))
        return out
    }

    private static func write(_ value: Value, indent: Int, to out: inout [UInt8]) {
        switch value {
        case .null:
            out += "null".utf8
        case .number(let text):
            out += text.utf8
        case .string(let text):
            writeString(text, to: &out)
        case .array(let items):
            guard !items.isEmpty else { return out += "[]".utf8 }
            out.append(UInt8(ascii: "["))
            for (k, item) in items.enumerated() {
                out += (k == 0 ? "\n" : ",\n").utf8
                out += repeatElement(UInt8(ascii: " "), count: 2 * (indent + 1))
                write(item, indent: indent + 1, to: &out)
            }
            out.append(UInt8(ascii: "\n"))
            out += repeatElement(UInt8(ascii: " "), count: 2 * indent)
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else { return out += "{}".utf8 }
            out.append(UInt8(ascii: "{"))
            let sorted = members.map { (Array($0.0.utf8), $0.1) }.sorted { $0.0.lexicographicallyPrecedes($1.0) }
            for (k, (key, item)) in sorted.enumerated() {
                out += (k == 0 ? "\n" : ",\n").utf8
                out += repeatElement(UInt8(ascii: " "), count: 2 * (indent + 1))
                writeString(String(decoding: key, as: UTF8.self), to: &out)
                out += ": ".utf8
                write(item, indent: indent + 1, to: &out)
            }
            out.append(UInt8(ascii: "\n"))
            out += repeatElement(UInt8(ascii: " "), count: 2 * indent)
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func writeString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings (hex, base64, names) need no escape: copied whole, as a changeset's values can be
        // kilobytes long.
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out += text.utf8
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += #"\""#.utf8
            case UInt8(ascii: "\\"): out += #"\\"#.utf8
            case 0x0A: out += #"\n"#.utf8
            case 0x0D: out += #"\r"#.utf8
            case 0x09: out += #"\t"#.utf8
            case 0x08: out += #"\b"#.utf8
            case 0x0C: out += #"\f"#.utf8
            case 0..<0x20: out += (#"\u00"# + hex2(byte).lowercased()).utf8
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    // MARK: Parsing

    /// The byte a one-character escape (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`) stands for; `nil` for any other.
    ///
    /// The changeset reader and the union column's reader both decode JSON strings; this table is
    /// the part of it they share (they differ on lone surrogates, which a union keeps as SQLite does).
    static func unescaped(_ escape: UInt8) -> UInt8? {
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): escape
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
    }

    /// Parses one JSON value filling all of `bytes` (an optional UTF-8 byte-order mark and whitespace aside).
    ///
    /// Errors are ``ChangesetError``s: `.truncated` when the text ends early,
    /// `.malformed` with ``ChangesetError/Reason/invalidJSON(_:)`` otherwise,
    /// `.trailingBytes` when something follows the value.
    static func parse(_ bytes: [UInt8]) throws -> Node {
        var parser = Parser(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        let node = try parser.value(depth: 0)
        parser.skipWhitespace()
        if parser.index < bytes.count { throw ChangesetError.trailingBytes(offset: parser.index) }
        return node
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        func fail(_ detail: String, at offset: Int? = nil) -> ChangesetError {
            .malformed(offset: offset ?? index, field: "the JSON text", reason: .invalidJSON(detail))
        }

        func truncated() -> ChangesetError {
            .truncated(offset: bytes.count, field: "the JSON text")
        }

        mutating func peek() throws -> UInt8 {
            guard index < bytes.count else { throw truncated() }
            return bytes[index]
        }

        mutating func expect(_ literal: String) throws {
            for byte in literal.utf8 {
                guard index < bytes.count else { throw truncated() }
                guard bytes[index] == byte else { throw fail("expected '\(literal)'") }
                index += 1
            }
        }

        mutating func value(depth: Int) throws -> Node {
            skipWhitespace()
            let start = index
            switch try peek() {
            case UInt8(ascii: "{"):
                return try object(at: start, depth: depth)
            case UInt8(ascii: "["):
                return try array(at: start, depth: depth)
            case UInt8(ascii: "\""):
                return Node(kind: .string(try string()), offset: start)
            case UInt8(ascii: "t"):
                try expect("true")
                return Node(kind: .bool(true), offset: start)
            case UInt8(ascii: "f"):
                try expect("false")
                return Node(kind: .bool(false), offset: start)
            case UInt8(ascii: "n"):
                try expect("null")
                return Node(kind: .null, offset: start)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return Node(kind: .number(try number()), offset: start)
            default:
                throw fail("expected a value")
            }
        }

        /// Refuses a container opening at `start` that would nest deeper than `JSONText.maxDepth`.
        private func checkDepth(_ depth: Int, at start: Int) throws {
            guard depth < JSONText.maxDepth else {
                throw ChangesetError.malformed(
                    offset: start, field: "the JSON text", reason: .nestingTooDeep(limit: JSONText.maxDepth))
            }
        }

        /// The object whose `{` is at `start`, `depth` containers deep.
        private mutating func object(at start: Int, depth: Int) throws -> Node {
            try checkDepth(depth, at: start)
            index += 1
            var members: [(key: String, keyOffset: Int, value: Node)] = []
            skipWhitespace()
            if try peek() == UInt8(ascii: "}") {
                index += 1
                return Node(kind: .object(members), offset: start)
            }
            while true {
                skipWhitespace()
                let keyOffset = index
                guard try peek() == UInt8(ascii: "\"") else { throw fail("expected a string key") }
                let key = try string()
                skipWhitespace()
                guard try peek() == UInt8(ascii: ":") else { throw fail("expected ':' after a key") }
                index += 1
                members.append((key, keyOffset, try value(depth: depth + 1)))
                skipWhitespace()
                let next = try peek()
                index += 1
                if next == UInt8(ascii: "}") { return Node(kind: .object(members), offset: start) }
                guard next == UInt8(ascii: ",") else { throw fail("expected ',' or '}'", at: index - 1) }
            }
        }

        /// The array whose `[` is at `start`, `depth` containers deep.
        private mutating func array(at start: Int, depth: Int) throws -> Node {
            try checkDepth(depth, at: start)
            index += 1
            var items: [Node] = []
            skipWhitespace()
            if try peek() == UInt8(ascii: "]") {
                index += 1
                return Node(kind: .array(items), offset: start)
            }
            while true {
                items.append(try value(depth: depth + 1))
                skipWhitespace()
                let next = try peek()
                index += 1
                if next == UInt8(ascii: "]") { return Node(kind: .array(items), offset: start) }
                guard next == UInt8(ascii: ",") else { throw fail("expected ',' or ']'", at: index - 1) }
            }
        }

        /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
        mutating func number() throws -> String {
            let start = index
            func digits(_ parser: inout Parser) throws -> Int {
                let first = parser.index
                while parser.index < parser.bytes.count,
                    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(parser.bytes[parser.index])
                {
                    parser.index += 1
                }
                if parser.index == first {
                    _ = try parser.peek()
                    throw parser.fail("expected a digit")
                }
                return parser.index - first
            }
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            let intStart = index
            if try digits(&self) > 1 && bytes[intStart] == UInt8(ascii: "0") {
                throw fail("a number cannot start with 0", at: intStart)
            }
            if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
                index += 1
                _ = try digits(&self)
            }
            if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
                index += 1
                if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
                    index += 1
                }
                _ = try digits(&self)
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        mutating func string() throws -> String {
            let start = index
            index += 1
            // A string without escapes (the usual case) is read as one slice of the bytes.
            var end = index
            while end < bytes.count, bytes[end] >= 0x20, bytes[end] != UInt8(ascii: "\""),
                bytes[end] != UInt8(ascii: "\\")
            {
                end += 1
            }
            if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
                guard let text = String(validating: bytes[index..<end], as: UTF8.self) else {
                    throw ChangesetError.malformed(offset: start, field: "the JSON text", reason: .invalidUTF8)
                }
                index = end + 1
                return text
            }
            var out: [UInt8] = []
            while true {
                let byte = try peek()
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    guard let text = String(validating: out, as: UTF8.self) else {
                        throw ChangesetError.malformed(offset: start, field: "the JSON text", reason: .invalidUTF8)
                    }
                    return text
                case UInt8(ascii: "\\"):
                    index += 1
                    let escape = try peek()
                    index += 1
                    if let byte = JSONText.unescaped(escape) {
                        out.append(byte)
                        continue
                    }
                    switch escape {
                    case UInt8(ascii: "u"):
                        out += String(Character(try unicodeEscape())).utf8
                    default:
                        throw fail("unknown escape '\\\(Character(Unicode.Scalar(escape)))'", at: index - 2)
                    }
                case 0..<0x20:
                    throw fail("a control character must be escaped inside a string")
                default:
                    out.append(byte)
                    index += 1
                }
            }
        }

        /// The scalar of a `\uXXXX` escape whose `\u` was just read, a surrogate pair taken together.
        private mutating func unicodeEscape() throws -> Unicode.Scalar {
            let escapeOffset = index - 2
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar) {
                let pair = bytes[index...].prefix(2)
                guard pair.elementsEqual("\\u".utf8) else {
                    if Array("\\u".utf8).starts(with: pair) { throw truncated() }
                    throw fail("a high surrogate escape must be followed by a low one", at: escapeOffset)
                }
                index += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else {
                    throw fail("a high surrogate escape must be followed by a low one", at: escapeOffset)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw fail("a low surrogate escape without a high one", at: escapeOffset)
            }
            return Unicode.Scalar(scalar)!
        }

        mutating func hex4() throws -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let digit = Hex.value(of: try peek()) else { throw fail("expected four hex digits after \\u") }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }
    }
}
