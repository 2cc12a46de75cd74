import Concord

/// A row's key as the command line spells it: `X'…'` (hex digits in pairs) for a BLOB key, `'…'` (an SQL
/// string literal, quotes doubled) for a TEXT key, `U&'…'` (SQL's Unicode escape string: `\XXXX` or
/// `\+XXXXXX` for a character, `\\` for a backslash, quotes doubled) for a TEXT key, and any other text for
/// that TEXT key as it is.
///
/// Listings print a key holding a control character (a newline, an escape sequence, NUL) or a
/// direction override in the `U&'…'` form: printed as it is, a peer's key could forge a line of the
/// listing or drive the terminal.
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
        } else if Self.looksEscaped(utf8) {
            guard let text = Self.unescaped(String(decoding: utf8[3..<(utf8.count - 1)], as: UTF8.self)) else {
                throw InvalidArgument(
                    "U&'…' takes \\XXXX or \\+XXXXXX (hex) for a character and \\\\ for a backslash, quotes doubled; "
                        + "for a TEXT key spelled so, quote it as SQL does: \(Self.quoted(argument))")
            }
            value = .text(text)
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
        if text.unicodeScalars.contains(where: needsEscape) { return escaped(text) }
        let utf8 = Array(text.utf8)
        return looksLikeBlob(utf8) || looksEscaped(utf8) || isQuoted(utf8) ? quoted(text) : text
    }

    private static func quoted(_ text: String) -> String { "'" + text.replacing("'", with: "''") + "'" }

    /// `text` (a value as a listing prints it) with each character ``needsEscape(_:)`` names written
    /// `\u{…}`, so that a peer's value can neither forge a line of the listing nor drive the terminal.
    static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if needsEscape(scalar) {
                result.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// C0 and C1 controls, DEL, and the characters that reorder text on a terminal.
    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || (0x202A...0x202E).contains(scalar.value)
            || (0x2066...0x2069).contains(scalar.value)
    }

    /// `text` as `U&'…'`, with every character ``needsEscape(_:)`` names written `\XXXX` or `\+XXXXXX`.
    private static func escaped(_ text: String) -> String {
        var result = "U&'"
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "'": result += "''"
            case _ where needsEscape(scalar):
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result +=
                    hex.count <= 4
                    ? "\\" + String(repeating: "0", count: 4 - hex.count) + hex
                    : "\\+" + String(repeating: "0", count: 6 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "'"
    }

    /// The text of a `U&'…'` body, or `nil` when an escape or a quote in it is malformed.
    private static func unescaped(_ body: String) -> String? {
        var scalars = Array(body.unicodeScalars)[...]
        var result = String.UnicodeScalarView()
        while let scalar = scalars.popFirst() {
            if scalar == "'" {
                guard scalars.popFirst() == "'" else { return nil }
                result.append("'")
            } else if scalar == "\\" {
                if scalars.first == "\\" {
                    scalars.removeFirst()
                    result.append("\\")
                    continue
                }
                let long = scalars.first == "+"
                if long { scalars.removeFirst() }
                let digits = String(String.UnicodeScalarView(scalars.prefix(long ? 6 : 4)))
                guard digits.unicodeScalars.count == (long ? 6 : 4), let value = UInt32(digits, radix: 16),
                    let decoded = Unicode.Scalar(value)
                else { return nil }
                scalars.removeFirst(long ? 6 : 4)
                result.append(decoded)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    private static func looksEscaped(_ utf8: [UInt8]) -> Bool {
        utf8.count >= 4 && (utf8[0] == UInt8(ascii: "u") || utf8[0] == UInt8(ascii: "U"))
            && utf8[1] == UInt8(ascii: "&") && utf8[2] == UInt8(ascii: "'") && utf8.last == UInt8(ascii: "'")
    }

    private static func looksLikeBlob(_ utf8: [UInt8]) -> Bool {
        utf8.count >= 3 && (utf8[0] == UInt8(ascii: "x") || utf8[0] == UInt8(ascii: "X"))
            && utf8[1] == UInt8(ascii: "'") && utf8.last == UInt8(ascii: "'")
    }

    private static func isQuoted(_ utf8: [UInt8]) -> Bool {
        utf8.count >= 2 && utf8.first == UInt8(ascii: "'") && utf8.last == UInt8(ascii: "'")
    }
}
