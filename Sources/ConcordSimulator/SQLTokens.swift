import ConcordCore

/// The words of an SQL statement, enough to find the table it writes: string literals skipped, quoted
/// identifiers (`"…"`, `` `…` ``, `[…]`) read whole and unquoted, other words split at anything that
/// is not a letter, digit, `_` or `$`.
///
/// A statement the simulator generated names tables that a seed drew, which may
/// hold spaces, quotes or keywords (`"x""; into"`); splitting at whitespace
/// would read those wrong.
///
/// ```swift
/// SQLTokens.words(of: #"DELETE FROM "a ""b"" c" WHERE id = 'from'"#).map(\.text)
/// // ["DELETE", "FROM", "a \"b\" c", "WHERE", "id"]
/// ```
enum SQLTokens {
    struct Word {
        let text: String
        /// Whether it was a quoted identifier (never a keyword).
        let quoted: Bool
        /// Whether a `.` comes right before it (spaces aside): the second part of a qualified name, such as
        /// `t` in `main.t`.
        var qualified = false
    }

    static func words(of sql: String) -> [Word] {
        var words: [Word] = []
        forEachWord(of: sql) {
            words.append($0)
            return true
        }
        return words
    }

    /// Calls `body` with each word in turn, until it returns `false`: finding a statement's table reads
    /// only its first few words.
    static func forEachWord(of sql: String, _ body: (Word) -> Bool) {
        var going = true
        // Scalars, not characters: a quote followed by a combining mark is one `Character`.
        let characters = Array(sql.unicodeScalars)
        var index = 0
        var bare = ""
        // The last mark (not a space) since the last word.
        var mark: Unicode.Scalar?
        func emit(_ text: String, quoted: Bool) {
            if going { going = body(Word(text: text, quoted: quoted, qualified: mark == ".")) }
            mark = nil
        }
        func flush() {
            if !bare.isEmpty { emit(bare, quoted: false) }
            bare = ""
        }
        while index < characters.count, going {
            let character = characters[index]
            let closing: Unicode.Scalar? =
                switch character {
                case "'", "\"", "`": character
                case "[": "]"
                default: nil
                }
            guard let closing else {
                if isWordScalar(character) {
                    bare.unicodeScalars.append(character)
                } else {
                    flush()
                    if !character.properties.isWhitespace { mark = character }
                }
                index += 1
                continue
            }
            flush()
            var text = ""
            index += 1
            while index < characters.count {
                if characters[index] == closing {
                    // A doubled closing quote is one quote inside (not for `]`).
                    if closing != "]", index + 1 < characters.count, characters[index + 1] == closing {
                        text.unicodeScalars.append(closing)
                        index += 2
                        continue
                    }
                    break
                }
                text.unicodeScalars.append(characters[index])
                index += 1
            }
            index += 1
            if character == "'" { mark = character } else { emit(text, quoted: true) }
        }
        flush()
    }

    /// A letter, digit, `_` or `$` (ASCII answered without Unicode's tables).
    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x24, 0x5F: true
        case 0..<0x80: false
        default: scalar.properties.isAlphabetic || scalar.properties.numericType != nil
        }
    }
}

extension SQLTokens {
    /// `sql` with each string literal (`'…'`) and blob literal (`X'…'`) replaced by a `?` parameter, and
    /// the values to bind to them in order; `nil` when it holds none, or more than one statement, or a
    /// blob literal that is not whole bytes in hex (SQLite reports those; the literal text then runs).
    ///
    /// Numbers stay as they are: `ORDER BY 1` means a column, `ORDER BY ?` a constant, and
    /// SQLite reads some numeric literals (`-9223372036854775808`) as no bound value could say.
    ///
    /// ```swift
    /// SQLTokens.parameterized("UPDATE t SET a = 'x''y', b = X'00' WHERE id = 3")
    /// // ("UPDATE t SET a = ?, b = ? WHERE id = 3", [.text("x'y"), .blob([0])])
    /// ```
    static func parameterized(_ sql: String) -> (sql: String, values: [SQLiteValue])? {
        let bytes = Array(sql.utf8)
        var output: [UInt8] = []
        var values: [SQLiteValue] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "`"), UInt8(ascii: "["):
                // A quoted identifier, copied whole.
                let closing = byte == UInt8(ascii: "[") ? UInt8(ascii: "]") : byte
                var end = index + 1
                while end < bytes.count {
                    if bytes[end] == closing {
                        if closing != UInt8(ascii: "]"), end + 1 < bytes.count, bytes[end + 1] == closing {
                            end += 2
                            continue
                        }
                        break
                    }
                    end += 1
                }
                output += bytes[index..<min(end + 1, bytes.count)]
                index = end + 1
            case UInt8(ascii: "'"):
                var text: [UInt8] = []
                var end = index + 1
                while end < bytes.count {
                    if bytes[end] == UInt8(ascii: "'") {
                        guard end + 1 < bytes.count, bytes[end + 1] == UInt8(ascii: "'") else { break }
                        end += 1
                    }
                    text.append(bytes[end])
                    end += 1
                }
                guard end < bytes.count else { return nil }
                let isBlob =
                    output.last.map { $0 == UInt8(ascii: "X") || $0 == UInt8(ascii: "x") } ?? false
                    && !(output.dropLast().last.map(isWordByte) ?? false)
                if isBlob {
                    guard let blob = Hex.decode(String(decoding: text, as: UTF8.self)) else { return nil }
                    output.removeLast()
                    values.append(.blob(blob))
                } else {
                    values.append(.text(SQLiteText(bytes: text)))
                }
                output.append(UInt8(ascii: "?"))
                index = end + 1
            case UInt8(ascii: ";"):
                // One statement only: what follows must be blank.
                guard bytes[(index + 1)...].allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return nil }
                output.append(byte)
                index += 1
            case UInt8(ascii: "-") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "-"),
                UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                return nil  // Comments are left to SQLite.
            default:
                output.append(byte)
                index += 1
            }
        }
        guard !values.isEmpty else { return nil }
        return (String(decoding: output, as: UTF8.self), values)
    }

    /// Whether `byte` can be part of an unquoted word (ASCII letters, digits, `_`, `$`, or any byte of a
    /// multi-byte character).
    private static func isWordByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x24, 0x5F, 0x80...: true
        default: false
        }
    }
}
