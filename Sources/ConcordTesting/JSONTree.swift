/// A JSON document held as a tree whose strings and numbers keep their exact source text.
///
/// Tree-level mutations of a changeset's JSON form need to write what a
/// careful JSON library never would: a lone surrogate escape, `\u0000` in a
/// name, an integer one past `UInt64.max`, a key twice in one object. Keeping
/// string bodies as their escaped source text and numbers as their digits
/// lets the mutator write any of those back byte for byte; Foundation's
/// `JSONSerialization` would reject, round or deduplicate them.
///
/// ```swift
/// var tree = try JSONTree.parse(Array(#"{"a": [1, "x"]}"#.utf8))
/// tree = .object([JSONTree.Member(key: Array("a".utf8), value: .number("18446744073709551616"))])
/// tree.bytes   // {"a":18446744073709551616}
/// ```
indirect enum JSONTree: Hashable, Sendable {
    case null
    case bool(Bool)
    /// A number's text, as written (not necessarily valid JSON once mutated).
    case number(String)
    /// A string's body between the quotes, escapes kept as written.
    case string([UInt8])
    case array([JSONTree])
    /// Members in order; a key may appear twice.
    case object([Member])

    /// One member of an object: its key's escaped body and its value.
    struct Member: Hashable, Sendable {
        var key: [UInt8]
        var value: JSONTree
    }

    /// The kind of node, for choosing what to mutate.
    enum Kind: Hashable, Sendable { case null, bool, number, string, array, object }

    var kind: Kind {
        switch self {
        case .null: .null
        case .bool: .bool
        case .number: .number
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }

    /// A way down the tree: element or member indices.
    typealias Path = [Int]

    /// Every node with its path and the key of the member it is (or is in, for array elements), in document order.
    func nodes() -> [(path: Path, key: [UInt8]?, node: JSONTree)] {
        var result: [(path: Path, key: [UInt8]?, node: JSONTree)] = []
        func visit(_ node: JSONTree, _ path: Path, _ key: [UInt8]?) {
            result.append((path, key, node))
            switch node {
            case .array(let items):
                for (i, item) in items.enumerated() { visit(item, path + [i], key) }
            case .object(let members):
                for (i, member) in members.enumerated() { visit(member.value, path + [i], member.key) }
            default:
                break
            }
        }
        visit(self, [], nil)
        return result
    }

    /// Replaces the node at `path` with what `change` makes of it.
    mutating func update(at path: Path, _ change: (inout JSONTree) -> Void) {
        guard let first = path.first else { return change(&self) }
        let rest = Array(path.dropFirst())
        switch self {
        case .array(var items) where items.indices.contains(first):
            items[first].update(at: rest, change)
            self = .array(items)
        case .object(var members) where members.indices.contains(first):
            members[first].value.update(at: rest, change)
            self = .object(members)
        default:
            break
        }
    }

    // MARK: Writing

    /// Compact JSON text.
    var bytes: [UInt8] {
        var out: [UInt8] = []
        write(to: &out)
        return out
    }

    private func write(to out: inout [UInt8]) {
        switch self {
        case .null: out += "null".utf8
        case .bool(let value): out += (value ? "true" : "false").utf8
        case .number(let text): out += text.utf8
        case .string(let body):
            out.append(UInt8(ascii: "\""))
            out += body
            out.append(UInt8(ascii: "\""))
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, member) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                out.append(UInt8(ascii: "\""))
                out += member.key
                out += "\":".utf8
                member.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    // MARK: Parsing

    /// Why text could not be read as a tree.
    struct ParseError: Error {}

    /// Reads JSON text leniently (any number-like run is a number, escapes are not checked).
    static func parse(_ bytes: [UInt8]) throws(ParseError) -> JSONTree {
        var parser = Parser(bytes: bytes)
        let tree = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw ParseError() }
        return tree
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func value(depth: Int) throws(ParseError) -> JSONTree {
            skipWhitespace()
            guard index < bytes.count, depth < 200 else { throw ParseError() }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                return try object(depth: depth)
            case UInt8(ascii: "["):
                return try array(depth: depth)
            case UInt8(ascii: "\""):
                return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            default:
                let start = index
                while index < bytes.count, Array("+-.eE0123456789".utf8).contains(bytes[index]) { index += 1 }
                guard index > start else { throw ParseError() }
                return .number(String(decoding: bytes[start..<index], as: UTF8.self))
            }
        }

        /// The object whose `{` is at `index`, `depth` containers deep.
        private mutating func object(depth: Int) throws(ParseError) -> JSONTree {
            index += 1
            var members: [Member] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                let key = try string()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw ParseError() }
                index += 1
                members.append(Member(key: key, value: try value(depth: depth + 1)))
                skipWhitespace()
                guard index < bytes.count else { throw ParseError() }
                index += 1
                if bytes[index - 1] == UInt8(ascii: "}") { return .object(members) }
                guard bytes[index - 1] == UInt8(ascii: ",") else { throw ParseError() }
            }
        }

        /// The array whose `[` is at `index`, `depth` containers deep.
        private mutating func array(depth: Int) throws(ParseError) -> JSONTree {
            index += 1
            var items: [JSONTree] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            while true {
                items.append(try value(depth: depth + 1))
                skipWhitespace()
                guard index < bytes.count else { throw ParseError() }
                index += 1
                if bytes[index - 1] == UInt8(ascii: "]") { return .array(items) }
                guard bytes[index - 1] == UInt8(ascii: ",") else { throw ParseError() }
            }
        }

        mutating func literal(_ text: String, _ tree: JSONTree) throws(ParseError) -> JSONTree {
            guard bytes[index...].starts(with: text.utf8) else { throw ParseError() }
            index += text.utf8.count
            return tree
        }

        /// A string's body, escapes kept; `index` must be at its opening quote.
        mutating func string() throws(ParseError) -> [UInt8] {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw ParseError() }
            index += 1
            let start = index
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    index += 1
                    return Array(bytes[start..<index - 1])
                case UInt8(ascii: "\\"):
                    index += 2
                default:
                    index += 1
                }
            }
            throw ParseError()
        }
    }
}
