/// Every way reading (or writing) a changeset can fail, each saying what, where and what to do.
///
/// Changesets travel between devices through files, pipes and clouds, so a
/// damaged one must be refused whole with a message a person can act on: the
/// byte offset and the field being read (`rows[12].key (table 'reminders')`),
/// what was wrong with it, and how to get a good copy. Offsets count bytes
/// from the start of the binary changeset, or of the JSON text for the JSON
/// form; row, table and column indices count from 0, like the JSON form's
/// arrays.
///
/// ```swift
/// do {
///     let changes = try Changeset(decoding: bytes)
/// } catch let error as ChangesetError {
///     print(error)   // "The changeset is truncated: it ends at byte 57 while reading ..."
/// }
/// ```
public enum ChangesetError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bytes start neither with the binary magic "CNCD" nor with a JSON `{`; `prefix` is their first bytes.
    case notAChangeset(prefix: [UInt8])
    /// The format version (binary bytes 4–5, or the JSON `format` key) is one this build does not read.
    case unsupportedVersion(found: UInt64, supported: [UInt16])
    /// The data ended at `offset` before `field` was complete (or a length declared more bytes than remain).
    case truncated(offset: Int, field: String)
    /// The CRC-32 stored at `offset` does not match the bytes before it.
    case checksumMismatch(stored: UInt32, computed: UInt32, offset: Int)
    /// `field`, starting at `offset`, breaks a rule of the format.
    case malformed(offset: Int, field: String, reason: Reason)
    /// Bytes follow the end of the changeset, starting at `offset`.
    case trailingBytes(offset: Int)
    /// The changeset handed to the encoder breaks a rule of the format, so no decoder would accept it.
    case unencodable(field: String, reason: Reason)
    /// Reading or writing a file or stream failed.
    case io(operation: String, path: String, reason: String)

    /// What exactly is wrong with a malformed (or unencodable) field.
    public enum Reason: Hashable, Sendable, CustomStringConvertible {
        case invalidUTF8
        case emptyIdentifier
        case identifierContainsNUL
        case duplicateTable(String)
        case duplicateColumn(String)
        case unknownPolicy(String)
        case unknownTable(String)
        case unknownValueTag(UInt8)
        case unknownRecordTag(UInt8)
        case tableIndexOutOfRange(index: UInt64, tableCount: Int)
        case nodeIndexOutOfRange(index: UInt64, nodeCount: Int)
        case duplicateNode(NodeID)
        case columnCountMismatch(expected: Int, found: UInt64)
        case liveWithoutStamp(causalLength: UInt64)
        case nullKey
        case notANumber
        case invalidVersionRange(since: Int64, upTo: Int64)
        case rowCountMismatch(stored: UInt64, counted: UInt64)
        case varintTooLong
        case nonMinimalVarint
        case lengthTooLarge(declared: UInt64, limit: UInt64)
        case countTooLarge(declared: UInt64, limit: UInt64)
        case invalidJSON(String)
        case wrongType(expected: String, found: String)
        case missingKey(String)
        case unexpectedKey(String)
        case duplicateKey(String)
        case numberOutOfRange(String)
        case invalidNodeID(String)
        case invalidHex
        case nestingTooDeep(limit: Int)
        case encoderState(String)
        case mergeCountMismatch(columns: Int, merges: Int)
        case customMergeShadowsBuiltIn(String)
        case contributionsOnNonCounterColumn(merge: String)
        case contributionWithoutStamp
        case contributionsOutOfOrder(previous: NodeID, found: NodeID)
        case duplicateContribution(NodeID)
        case causalLengthTooLarge(UInt64)
        case clockOutOfRange(UInt64)

        public var description: String {
            switch self {
            case .invalidUTF8: "the text is not valid UTF-8"
            case .emptyIdentifier: "the name is empty"
            case .identifierContainsNUL: "the name contains a NUL character"
            case .duplicateTable(let name): "table '\(name)' appears twice (SQLite names ignore ASCII case)"
            case .duplicateColumn(let name): "column '\(name)' appears twice (SQLite names ignore ASCII case)"
            case .unknownPolicy(let found):
                "\(found) is not a table policy; expected one of \(TablePolicy.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", "))"
            case .unknownTable(let name): "the row names table '\(name)', which is not among the changeset's tables"
            case .unknownValueTag(let tag): "value tag \(tag) is not one of 0 (null), 1 (integer), 2 (real), 3 (text), 4 (blob)"
            case .unknownRecordTag(let tag): "record tag \(tag) is neither 1 (row) nor 2 (end)"
            case .tableIndexOutOfRange(let index, let count):
                "table index \(index) is out of range; the changeset has \(count) tables"
            case .nodeIndexOutOfRange(let index, let count):
                "node reference \(index) is out of range; \(count) nodes are known so far (0 means none, \(count + 1) introduces a new one)"
            case .duplicateNode(let node): "node \(node) is introduced a second time"
            case .columnCountMismatch(let expected, let found):
                "the row has \(found) columns but its table has \(expected)"
            case .liveWithoutStamp(let length):
                "causal length \(length) has no stamp; only length 0 may lack one"
            case .nullKey: "a primary key cannot be NULL"
            case .notANumber: "NaN is not a value SQLite can store (it binds NaN as NULL)"
            case .invalidVersionRange(let since, let upTo):
                "the version range since \(since) up to \(upTo) is invalid; it needs 0 <= since <= upTo"
            case .rowCountMismatch(let stored, let counted): "the end record counts \(stored) rows but \(counted) were read"
            case .varintTooLong: "the variable-length integer is longer than 10 bytes or exceeds 64 bits"
            case .nonMinimalVarint: "the variable-length integer is not in its shortest form"
            case .lengthTooLarge(let declared, let limit): "the declared length \(declared) exceeds the limit of \(limit) bytes"
            case .countTooLarge(let declared, let limit): "the declared count \(declared) exceeds the limit of \(limit)"
            case .invalidJSON(let detail): "this is not valid JSON: \(detail)"
            case .wrongType(let expected, let found): "expected \(expected) but found \(found)"
            case .missingKey(let key): "the object lacks the required key \"\(key)\""
            case .unexpectedKey(let key): "the key \"\(key)\" is not part of the format"
            case .duplicateKey(let key): "the key \"\(key)\" appears twice"
            case .numberOutOfRange(let text): "the number \(text) is not an integer in the allowed range"
            case .invalidNodeID(let text): "\"\(text)\" is not a node id (32 hex digits)"
            case .invalidHex: "the blob is not an even number of hex digits"
            case .nestingTooDeep(let limit): "arrays and objects nest deeper than \(limit) levels"
            case .encoderState(let detail): detail
            case .mergeCountMismatch(let columns, let merges):
                "the table has \(columns) columns but \(merges) merges; give exactly one merge per column, in column order"
            case .customMergeShadowsBuiltIn(let name):
                "custom merge '\(name)' has the name of a built-in merge, so it would read back as the built-in; "
                    + "use ColumnMerge(name: \"\(name)\") for the built-in, or register the custom merge under another name"
            case .contributionsOnNonCounterColumn(let merge):
                "the column merges with '\(merge)', so its register cannot carry counter contributions; only 'counter' columns have them"
            case .contributionWithoutStamp:
                "a counter contribution has no stamp (node reference 0); every contribution needs one, as it names the contributing node"
            case .contributionsOutOfOrder(let previous, let found):
                "the contribution of node \(found) comes after that of node \(previous); contributions must be in strictly increasing node-id order"
            case .duplicateContribution(let node):
                "node \(node) contributes twice; a counter keeps exactly one contribution per node"
            case .causalLengthTooLarge(let length):
                "causal length \(length) exceeds the limit of \(Liveness.maxCausalLength); each delete or re-insert adds "
                    + "one or two, so no real history reaches it"
            case .clockOutOfRange(let raw):
                "clock reading \(raw) exceeds the limit of \(ChangesetFormat.maxClock) (a 63-bit hybrid logical clock)"
            }
        }
    }

    public var description: String {
        switch self {
        case .notAChangeset(let prefix):
            let shown = prefix.isEmpty ? "is empty" : "starts with bytes " + prefix.map { hex2($0) }.joined(separator: " ")
            return "This is not a Concord changeset: it \(shown), not the magic \"CNCD\" of a binary changeset "
                + "nor the '{' of a JSON one. Check that the right file was passed; if it was, export the changeset again."
        case .unsupportedVersion(let found, let supported):
            let list = supported.map(String.init).joined(separator: ", ")
            return "The changeset uses format version \(found), but this build of Concord reads only version \(list). "
                + "Update Concord on this device, or export the changeset again with a build that writes version \(list)."
        case .truncated(let offset, let field):
            return "The changeset is truncated: it ends at byte \(offset) while reading \(field). "
                + "The copy was probably cut short; export it again or copy the whole file."
        case .checksumMismatch(let stored, let computed, let offset):
            return "The changeset is corrupted: the CRC-32 stored at byte \(offset) is \(hex32(stored)) "
                + "but the bytes before it hash to \(hex32(computed)). Some bytes changed after it was exported; "
                + "export it again and transfer it unmodified."
        case .malformed(let offset, let field, let reason):
            return "The changeset is malformed at byte \(offset), reading \(field): \(reason). "
                + "It is damaged or was written by a faulty encoder; export it again."
        case .trailingBytes(let offset):
            return "The changeset has extra bytes after its end, starting at byte \(offset). "
                + "Something was appended to it (or two files concatenated); export it again or remove the extra bytes."
        case .unencodable(let field, let reason):
            return "Cannot encode the changeset: \(field): \(reason). "
                + "The changeset (or the order of encoder calls) is wrong; fix the code that builds it."
        case .io(let operation, let path, let reason):
            return "Cannot \(operation) '\(path)': \(reason). Check the path, its permissions and the free space, then retry."
        }
    }
}

/// `0x` and eight uppercase hex digits.
func hex32(_ value: UInt32) -> String {
    "0x" + (0..<4).reversed().map { hex2(UInt8(truncatingIfNeeded: value >> ($0 * 8))) }.joined()
}
