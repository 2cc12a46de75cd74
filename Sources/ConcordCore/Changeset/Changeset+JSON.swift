/// The changeset's JSON form: the same content as the binary one, readable and hand-editable, for debugging.
///
/// It is deterministic — pretty-printed, keys sorted, equal changesets give
/// identical bytes — so it diffs well and can be committed as a test fixture.
/// Integers are exact JSON integers (64-bit, never rounded through a double);
/// reals are the shortest decimal that reads back to the same bits (`-0.0`
/// included), with `"Infinity"` and `"-Infinity"` as strings; blobs are
/// lowercase hex, and so is text whose bytes are not UTF-8 (`{"textHex": "61ff62"}`);
/// node ids are 32 hex digits; clocks are the raw 64-bit
/// ``HLCTimestamp`` integer. NULL is `null`, any other value an object with one
/// key naming its kind. Each table lists its columns' merge names in
/// `"merges"`, lined up with `"columns"`. A register of a `counter` column
/// always has a `"contributions"` array (possibly empty) of
/// `{"amount", "causalLength", "stamp"}` objects in strictly increasing node
/// order; a register of any other column never has that key. Reading it is
/// as strict as reading the binary form: unknown or missing keys, wrong types
/// and every rule of ``ChangesetFormat`` are refused with a ``ChangesetError``
/// giving the byte offset in the text. `"needs"` is the oldest Concord
/// release that reads the format, as in the binary form: format 1 lacks it,
/// and a build given a newer format shows it. From format 3 a row may have
/// `"seen"` (``RowChange/seen``): one entry per column, a stamp or `null`,
/// stamps only where the column merges `lww` and has a register.
///
/// ```json
/// {
///   "format": 3,
///   "needs": "0.3.0",
///   "rows": [
///     {
///       "columns": [
///         {
///           "stamp": { "hlc": 111398894379417600, "node": "9f0c...e2" },
///           "value": { "text": "Buy milk" }
///         },
///         {
///           "contributions": [
///             { "amount": 2, "causalLength": 1, "stamp": { "hlc": 111398894379417600, "node": "9f0c...e2" } }
///           ],
///           "stamp": { "hlc": 111398894379417600, "node": "9f0c...e2" },
///           "value": { "integer": 2 }
///         }
///       ],
///       "key": { "text": "5F0C..." },
///       "liveness": { "causalLength": 1, "stamp": { "hlc": 111398894379417600, "node": "9f0c...e2" } },
///       "table": "reminders"
///     }
///   ],
///   "since": 0,
///   "source": "9f0c...e2",
///   "tables": [
///     { "columns": ["title", "likes"], "key": "id", "merges": ["lww", "counter"], "name": "reminders", "policy": "column" }
///   ],
///   "upTo": 1
/// }
/// ```
/// (The real output puts every member on its own line.)
extension Changeset {
    /// The changeset as pretty-printed, key-sorted UTF-8 JSON.
    ///
    /// A NaN (which the binary encoder refuses) is written as `"NaN"`, which
    /// ``init(json:)`` refuses in turn.
    ///
    /// ```swift
    /// FileManager.default.createFile(atPath: "changes.json", contents: Data(changes.jsonData()))
    /// ```
    public func jsonData() -> [UInt8] {
        // Merges by exact table name, as rows name tables; a row of an unlisted table has none.
        let merges = Dictionary(
            tables.map { (Array($0.name.utf8), $0.merges) }, uniquingKeysWith: { first, _ in first })
        return JSONText.write(
            .object([
                ("format", .number(String(Changeset.formatVersion))),
                ("needs", .string(ChangesetFormat.writtenNeeds)),
                ("source", .string(Hex.encode(source.bytes))),
                ("since", .number(String(since))),
                ("upTo", .number(String(upTo))),
                (
                    "tables",
                    .array(
                        tables.map { table in
                            .object([
                                ("name", .string(table.name)),
                                ("key", .string(table.key)),
                                ("columns", .array(table.columns.map { .string($0) })),
                                ("merges", .array(table.merges.map { .string($0.name) })),
                                ("policy", .string(table.policy.rawValue)),
                            ])
                        })
                ),
                (
                    "rows",
                    .array(
                        rows.map { row in
                            let rowMerges = merges[Array(row.table.utf8)] ?? []
                            let seen: [(String, JSONText.Value)] =
                                row.seen.map { [("seen", .array($0.map { $0.map(jsonStamp) ?? .null }))] } ?? []
                            return .object(
                                [
                                    ("table", .string(row.table)),
                                    ("key", jsonValue(row.key)),
                                    (
                                        "liveness",
                                        .object([
                                            ("causalLength", .number(String(row.registers.liveness.causalLength))),
                                            ("stamp", row.registers.liveness.stamp.map(jsonStamp) ?? .null),
                                        ])
                                    ),
                                    (
                                        "columns",
                                        .array(
                                            row.registers.columns.enumerated().map { c, register in
                                                register.map {
                                                    jsonRegister($0, merge: c < rowMerges.count ? rowMerges[c] : nil)
                                                } ?? .null
                                            })
                                    ),
                                ] + seen)
                        })
                ),
            ]))
    }

