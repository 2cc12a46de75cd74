import Concord

/// A row's key as the command line spells it: `X'…'` (hex digits in pairs) for a BLOB key, `'…'` (an SQL
/// string literal, quotes doubled) for a TEXT key, and any other text for that TEXT key as it is.
///
/// Why the quoted form: a TEXT key can read like a BLOB literal (`X'61'`), and printed as it is, it could
/// not be told from that BLOB key nor selected with `--key`. Printed keys use ``spelling(of:)``, which
/// quotes exactly those, so what a listing prints is what `--key` takes.
///
/// ```swift
/// try RowKey(argument: "X'61'").value      // .blob([0x61])
/// try RowKey(argument: "'X''61'''").value  // .text("X'61'")
/// RowKey.spelling(of: .text("X'61'"))      // "'X''61'''"
/// ```
struct RowKey: ArgumentValue, Equatable {
    let value: SQLiteValue

    init(argument: String) throws(InvalidArgument) {
        let utf8 = Array(argument.utf8)
        if Self.looksLikeBlob(utf8) {
            guard let bytes = Hex.decode(String(decoding: utf8[2..<(utf8.count - 1)], as: UTF8.self)) else {
                throw InvalidArgument(
                    "X'…' takes hex digits in pairs for a BLOB key; for a TEXT key spelled so, quote it as SQL does: "
                        + Self.quoted(argument))
            }
            value = .blob(bytes)
        } else if Self.isQuoted(utf8) {
            let inner = argument.dropFirst().dropLast()
            guard !inner.replacing("''", with: "").contains("'") else {
                throw InvalidArgument(
                    "a quoted key doubles each quote inside it, as SQL does: \(Self.quoted(argument))")
            }
            value = .text(String(inner).replacing("''", with: "'"))
        } else {
            value = .text(argument)
        }
    }

    var argumentText: String { Self.spelling(of: value) }

    /// How listings print `key`: TEXT as it is unless it would read as another spelling's (then quoted),
    /// a BLOB as `X'…'`, anything else as SQL prints it.
    static func spelling(of key: SQLiteValue) -> String {
        guard let text = key.textValue else { return key.description }
        let utf8 = Array(text.utf8)
        return looksLikeBlob(utf8) || isQuoted(utf8) ? quoted(text) : text
    }

    private static func quoted(_ text: String) -> String { "'" + text.replacing("'", with: "''") + "'" }

    private static func looksLikeBlob(_ utf8: [UInt8]) -> Bool {
        utf8.count >= 3 && (utf8[0] == UInt8(ascii: "x") || utf8[0] == UInt8(ascii: "X"))
            && utf8[1] == UInt8(ascii: "'") && utf8.last == UInt8(ascii: "'")
    }

    private static func isQuoted(_ utf8: [UInt8]) -> Bool {
        utf8.count >= 2 && utf8.first == UInt8(ascii: "'") && utf8.last == UInt8(ascii: "'")
    }
}
