import ConcordCore

extension Gen where Value == String {
    /// A table or column name that SQLite accepts when it is quoted (see
    /// Concord's `quoteIdentifier(_:)`), chosen to break code that splices names
    /// into SQL or compares them carelessly.
    ///
    /// SQLite takes any text but NUL as a quoted name, compares names
    /// ignoring the case of ASCII letters only, and reserves names starting
    /// with `sqlite_` for itself; Concord reserves `_concord_`. Every name
    /// this gives is accepted for a table, a column, an index or a trigger,
    /// and none is in either reserved namespace (use
    /// ``concordReservedIdentifier`` for those). Names come from five
    /// families, in order of simplicity:
    /// - short ASCII (`a`, `ab`), the simplest;
    /// - SQL keywords (`select`, `order`, `group`, `key`, `rowid`, `new`,
    ///   `old`, …), the names of SQLite's table-valued functions, which a
    ///   table of the same name hides (`json_each`, `pragma_table_xinfo`, …),
    ///   and the names of Concord's metadata columns (`pk`, `ver`,
    ///   `kh`, `cl`, `hlc`, `node`, `clh`, `cln`, `c0`, `h0`, `n0`, `o0`,
    ///   `v0`, `seq`, `tbl`, …), in either case;
    /// - names that extend one another (`a`, `a_rows`, `a_1`, `a1`, `key_hidden`);
    /// - punctuation: both quote characters, spaces, brackets, comment
    ///   openers, dots, semicolons (`a"b`, `x'; --`), and the empty name;
    /// - Unicode: accents precomposed and decomposed, letters whose Unicode
    ///   case mapping SQLite does not apply (`ß`, `İ`, `ı`, `Σ`/`ς`, the
    ///   Kelvin sign), emoji, right-to-left letters, zero-width characters.
    ///
    /// ```swift
    /// let table = Gen.sqliteIdentifier   // e.g. "order", "a_rows", "x\"y", "e\u{301}"
    /// try database.execute("CREATE TABLE \(quoteIdentifier(table.sample(seed: 1))) (id TEXT PRIMARY KEY)")
    /// ```
    public static var sqliteIdentifier: Gen<String> {
        let ascii = Gen<String>.string(alphabet: "ab", length: 1...3)
        let word = Gen<String> { source in
            let pool = source.bool() ? SQLiteIdentifierSpace.concordNames : SQLiteIdentifierSpace.keywords
            let name = pool[source.int(in: 0...pool.count - 1)]
            return source.bool(probability: 0.2) ? name.uppercased() : name
        }
        let extended = Gen<String> { source in
            let base = Gen<String>.frequency([(weight: 1, gen: ascii), (weight: 1, gen: word)]).generate(using: &source)
            let suffixes = SQLiteIdentifierSpace.suffixes
            return base + suffixes[source.int(in: 0...suffixes.count - 1)]
        }
        let punctuated = Gen<String> { source in
            let pieces = SQLiteIdentifierSpace.punctuation
            return Gen<String>.element(of: pieces).array(length: 0...5).generate(using: &source).joined()
        }
        let unicode = Gen<String> { source in
            let pieces = SQLiteIdentifierSpace.unicode
            return Gen<String>.element(of: pieces).array(length: 1...4).generate(using: &source).joined()
        }
        return frequency([
            (weight: 3, gen: ascii),
            (weight: 4, gen: word),
            (weight: 3, gen: extended),
            (weight: 3, gen: punctuated),
            (weight: 3, gen: unicode),
        ]).map(SQLiteIdentifierSpace.outsideReservedNamespaces)
    }

    /// Names for the tables of one schema or the columns of one table:
    /// distinct as SQLite compares names (ignoring ASCII case only), and
    /// often near one another.
    ///
    /// About half the names are derived from an earlier one: extended by a
    /// suffix (`a` → `a_rows`, `a1`, `a_1`), respelled in another Unicode
    /// normalization (`é` → `e` + U+0301: a different name to SQLite, the same
    /// `String` to Swift), or with a non-ASCII letter's case changed (`É` →
    /// `é`, again different to SQLite). A name that SQLite would take for an
    /// earlier one (`A` after `a`) gets `_` appended until it is new, so the
    /// array always has a length in `count`.
    ///
    /// ```swift
    /// let columns = Gen.sqliteIdentifiers(count: 1...5)   // e.g. ["é", "e\u{301}", "é_rows", "pk"]
    /// ```
    public static func sqliteIdentifiers(count: ClosedRange<Int>) -> Gen<[String]> {
        let recipe = Gen<(base: Int?, change: Int, fresh: String)> { source in
            if source.bool(probability: 0.5) {
                return (source.int(in: 0...64), source.int(in: 0...3), "")
            }
            return (nil, 0, Gen<String>.sqliteIdentifier.generate(using: &source))
        }
        return recipe.array(length: count).map { recipes in
            var names: [String] = []
            var taken: Set<[UInt8]> = []
            for recipe in recipes {
                var name = recipe.fresh
                if let base = recipe.base {
                    name =
                        names.isEmpty
                        ? "a" : SQLiteIdentifierSpace.near(names[base % names.count], change: recipe.change)
                }
                while taken.contains(SQLiteValueSpace.identifierFold(name)) { name += "_" }
                names.append(name)
                taken.insert(SQLiteValueSpace.identifierFold(name))
            }
            return names
        }
    }