    /// Reads the JSON form, validating it as strictly as the binary decoder does.
    ///
    /// ```swift
    /// let changes = try Changeset(json: Array(try Data(contentsOf: url)))
    /// ```
    public init(json: [UInt8]) throws {
        self = try JSONChangesetReader.read(JSONText.parse(json))
    }

    /// Decodes either form: binary if `bytes` start with the magic "CNCD", JSON if the first non-space byte is `{`.
    ///
    /// ```swift
    /// let changes = try Changeset.decode(anyFormat: Array(try Data(contentsOf: url)))
    /// ```
    public static func decode(anyFormat bytes: [UInt8]) throws -> Changeset {
        let magic = ChangesetFormat.magic
        if bytes.starts(with: magic) || (!bytes.isEmpty && bytes.count < magic.count && magic.starts(with: bytes)) {
            return try Changeset(decoding: bytes)
        }
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        if index < bytes.count && bytes[index] == UInt8(ascii: "{") {
            return try Changeset(json: bytes)
        }
        throw ChangesetError.notAChangeset(prefix: Array(bytes.prefix(8)))
    }
}

/// Two lowercase hex digits per byte (what `NodeID.description` gives, without its per-byte strings).

/// A column register; `"contributions"` is always there for a counter column, and elsewhere only when
/// the (invalid) register has some, so that reading the JSON back refuses it instead of losing them.
private func jsonRegister(_ register: ColumnRegister, merge: ColumnMerge?) -> JSONText.Value {
    var members: [(String, JSONText.Value)] = [
        ("stamp", jsonStamp(register.stamp)), ("value", jsonValue(register.value)),
    ]
    if merge == .counter || !register.contributions.isEmpty {
        members.append(
            (
                "contributions",
                .array(
                    register.contributions.map { contribution in
                        .object([
                            ("causalLength", .number(String(contribution.causalLength))),
                            ("amount", .number(String(contribution.amount))),
                            ("stamp", jsonStamp(contribution.stamp)),
                        ])
                    })
            ))
    }
    return .object(members)
}

private func jsonStamp(_ stamp: Stamp) -> JSONText.Value {
    .object([("hlc", .number(String(stamp.hlc.rawValue))), ("node", .string(Hex.encode(stamp.node.bytes)))])
}

private func jsonValue(_ value: SQLiteValue) -> JSONText.Value {
    switch value {
    case .null:
        return .null
    case .integer(let v):
        return .object([("integer", .number(String(v)))])
    case .real(let v):
        let text: JSONText.Value =
            v.isFinite
            ? .number(v.description)
            : v.isNaN ? .string("NaN") : .string(v < 0 ? "-Infinity" : "Infinity")
        return .object([("real", text)])
    case .text(let v):
        // JSON strings are Unicode: text whose bytes are not UTF-8 travels as hex.
        guard let string = v.string else { return .object([("textHex", .string(Hex.encode(v.bytes)))]) }
        return .object([("text", .string(string))])
    case .blob(let v):
        return .object([("blob", .string(Hex.encode(v)))])
    }
}

