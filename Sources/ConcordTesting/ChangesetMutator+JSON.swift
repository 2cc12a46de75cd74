import ConcordCore

extension ChangesetMutator {
    private static let jsonKinds: [(kind: Kind, weight: UInt64)] = [
        (.jsonTruncate, 2), (.jsonBytes, 3), (.splice, 1), (.jsonNumber, 6), (.jsonString, 5), (.jsonKeys, 4),
        (.jsonWrongType, 3), (.jsonArray, 3), (.jsonGraft, 2), (.jsonNesting, 1),
    ]

    /// Every key the JSON form uses, and some it does not.
    private static let jsonKeys: [String] = [
        "format", "needs", "rows", "since", "source", "tables", "upTo", "columns", "key", "liveness", "table",
        "causalLength", "stamp", "hlc", "node", "value", "contributions", "amount", "integer", "real", "text",
        "textHex", "blob", "merges", "name", "policy", "", "\\u0000", "Rows", "extra", "format ",
    ]

    /// Makes one edit of a changeset's JSON text and returns its kind (a byte edit when the text no longer parses).
    func editJSON(_ bytes: inout [UInt8], using source: inout ChoiceSource) -> Kind {
        let kind = Self.jsonKinds[source.index(weights: Self.jsonKinds.map(\.weight))].kind
        switch kind {
        case .jsonTruncate where !bytes.isEmpty:
            bytes.removeSubrange(source.offset(below: bytes.count)...)
            return kind
        case .splice:
            let partner = partner(.json, using: &source)
            bytes =
                Array(bytes[..<source.offset(below: bytes.count + 1)])
                + partner[source.offset(below: partner.count + 1)...]
            return kind
        case .jsonTruncate, .jsonBytes:
            break
        default:
            if var tree = try? JSONTree.parse(bytes), editTree(kind, &tree, using: &source) {
                bytes = tree.bytes
                return kind
            }
        }
        editJSONBytes(&bytes, using: &source)
        return .jsonBytes
    }

    /// Overwrites, inserts or deletes a few bytes, mostly ones with a meaning in JSON.
    private func editJSONBytes(_ bytes: inout [UInt8], using source: inout ChoiceSource) {
        for _ in 0..<(1 + source.index(weights: [4, 2, 1])) {
            let byte = source.bool(probability: 0.8) ? source.pick(HostileValues.jsonBytes) : source.randomBytes(1)[0]
            switch source.choose(upTo: 3) {
            case 0 where !bytes.isEmpty: bytes[source.offset(below: bytes.count)] = byte
            case 1 where !bytes.isEmpty: bytes.remove(at: source.offset(below: bytes.count))
            case 2: bytes.insert(contentsOf: source.pick([[0xEF, 0xBB, 0xBF], [0x20], [0x0A], [0x00]]), at: 0)
            default: bytes.insert(byte, at: source.offset(below: bytes.count + 1))
            }
        }
    }

    /// Makes a tree-level edit; returns `false` when the tree has nothing the kind can edit.
    private func editTree(_ kind: Kind, _ tree: inout JSONTree, using source: inout ChoiceSource) -> Bool {
        let nodes = tree.nodes()
        switch kind {
        case .jsonNumber:
            return editNumber(&tree, nodes, using: &source)
        case .jsonString:
            return editString(&tree, nodes, using: &source)
        case .jsonKeys:
            return editKeys(&tree, nodes, using: &source)
        case .jsonWrongType:
            let (path, _, node) = source.pick(nodes)
            let others = [
                JSONTree.null, .bool(true), .bool(false), .number("0"), .number("1.5"), .string([]),
                .string(Array("1".utf8)), .array([]), .object([]), .array([node]),
            ]
            .filter { $0.kind != node.kind }
            let replacement = source.pick(others)
            tree.update(at: path) { $0 = replacement }
        case .jsonArray:
            return editArray(&tree, nodes, using: &source)
        case .jsonGraft:
            // Any node replaced by a copy of any other, from this tree or another seed's.
            let (path, _, _) = source.pick(nodes)
            let donor: JSONTree
            if source.bool(), let other = try? JSONTree.parse(partner(.json, using: &source)) {
                donor = source.pick(other.nodes()).node
            } else {
                donor = source.pick(nodes).node
            }
            tree.update(at: path) { $0 = donor }
        case .jsonNesting:
            let (path, _, _) = source.pick(nodes)
            let depth = source.pick([2, 31, 32, 33, 500])
            let asObjects = source.bool()
            tree.update(at: path) { node in
                for _ in 0..<depth {
                    node = asObjects ? .object([JSONTree.Member(key: Array("a".utf8), value: node)]) : .array([node])
                }
            }
        default:
            return false
        }
        return true
    }