    /// Names in Concord's reserved namespace: `_concord_` followed by
    /// anything, the prefix sometimes in other ASCII cases (`_CONCORD_`,
    /// `_Concord_`), since SQLite does not tell those apart; some spell the
    /// names of Concord's own objects (`_concord_1_rows`, `_concord_log`).
    ///
    /// Use them only to check that they are refused, or that an unrelated
    /// object so named does not get in the way of syncing other tables.
    ///
    /// ```swift
    /// let reserved = Gen.concordReservedIdentifier   // e.g. "_concord_x", "_CONCORD_1_rows"
    /// ```
    public static var concordReservedIdentifier: Gen<String> {
        Gen { source in
            let prefixes = ["_concord_", "_CONCORD_", "_Concord_", "_concorD_"]
            let prefix = prefixes[source.index(weights: [4, 1, 1, 1])]
            let rests = ["x", "1_rows", "1_hidden", "log", "tables", "state", "", "1_rows_kh", "2_insert", " ", "é"]
            let rest =
                source.bool(probability: 0.2)
                ? Gen<String>.sqliteIdentifier.generate(using: &source)
                : rests[source.int(in: 0...rests.count - 1)]
            return prefix + rest
        }
    }
}

/// The pools of names ``Gen/sqliteIdentifier`` draws from.
enum SQLiteIdentifierSpace {
    /// SQL keywords and names with a meaning in SQL or in triggers.
    static let keywords = [
        "select", "order", "group", "key", "table", "from", "where", "index", "primary", "default", "check",
        "references", "values", "null", "true", "false", "new", "old", "excluded", "rowid", "oid", "_rowid_",
        "main", "temp", "as", "on", "limit", "case", "when", "end", "begin", "trigger", "raise", "collate",
        "without", "strict", "glob", "like", "union", "replace", "abort", "count",
        // Names of SQLite's table-valued functions: a table so named hides the function from unqualified use.
        "json_each", "json_tree", "pragma_table_xinfo", "pragma_table_info", "pragma_foreign_key_list",
        "pragma_index_list", "pragma_index_info", "pragma_index_xinfo", "pragma_table_list",
    ]

    /// Names of Concord's metadata columns and tables' suffixes.
    static let concordNames = [
        "pk", "ver", "kh", "cl", "hlc", "node", "clh", "cln", "c0", "h0", "n0", "o0", "v0", "c1", "h1", "n1",
        "seq", "tbl", "op", "at", "mask", "col", "amount", "id", "idx", "layout", "version", "name", "columns",
        "policy", "merges", "file", "kind", "reason", "concord", "rows", "hidden", "zeros", "log",
    ]

    /// Suffixes that make one name extend another, including Concord's object suffixes.
    static let suffixes = [
        "_rows", "_1", "1", "_hidden", "_counters", "_logvalues", "_zeros", "_insert", "_update", "_delete",
        "_key", "_rows_kh", "s", " ", "_", ".x", "_c0",
    ]

    /// Pieces of punctuated names; the empty array of pieces is the empty name.
    static let punctuation = [
        "a", " ", "\"", "'", "`", "[", "]", ".", "-", ";", "(", ")", ",", "=", "\\", "%", "?", ":", "@", "$",
        "*", "/", "\t", "\n", "--", "/*", "*/", "\"\"", "''",
    ]

    /// Pieces of Unicode names.
    static let unicode = [
        "é", "e\u{301}", "É", "ß", "Σ", "σ", "ς", "İ", "ı", "😀", "中文", "א", "\u{200B}", "\u{FEFF}", "ﬁ",
        "Å", "\u{212B}", "\u{212A}", "k", "ǅ", "\u{301}", "\u{FFFF}",
    ]

    /// `name`, or `name` behind an `x` if it starts in SQLite's or Concord's reserved namespace.
    @Sendable static func outsideReservedNamespaces(_ name: String) -> String {
        let folded = SQLiteValueSpace.identifierFold(name)
        if folded.starts(with: Array("sqlite_".utf8)) || folded.starts(with: Array("_concord_".utf8)) {
            return "x" + name
        }
        return name
    }

    /// `name` changed in one small way (see ``Gen/sqliteIdentifiers(count:)``).
    static func near(_ name: String, change: Int) -> String {
        switch change {
        case 1:
            let respelled = SQLiteValueSpace.respelled(Array(name.utf8)).map { String(decoding: $0, as: UTF8.self) }
            return respelled ?? name + "1"
        case 2:
            let swapped = name.unicodeScalars.map { scalar -> String in
                let text = String(scalar)
                guard !scalar.isASCII else { return text }
                let lower = text.lowercased()
                let upper = text.uppercased()
                return text == lower ? (upper.unicodeScalars.count == 1 ? upper : text) : lower
            }.joined()
            return swapped.utf8.elementsEqual(name.utf8) ? name + "_1" : swapped
        case 3:
            return outsideReservedNamespaces(name + SQLiteIdentifierSpace.suffixes[name.utf8.count % suffixes.count])
        default:
            return name + "_rows"
        }
    }
}
