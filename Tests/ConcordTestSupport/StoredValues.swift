import Concord

/// The two forms a changeset travels in.
public enum ChangesetForm: String, CaseIterable, Sendable {
    /// `encoded()` and `Changeset(decoding:)`.
    case binary
    /// `jsonData()` and `Changeset(json:)`.
    case json
}

/// Sends `target` everything of `source` it has not read, through the bytes of `form`, and applies it.
@discardableResult
public func deliver(from source: Replica, to target: Replica, as form: ChangesetForm) throws -> ApplyReport {
    let changes = try source.changes(since: target.peerVersion(source.nodeID))
    let received =
        switch form {
        case .binary: try Changeset(decoding: changes.encoded())
        case .json: try Changeset(json: changes.jsonData())
        }
    return try target.apply(received)
}

/// One stored value as SQLite holds it: read through the C API (bit for bit, so `-0.0`
/// is not `0.0`), and as SQL's `quote()`, `typeof()` and `hex()` show it.
public struct StoredCell: Hashable, Sendable, CustomStringConvertible {
    public let value: SQLiteValue
    public let quoted: SQLiteValue
    public let type: SQLiteValue
    public let hex: SQLiteValue

    public var description: String {
        "\(brief(value)) [typeof \(brief(type)), quote \(brief(quoted)), hex \(brief(hex))]"
    }
}

/// Every row of `table`, in key order, as the key then each of `columns`, each as a ``StoredCell``.
public func storedRows(of table: String, key: String, columns: [String], in database: Database) throws -> [[StoredCell]]
{
    let names = [key] + columns
    let selected = names.map { name in
        let c = quoteIdentifier(name)
        return "\(c), quote(\(c)), typeof(\(c)), hex(\(c))"
    }
    let rows = try database.query(
        "SELECT \(selected.joined(separator: ", ")) FROM \(quoteIdentifier(table)) ORDER BY \(quoteIdentifier(key))")
    return rows.map { row in
        names.indices.map {
            StoredCell(value: row[4 * $0], quoted: row[4 * $0 + 1], type: row[4 * $0 + 2], hex: row[4 * $0 + 3])
        }
    }
}

/// Where two tables' stored rows first differ, or `nil` when they are the same.
public func firstDifference(_ lhs: [[StoredCell]], _ rhs: [[StoredCell]], columns: [String]) -> String? {
    for (index, (left, right)) in zip(lhs, rhs).enumerated() where left != right {
        for (column, (a, b)) in zip(columns, zip(left, right)) where a != b {
            return "row \(index) (key \(brief(left[0].value))), column \(column): \(a) against \(b)"
        }
    }
    guard lhs.count == rhs.count else {
        let longer = lhs.count > rhs.count ? lhs : rhs
        return
            "\(lhs.count) rows against \(rhs.count); first extra key \(brief(longer[min(lhs.count, rhs.count)][0].value))"
    }
    return nil
}

/// A value described for a failure message: in full when short, else its type, length and first bytes.
/// Characters outside ASCII show as `\u{…}`, so that spellings that look alike read differently.
public func brief(_ value: SQLiteValue) -> String {
    let bytes: [UInt8] =
        switch value {
        case .text(let text): text.bytes
        case .blob(let bytes): bytes
        default: []
        }
    guard bytes.count > 48 else { return visible(value.description) }
    let head = bytes.prefix(16).map { Hex.encode([$0], uppercase: true) }.joined()
    return "\(value.typeName) of \(bytes.count) bytes starting X'\(head)'"
}

/// `text` with every character outside printable ASCII written as `\u{…}`.
public func visible(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
        if scalar.value >= 0x20 && scalar.value < 0x7F {
            out.unicodeScalars.append(scalar)
        } else {
            out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        }
    }
    return out
}