/// Turns a parsed JSON tree into a ``Changeset``, enforcing the format's rules with offsets and paths.
private enum JSONChangesetReader {
    typealias Node = JSONText.Node

    static func read(_ root: Node) throws -> Changeset {
        let version = try formatVersion(root)
        let needs = ChangesetFormat.needs[version]
        let top = try object(
            root, "the changeset",
            keys: ["format"] + (needs == nil ? [] : ["needs"]) + ["rows", "since", "source", "tables", "upTo"])
        if let needs {
            let found = try string(top["needs"]!, "needs")
            guard found.utf8.elementsEqual(needs.utf8) else {
                throw malformed(
                    top["needs"]!, "needs", .releaseMismatch(format: version, expected: needs, found: found))
            }
        }
        let source = try nodeID(top["source"]!, "source")
        let since = try int64(top["since"]!, "since")
        let upTo = try int64(top["upTo"]!, "upTo")
        if let reason = ChangesetFormat.problem(since: since, upTo: upTo) {
            throw malformed(top["since"]!, "since and upTo", reason)
        }

        var tables: [TableSchema] = []
        var tableNames = Set<[UInt8]>()
        for (t, tableNode) in try array(top["tables"]!, "tables").enumerated() {
            tables.append(try table(tableNode, "tables[\(t)]", names: &tableNames))
        }

        var tableIndex: [[UInt8]: Int] = [:]
        for (index, table) in tables.enumerated() { tableIndex[Array(table.name.utf8)] = index }
        var rows: [RowChange] = []
        let withSeen = version >= ChangesetFormat.firstWithSeen
        for (i, rowNode) in try array(top["rows"]!, "rows").enumerated() {
            rows.append(try row(rowNode, "rows[\(i)]", tables: tables, tableIndex: tableIndex, withSeen: withSeen))
        }
        return Changeset(source: source, since: since, upTo: upTo, tables: tables, rows: rows)
    }

    /// The changeset's `"format"`, read before anything else (another format may have other keys), if this
    /// build reads it; for a newer one, the error names the release its `"needs"` gives, if it is a release name.
    private static func formatVersion(_ root: Node) throws -> UInt16 {
        guard case .object(let members) = root.kind else {
            throw malformed(root, "the changeset", .wrongType(expected: "an object", found: root.typeName))
        }
        guard let formatNode = members.first(where: { $0.key == "format" })?.value else {
            throw malformed(root, "the changeset", .missingKey("format"))
        }
        let format = try uint64(formatNode, "format")
        let supported = ChangesetFormat.supportedVersions
        if let version = UInt16(exactly: format), supported.contains(version) { return version }
        var needs: String?
        if format > UInt64(supported.last!),
            case .string(let text)? = members.first(where: { $0.key == "needs" })?
                .value.kind
        {
            needs = ChangesetFormat.releaseName(Array(text.utf8))
        }
        throw ChangesetError.unsupportedVersion(found: format, supported: supported, needs: needs)
    }

    /// One entry of `"tables"`, whose folded name must not be in `names` yet (it is added).
    private static func table(_ node: Node, _ path: String, names: inout Set<[UInt8]>) throws -> TableSchema {
        let fields = try object(node, path, keys: ["columns", "key", "merges", "name", "policy"])
        let name = try identifier(fields["name"]!, path + ".name")
        guard names.insert(ChangesetFormat.folded(name)).inserted else {
            throw malformed(fields["name"]!, path + ".name", .duplicateTable(name))
        }
        let key = try identifier(fields["key"]!, path + ".key")
        let columns = try columnNames(fields["columns"]!, path + ".columns", key: key)
        let mergeNodes = try array(fields["merges"]!, path + ".merges")
        guard mergeNodes.count == columns.count else {
            throw malformed(
                fields["merges"]!, path + ".merges",
                .mergeCountMismatch(columns: columns.count, merges: mergeNodes.count))
        }
        // Any identifier is a valid merge name: one that is no built-in's names a custom merge.
        let merges = try mergeNodes.enumerated().map { c, mergeNode in
            ColumnMerge(name: try identifier(mergeNode, path + ".merges[\(c)]"))
        }
        let policyText = try string(fields["policy"]!, path + ".policy")
        guard let policy = TablePolicy(rawValue: policyText) else {
            throw malformed(fields["policy"]!, path + ".policy", .unknownPolicy("\"\(policyText)\""))
        }
        return TableSchema(name: name, key: key, columns: columns, policy: policy, merges: merges)
    }