    /// One of `nodes` whose kind is in `kinds`, or `nil` (drawing nothing) when there is none.
    private static func pick(
        _ kinds: Set<JSONTree.Kind>, in nodes: [JSONNode], using source: inout ChoiceSource
    ) -> JSONNode? {
        let candidates = nodes.filter { kinds.contains($0.node.kind) }
        return candidates.isEmpty ? nil : source.pick(candidates)
    }

    /// Replaces a number with a hostile one or a near neighbour; `false` when the tree has no number.
    private func editNumber(_ tree: inout JSONTree, _ nodes: [JSONNode], using source: inout ChoiceSource) -> Bool {
        // A quarter of the time one of the changeset's own numbers (format, since, upTo), which
        // the many clocks and lengths of the rows would otherwise drown out.
        let top = nodes.filter { $0.path.count == 1 && $0.node.kind == .number }
        let picked =
            !top.isEmpty && source.bool(probability: 0.25)
            ? source.pick(top) : Self.pick([.number], in: nodes, using: &source)
        guard let (path, key, node) = picked else { return false }
        var choices = HostileValues.jsonNumbers
        if case .number(let text) = node, let current = UInt64(text) {
            if key == Array("hlc".utf8) { choices += HostileValues.clocks(near: current).map { String($0) } }
            if key == Array("causalLength".utf8) { choices += HostileValues.causalLengths.map { String($0) } }
            choices += [String(current &+ 1), String(current &- 1), "-" + text, text + "0", text + ".0"]
        }
        let number = source.pick(choices)
        tree.update(at: path) { $0 = .number(number) }
        return true
    }

    /// Replaces a string with a hostile one, a hex string of the wrong length or case, or a huge one.
    private func editString(_ tree: inout JSONTree, _ nodes: [JSONNode], using source: inout ChoiceSource) -> Bool {
        guard let (path, _, node) = Self.pick([.string], in: nodes, using: &source) else { return false }
        guard case .string(let body) = node else { return false }
        let replacement: [UInt8]
        switch source.index(weights: [6, 2, 2, 1]) {
        case 0:
            replacement = Array(source.pick(HostileValues.jsonStrings).utf8)
        case 1 where !body.isEmpty:
            // A hex string one digit short, one long, or in upper case.
            switch source.choose(upTo: 2) {
            case 0: replacement = Array(body.dropLast())
            case 1: replacement = body + Array("0".utf8)
            default: replacement = Array(String(decoding: body, as: UTF8.self).uppercased().utf8)
            }
        case 2:
            replacement = body + Array(source.pick(["\\u0000", "\\ud800", "\u{1}", "\"", "\\"]).utf8)
        default:
            replacement = Array(repeating: UInt8(ascii: "x"), count: source.pick([70_000, 200_000]))
        }
        tree.update(at: path) { $0 = .string(replacement) }
        return true
    }

    /// Duplicates, removes, renames or adds an object's key; `false` when the tree has no object.
    private func editKeys(_ tree: inout JSONTree, _ nodes: [JSONNode], using source: inout ChoiceSource) -> Bool {
        guard let (path, _, node) = Self.pick([.object], in: nodes, using: &source),
            case .object(var members) = node
        else { return false }
        let key = Array(source.pick(Self.jsonKeys).utf8)
        switch source.choose(upTo: 3) {
        case 0 where !members.isEmpty:
            // The same key twice: the first value, or another, again.
            var copy = source.pick(members)
            if source.bool() { copy.value = source.pick(nodes).node }
            members.insert(copy, at: source.offset(below: members.count + 1))
        case 1 where !members.isEmpty:
            members.remove(at: source.offset(below: members.count))
        case 2 where !members.isEmpty:
            members[source.offset(below: members.count)].key = key
        default:
            members.insert(
                JSONTree.Member(key: key, value: source.pick(nodes).node),
                at: source.offset(below: members.count + 1))
        }
        tree.update(at: path) { $0 = .object(members) }
        return true
    }

    /// Removes, duplicates, swaps, reverses or empties an array's items; `false` when the tree has no array.
    private func editArray(_ tree: inout JSONTree, _ nodes: [JSONNode], using source: inout ChoiceSource) -> Bool {
        guard let (path, _, node) = Self.pick([.array], in: nodes, using: &source),
            case .array(var items) = node
        else { return false }
        switch source.choose(upTo: 4) {
        case 0 where !items.isEmpty: items.remove(at: source.offset(below: items.count))
        case 1 where !items.isEmpty:
            items.insert(source.pick(items), at: source.offset(below: items.count + 1))
        case 2 where items.count >= 2:
            items.swapAt(source.offset(below: items.count), source.offset(below: items.count))
        case 3: items.reverse()
        default: items = source.bool() ? [] : items + [.null]
        }
        tree.update(at: path) { $0 = .array(items) }
        return true
    }
}

/// A node of a JSON tree with where it is: what `JSONTree.nodes()` lists.
private typealias JSONNode = (path: JSONTree.Path, key: [UInt8]?, node: JSONTree)
