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
        func flush() {
            if !bare.isEmpty, going { going = body(Word(text: bare, quoted: false)) }
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
            if character != "'", going { going = body(Word(text: text, quoted: true)) }
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