    /// A table's `"columns"`: at most `maxColumns` identifiers, distinct from each other and from `key` once folded.
    private static func columnNames(_ node: Node, _ path: String, key: String) throws -> [String] {
        var columnNames: Set<[UInt8]> = [ChangesetFormat.folded(key)]
        let columnNodes = try array(node, path)
        if UInt64(columnNodes.count) > ChangesetFormat.maxColumns {
            throw malformed(
                node, path,
                .countTooLarge(declared: UInt64(columnNodes.count), limit: ChangesetFormat.maxColumns))
        }
        var columns: [String] = []
        for (c, columnNode) in columnNodes.enumerated() {
            let column = try identifier(columnNode, path + "[\(c)]")
            guard columnNames.insert(ChangesetFormat.folded(column)).inserted else {
                throw malformed(columnNode, path + "[\(c)]", .duplicateColumn(column))
            }
            columns.append(column)
        }
        return columns
    }

    /// One entry of `"rows"`, of a table in `tables` found by its exact name through `tableIndex`; with
    /// `"seen"` or without it when the format has it (`withSeen`), never without.
    private static func row(
        _ node: Node, _ path: String, tables: [TableSchema], tableIndex: [[UInt8]: Int], withSeen: Bool
    ) throws -> RowChange {
        let hasSeen =
            if withSeen, case .object(let members) = node.kind { members.contains { $0.key == "seen" } } else { false }
        let fields = try object(
            node, path, keys: ["columns", "key", "liveness"] + (hasSeen ? ["seen"] : []) + ["table"])
        let tableName = try string(fields["table"]!, path + ".table")
        guard let t = tableIndex[Array(tableName.utf8)] else {
            throw malformed(fields["table"]!, path + ".table", .unknownTable(tableName))
        }
        let table = tables[t]
        let key = try value(fields["key"]!, path + ".key")
        if let reason = ChangesetFormat.problem(key: key) { throw malformed(fields["key"]!, path + ".key", reason) }
        let liveness = try liveness(fields["liveness"]!, path + ".liveness")

        let columnNodes = try array(fields["columns"]!, path + ".columns")
        guard columnNodes.count == table.columns.count else {
            throw malformed(
                fields["columns"]!, path + ".columns",
                .columnCountMismatch(expected: table.columns.count, found: UInt64(columnNodes.count)))
        }
        var columns: [ColumnRegister?] = []
        for (c, columnNode) in columnNodes.enumerated() {
            let columnPath = path + ".columns[\(c)]"
            if case .null = columnNode.kind {
                columns.append(nil)
                continue
            }
            columns.append(try register(columnNode, columnPath, merge: table.merges[c]))
        }
        let registers = RowRegisters(liveness: liveness, columns: columns)
        guard let seenNode = fields["seen"] else { return RowChange(table: table.name, key: key, registers: registers) }
        let entries = try array(seenNode, path + ".seen")
        let seen = try entries.enumerated().map { c, entry in try optionalStamp(entry, path + ".seen[\(c)]") }
        if let (column, reason) = ChangesetFormat.problem(seen: seen, registers: registers, merges: table.merges) {
            throw malformed(
                column.map { entries[$0] } ?? seenNode, path + ".seen" + (column.map { "[\($0)]" } ?? ""), reason)
        }
        return RowChange(table: table.name, key: key, registers: registers, seen: seen)
    }

