import Concord
import ConcordTesting

/// The table and column names of one run: each name a workload writes as `{name:X}` mapped to the
/// identifier that stands for it, `X` itself or, for a workload with `"names": "drawn"`, one that
/// ConcordTesting's identifier generator drew for the seed.
///
/// Apps name their tables and columns with keywords, quotes, spaces, accents
/// and emoji, and with names that extend one another (`a`, `a_`, `a_rows`);
/// code that splices a name into SQL unquoted, or compares two names
/// carelessly, breaks on them. A workload spells each name once, logically,
/// and a run substitutes the drawn identifiers, quoted, into its schema and
/// templates. The drawn names are distinct both as SQLite compares names
/// (ASCII case folded) and as Swift compares strings (canonical equivalence),
/// since the oracle keys tables and columns by Swift strings.
///
/// ```swift
/// let names = WorkloadNames(logical: ["items", "id"], drawn: ["order", "e\u{301}"])
/// names.substitute(in: "SELECT {name:id} FROM {name:items}")   // SELECT "e\u{301}" FROM "order"
/// ```
struct WorkloadNames {
    /// Logical name → the identifier it stands for.
    private var identifiers: [String: String] = [:]

    /// Names that stand for themselves.
    init() {}

    /// `logical[i]` stands for `drawn[i]`; a logical name beyond `drawn` stands for itself.
    init(logical: [String], drawn: [String]) {
        for (name, identifier) in zip(logical, drawn) { identifiers[name] = identifier }
    }

    /// The identifier `logical` stands for.
    func identifier(_ logical: String) -> String { identifiers[logical] ?? logical }

    /// `text` with every `{name:X}` replaced by the quoted identifier `X` stands for.
    func substitute(in text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{name:"), let close = rest[open.upperBound...].firstIndex(of: "}") {
            result += rest[..<open.lowerBound]
            result += quoteIdentifier(identifier(String(rest[open.upperBound..<close])))
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// The logical names `text` uses, in order of first use, each once.
    static func logicalNames(in text: String, into names: inout [String]) {
        var rest = Substring(text)
        while let open = rest.range(of: "{name:"), let close = rest[open.upperBound...].firstIndex(of: "}") {
            let name = String(rest[open.upperBound..<close])
            if !names.contains(name) { names.append(name) }
            rest = rest[rest.index(after: close)...]
        }
    }

    /// Identifiers for `workload`'s ``Workload/logicalNames``, drawn from `source`: distinct as SQLite
    /// and as Swift compare names, none empty (Concord refuses to sync a table or column without a name,
    /// which changesets could not name), and no table's starting with a quote character.
    ///
    /// SQLite 3.40.1 (Debian 12's) corrupts its heap when a parent row is deleted with foreign keys
    /// enforced and a child table's name starts with `"`, `'`, `` ` `` or `[`: building the key's
    /// action it dequotes the bare table name, and runs past its end looking for the closing quote.
    /// Such an app crashes with or without Concord, so those table names get an `x` in front.
    ///
    /// Tables or views named both `json_each` and `json_tree` leave no JSON function for a union column's
    /// guard, and Concord refuses to sync such a table (`HiddenFunctionNamesTests`): the second name drawn
    /// so, of a table, view or column alike, gets a `_`.
    static func draw(for workload: Workload, using source: inout ChoiceSource) -> [String] {
        let logical = workload.logicalNames
        guard !logical.isEmpty else { return [] }
        let tables = Set(
            (workload.tables ?? []).map(\.name) + (workload.versions ?? []).flatMap { $0.tables ?? [] }.map(\.name))
        var names: [String] = []
        for (index, var name) in Gen<String>.sqliteIdentifiers(count: logical.count...logical.count)
            .generate(using: &source).enumerated()
        {
            if name.isEmpty { name = "_" }
            if tables.contains(logical[index]), let first = name.unicodeScalars.first,
                "\"'`[".unicodeScalars.contains(first)
            {
                name = "x" + name
            }
            // Whatever the names name: a view hides a function as a table does (the wide app names one, and
            // `batched-wide` seed 17000204 drew a view `json_each` beside a table `JSON_TREE`).
            let walkers = ["json_each", "json_tree"]
            if walkers.contains(name.lowercased()), names.contains(where: { walkers.contains($0.lowercased()) }) {
                name += "_"
            }
            while names.contains(where: { $0 == name || SQLiteName.same($0, name) }) { name += "_" }
            names.append(name)
        }
        return names
    }
}
