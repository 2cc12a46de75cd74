import ConcordCore

/// A row's key in Concord's JSON reports: TEXT as a JSON string, any other key as the JSON changeset
/// format writes a value (`{"blob": "61"}`, `{"textHex": "ff00"}`, `{"integer": 7}`).
///
/// Why: printed as one string, the TEXT key `X'61'` and the BLOB key `X'61'` — two rows — read the
/// same, and a program reading `concord sync --json` could not tell which one changed. A string is
/// always text, so the keys apps use most (UUIDs) read as they are; only the rare others carry a type.
///
/// ```swift
/// JSONKey(.text("r1"))     // "r1"
/// JSONKey(.blob([0x61]))   // {"blob": "61"}
/// ```
struct JSONKey: Encodable {
    let key: SQLiteValue

    init(_ key: SQLiteValue) { self.key = key }

    private struct Kind: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        if let text = key.textValue {
            var container = encoder.singleValueContainer()
            return try container.encode(text)
        }
        var container = encoder.container(keyedBy: Kind.self)
        switch key {
        case .null: try container.encodeNil(forKey: Kind(stringValue: "null"))
        case .integer(let value): try container.encode(value, forKey: Kind(stringValue: "integer"))
        case .real(let value): try container.encode(value.description, forKey: Kind(stringValue: "real"))
        case .text(let text): try container.encode(Hex.encode(text.bytes), forKey: Kind(stringValue: "textHex"))
        case .blob(let bytes): try container.encode(Hex.encode(bytes), forKey: Kind(stringValue: "blob"))
        }
    }
}