    /// A row's `"liveness"`: a valid causal length, and a stamp (or `null`) that agrees with it.
    private static func liveness(_ node: Node, _ path: String) throws -> Liveness {
        let livenessFields = try object(node, path, keys: ["causalLength", "stamp"])
        let causalLength = try uint64(livenessFields["causalLength"]!, path + ".causalLength")
        if let reason = ChangesetFormat.problem(causalLength: causalLength) {
            throw malformed(livenessFields["causalLength"]!, path + ".causalLength", reason)
        }
        let liveness = Liveness(
            causalLength: causalLength, stamp: try optionalStamp(livenessFields["stamp"]!, path + ".stamp"))
        if let reason = ChangesetFormat.problem(liveness: liveness) {
            throw malformed(livenessFields["stamp"]!, path + ".stamp", reason)
        }
        return liveness
    }

    /// A column register: `"contributions"` is required for a counter column and refused for any other.
    static func register(_ node: Node, _ path: String, merge: ColumnMerge) throws -> ColumnRegister {
        let isCounter = merge == .counter
        if !isCounter, case .object(let members) = node.kind,
            let member = members.first(where: { $0.key == "contributions" })
        {
            throw ChangesetError.malformed(
                offset: member.keyOffset, field: path, reason: .contributionsOnNonCounterColumn(merge: merge.name))
        }
        let fields = try object(
            node, path, keys: isCounter ? ["contributions", "stamp", "value"] : ["stamp", "value"])
        let stamp = try stamp(fields["stamp"]!, path + ".stamp")
        let value = try value(fields["value"]!, path + ".value")
        guard let contributionsNode = fields["contributions"] else { return ColumnRegister(value: value, stamp: stamp) }

        let entries = try array(contributionsNode, path + ".contributions")
        if UInt64(entries.count) > ChangesetFormat.maxContributions {
            throw malformed(
                contributionsNode, path + ".contributions",
                .countTooLarge(declared: UInt64(entries.count), limit: ChangesetFormat.maxContributions))
        }
        var contributions: [CounterContribution] = []
        var previous: NodeID?
        for (j, entry) in entries.enumerated() {
            let entryPath = path + ".contributions[\(j)]"
            let entryFields = try object(entry, entryPath, keys: ["amount", "causalLength", "stamp"])
            let stampNode = entryFields["stamp"]!
            let causalLength = try uint64(entryFields["causalLength"]!, entryPath + ".causalLength")
            if let reason = ChangesetFormat.problem(causalLength: causalLength) {
                throw malformed(entryFields["causalLength"]!, entryPath + ".causalLength", reason)
            }
            let contribution = CounterContribution(
                causalLength: causalLength,
                amount: try int64(entryFields["amount"]!, entryPath + ".amount"),
                stamp: try self.stamp(stampNode, entryPath + ".stamp"))
            if let reason = ChangesetFormat.problem(contributionNode: contribution.stamp.node, after: previous) {
                throw malformed(stampNode, entryPath + ".stamp", reason)
            }
            previous = contribution.stamp.node
            contributions.append(contribution)
        }
        return ColumnRegister(value: value, stamp: stamp, contributions: contributions)
    }

    // MARK: Typed accessors

    static func malformed(_ node: Node, _ path: String, _ reason: ChangesetError.Reason) -> ChangesetError {
        .malformed(offset: node.offset, field: path, reason: reason)
    }

    /// The members of an object that must have exactly `keys`.
    static func object(_ node: Node, _ path: String, keys: [String]) throws -> [String: Node] {
        guard case .object(let members) = node.kind else {
            throw malformed(node, path, .wrongType(expected: "an object", found: node.typeName))
        }
        var result: [String: Node] = [:]
        for member in members {
            guard keys.contains(member.key) else {
                throw ChangesetError.malformed(
                    offset: member.keyOffset, field: path, reason: .unexpectedKey(member.key))
            }
            guard result[member.key] == nil else {
                throw ChangesetError.malformed(offset: member.keyOffset, field: path, reason: .duplicateKey(member.key))
            }
            result[member.key] = member.value
        }
        for key in keys where result[key] == nil { throw malformed(node, path, .missingKey(key)) }
        return result
    }

    static func array(_ node: Node, _ path: String) throws -> [Node] {
        guard case .array(let items) = node.kind else {
            throw malformed(node, path, .wrongType(expected: "an array", found: node.typeName))
        }
        return items
    }

