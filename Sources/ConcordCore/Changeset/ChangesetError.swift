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
    ///
    /// `supported` lists the formats this build reads. `needs` is the oldest Concord release that reads
    /// `found`, as a changeset in a newer format names it (right after the version: see ``ChangesetEncoder``),
    /// or `nil` when there is none to show: the format is older than this build's, or what follows the
    /// version is not a short, printable release name.
    case unsupportedVersion(found: UInt64, supported: [UInt16], needs: String?)
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
        /// Text (a name, a value, or the JSON itself) is not valid UTF-8.
        case invalidUTF8
        /// A table, key or column name, or a merge name, is empty.
        case emptyIdentifier
        /// A name contains a NUL byte, which SQLite names cannot hold.
        case identifierContainsNUL
        /// A table is listed twice; names are compared ignoring ASCII case, as SQLite does.
        case duplicateTable(String)
        /// A table lists a column twice (or its key as a column); compared ignoring ASCII case.
        case duplicateColumn(String)
        /// A table's policy is not one of ``TablePolicy``'s.
        case unknownPolicy(String)
        /// A row names a table the changeset does not declare.
        case unknownTable(String)
        /// A value's tag byte is not 0–4 (NULL, integer, real, text, blob).
        case unknownValueTag(UInt8)
        /// A record's tag byte is neither 1 (a row) nor 2 (the end).
        case unknownRecordTag(UInt8)
        /// A row refers to a table by an index past the declared tables.
        case tableIndexOutOfRange(index: UInt64, tableCount: Int)
        /// A stamp refers to a node by an index neither known nor the next new one.
        case nodeIndexOutOfRange(index: UInt64, nodeCount: Int)
        /// A node id is introduced a second time, so two indices would name it.
        case duplicateNode(NodeID)
        /// A row has another number of column registers than its table has columns.
        case columnCountMismatch(expected: Int, found: UInt64)
        /// A row's liveness has a causal length above 0 but no stamp; only a row never written may lack one.
        case liveWithoutStamp(causalLength: UInt64)
        /// A row's primary key is NULL.
        case nullKey
        /// A real value is NaN, which SQLite cannot store.
        case notANumber
        /// The header's versions are not `0 <= since <= upTo`.
        case invalidVersionRange(since: Int64, upTo: Int64)
        /// The end record's row count differs from the rows read before it.
        case rowCountMismatch(stored: UInt64, counted: UInt64)
        /// A variable-length integer runs past 10 bytes or 64 bits.
        case varintTooLong
        /// A variable-length integer is not in its shortest form, so the encoding would not be canonical.
        case nonMinimalVarint
        /// A text, blob or name is longer than the format allows (1,000,000,000 bytes).
        case lengthTooLarge(declared: UInt64, limit: UInt64)
        /// A count of tables, columns or contributions is above the format's limit.
        case countTooLarge(declared: UInt64, limit: UInt64)
        /// The JSON form is not valid JSON; the detail says where it breaks.
        case invalidJSON(String)
        /// A JSON field holds another kind of value than the format expects there.
        case wrongType(expected: String, found: String)
        /// A JSON object lacks a key the format requires.
        case missingKey(String)
        /// A JSON object has a key the format does not define.
        case unexpectedKey(String)
        /// A JSON object has the same key twice.
        case duplicateKey(String)
        /// A JSON number is not an integer in the field's range, or not a finite real.
        case numberOutOfRange(String)
        /// A JSON node id is not 32 hex digits.
        case invalidNodeID(String)
        /// A JSON blob (or `textHex`) is not pairs of hex digits.
        case invalidHex
        /// JSON arrays and objects nest deeper than the reader follows.
        case nestingTooDeep(limit: Int)
        /// An encoder method was called out of order: `begin(header:)` twice, a row before it, anything after the end or a failed write.
        case encoderState(String)
        /// A table declares another number of merges than it has columns.
        case mergeCountMismatch(columns: Int, merges: Int)
        /// A custom merge has a built-in merge's name, under which it would read back as the built-in.
        case customMergeShadowsBuiltIn(String)
        /// A register of a column that is not a counter carries counter contributions.
        case contributionsOnNonCounterColumn(merge: String)
        /// A counter contribution has no stamp, so it names no node.
        case contributionWithoutStamp
        /// A register's contributions are not in increasing node-id order.
        case contributionsOutOfOrder(previous: NodeID, found: NodeID)
        /// A node contributes to one counter register twice.
        case duplicateContribution(NodeID)
        /// A causal length is above ``Liveness/maxCausalLength``.
        case causalLengthTooLarge(UInt64)
        /// A stamp's clock reading does not fit the 63 bits a hybrid logical clock uses.
        case clockOutOfRange(UInt64)
        /// The release a changeset says its format needs is not the one that format names.
        case releaseMismatch(format: UInt16, expected: String, found: String)
        /// A row's seen list has a stamp for a column with no register, or one that does not merge last-writer-wins.
        case seenWithoutRegister
        /// A row's seen stamp is above the stamp of the write that saw it.
        case seenAfterWrite(seen: Stamp, write: Stamp)
        /// A row's seen list starts with a tag other than 0 (unknown), 1 (a list follows) or 2 (none).
        case unknownSeenTag(UInt8)

        /// What is wrong, in a clause that completes the ``ChangesetError`` message around it.
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
            case .unknownValueTag(let tag):
                "value tag \(tag) is not one of 0 (null), 1 (integer), 2 (real), 3 (text), 4 (blob)"
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
            case .rowCountMismatch(let stored, let counted):
                "the end record counts \(stored) rows but \(counted) were read"
            case .varintTooLong: "the variable-length integer is longer than 10 bytes or exceeds 64 bits"
            case .nonMinimalVarint: "the variable-length integer is not in its shortest form"
            case .lengthTooLarge(let declared, let limit):
                "the declared length \(declared) exceeds the limit of \(limit) bytes"
            case .countTooLarge(let declared, let limit): "the declared count \(declared) exceeds the limit of \(limit)"
            case .invalidJSON(let detail): "this is not valid JSON: \(detail)"
            case .wrongType(let expected, let found): "expected \(expected) but found \(found)"
            case .missingKey(let key): "the object lacks the required key \"\(key)\""
            case .unexpectedKey(let key): "the key \"\(key)\" is not part of the format"
            case .duplicateKey(let key): "the key \"\(key)\" appears twice"
            case .numberOutOfRange(let text):
                "the number \(text) is outside its field's range (an integer within 64 bits, or a finite real)"
            case .invalidNodeID(let text): "\"\(text)\" is not a node id (32 hex digits)"
            case .invalidHex: "the text is not pairs of hex digits (0-9, a-f)"
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
            case .releaseMismatch(let format, let expected, let found):
                "format \(format) names Concord \(expected) as the oldest release that reads it, "
                    + "but this changeset names \(found.debugDescription)"
            case .seenWithoutRegister:
                "a seen stamp is given for a column without a register or whose merge is not 'lww'; "
                    + "only a last-writer-wins write replaces a value it may have seen"
            case .seenAfterWrite(let seen, let write):
                "the seen stamp \(seen) is above the stamp \(write) of the write that saw it; "
                    + "a write only sees what came before it"
            case .unknownSeenTag(let tag):
                "the seen tag \(tag) is not 0 (unknown), 1 (a list follows) or 2 (none saw anything)"
            }
        }
    }

    /// What failed, where (byte offset and field, or path), and how to get a good changeset.
    public var description: String {
        switch self {
        case .notAChangeset(let prefix):
            let shown =
                prefix.isEmpty ? "is empty" : "starts with bytes " + prefix.map { hex2($0) }.joined(separator: " ")
            return "This is not a Concord changeset: it \(shown), not the magic \"CNCD\" of a binary changeset "
                + "nor the '{' of a JSON one. Check that the right file was passed; if it was, export the changeset again."
        case .unsupportedVersion(let found, let supported, let needs):
            let this = "this build, Concord \(ConcordRelease.current), reads \(formatList(supported))"
            if found < UInt64(supported.min() ?? 0) {
                return "This changeset says it is in format \(found), which no Concord release writes (\(this)): "
                    + "it is damaged; export it again."
            }
            if let needs {
                return "This changeset needs Concord ≥ \(needs) (it is in format \(found); \(this)): "
                    + "update Concord on this device."
            }
            return "This changeset is in format \(found), and it does not say which Concord release reads it "
                + "(\(this)): update Concord on this device, or export the changeset again if the file is damaged."
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
            return
                "Cannot \(operation) '\(path)': \(reason). Check the path, its permissions and the free space, then retry."
        }
    }
}

/// `formats 1–3` for a run of formats, `format 1` for one, `formats 1, 3` otherwise.
private func formatList(_ formats: [UInt16]) -> String {
    let sorted = formats.sorted()
    guard let first = sorted.first, let last = sorted.last else { return "no format" }
    if sorted.count == 1 { return "format \(first)" }
    if Int(last) - Int(first) == sorted.count - 1 && Set(sorted).count == sorted.count {
        return "formats \(first)–\(last)"
    }
    return "formats " + sorted.map(String.init).joined(separator: ", ")
}

/// `0x` and eight uppercase hex digits.
func hex32(_ value: UInt32) -> String {
    "0x" + (0..<4).reversed().map { hex2(UInt8(truncatingIfNeeded: value >> ($0 * 8))) }.joined()
}