    static func string(_ node: Node, _ path: String) throws -> String {
        guard case .string(let text) = node.kind else {
            throw malformed(node, path, .wrongType(expected: "a string", found: node.typeName))
        }
        return text
    }

    static func identifier(_ node: Node, _ path: String) throws -> String {
        let name = try string(node, path)
        if let reason = ChangesetFormat.problem(identifier: name) { throw malformed(node, path, reason) }
        return name
    }

    static func int64(_ node: Node, _ path: String) throws -> Int64 {
        guard case .number(let text) = node.kind else {
            throw malformed(node, path, .wrongType(expected: "an integer", found: node.typeName))
        }
        guard let value = Int64(text) else { throw malformed(node, path, .numberOutOfRange(text)) }
        return value
    }

    static func uint64(_ node: Node, _ path: String) throws -> UInt64 {
        guard case .number(let text) = node.kind else {
            throw malformed(node, path, .wrongType(expected: "an integer", found: node.typeName))
        }
        guard let value = UInt64(text) else { throw malformed(node, path, .numberOutOfRange(text)) }
        return value
    }

    static func nodeID(_ node: Node, _ path: String) throws -> NodeID {
        let text = try string(node, path)
        guard let id = NodeID(hex: text) else { throw malformed(node, path, .invalidNodeID(text)) }
        return id
    }

    static func stamp(_ node: Node, _ path: String) throws -> Stamp {
        let fields = try object(node, path, keys: ["hlc", "node"])
        let stamp = Stamp(
            hlc: HLCTimestamp(rawValue: try uint64(fields["hlc"]!, path + ".hlc")),
            node: try nodeID(fields["node"]!, path + ".node"))
        if let reason = ChangesetFormat.problem(stamp: stamp) { throw malformed(fields["hlc"]!, path + ".hlc", reason) }
        return stamp
    }

    static func optionalStamp(_ node: Node, _ path: String) throws -> Stamp? {
        if case .null = node.kind { return nil }
        return try stamp(node, path)
    }

    static let valueKinds = ["integer", "real", "text", "textHex", "blob"]

    static func value(_ node: Node, _ path: String) throws -> SQLiteValue {
        let expected = "null or an object with one key: integer, real, text, textHex or blob"
        guard case .object(let members) = node.kind else {
            if case .null = node.kind { return .null }
            throw malformed(node, path, .wrongType(expected: expected, found: node.typeName))
        }
        for member in members where !valueKinds.contains(member.key) {
            throw ChangesetError.malformed(offset: member.keyOffset, field: path, reason: .unexpectedKey(member.key))
        }
        guard members.count == 1, let (kind, _, payload) = members.first.map({ ($0.key, $0.keyOffset, $0.value) })
        else {
            throw malformed(node, path, .wrongType(expected: expected, found: "an object with \(members.count) keys"))
        }
        let payloadPath = path + "." + kind
        switch kind {
        case "integer":
            return .integer(try int64(payload, payloadPath))
        case "real":
            switch payload.kind {
            case .number(let text):
                guard let value = Double(text), value.isFinite else {
                    throw malformed(payload, payloadPath, .numberOutOfRange(text))
                }
                return .real(value)
            case .string("Infinity"): return .real(.infinity)
            case .string("-Infinity"): return .real(-.infinity)
            case .string("NaN"): throw malformed(payload, payloadPath, .notANumber)
            default:
                throw malformed(
                    payload, payloadPath,
                    .wrongType(
                        expected: "a number, \"Infinity\" or \"-Infinity\"",
                        found: payload.typeName))
            }
        case "text":
            return .text(try string(payload, payloadPath))
        case "textHex":
            guard let bytes = Hex.decode(try string(payload, payloadPath)) else {
                throw malformed(payload, payloadPath, .invalidHex)
            }
            return .text(SQLiteText(bytes: bytes))
        default:
            guard let bytes = Hex.decode(try string(payload, payloadPath)) else {
                throw malformed(payload, payloadPath, .invalidHex)
            }
            return .blob(bytes)
        }
    }
}
