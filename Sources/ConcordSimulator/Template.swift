import Concord
import ConcordTesting
import Synchronization

/// An SQL template split into text and placeholders, parsed once so a bad placeholder is caught when
/// the scenario loads rather than when a step draws it.
///
/// Placeholders draw from the step's choices: `{A..B}` an integer in the range,
/// `{word}` one of a few words, `{key}` a key for an untyped key column (see
/// ``keys``), `{value}` any value SQLite can hold (ConcordTesting's
/// `Gen.anySQLiteValue`, with large values of a few KiB), and `{union}` a JSON
/// array for a `union` column (`Gen.unionArray`, and one time in twelve `Gen.notAUnionArray`); the last two are written as
/// literals that store exactly the value drawn (`SQLiteValue.sqlLiteral`).
/// `{name:X}` is the quoted identifier the name `X` stands for (see
/// ``WorkloadNames``; a workload substitutes its names before it renders).
/// Text between double quotes is an identifier and holds no placeholder, so a
/// drawn name can hold any character.
///
/// ```swift
/// let template = try Template("UPDATE lists SET name = '{word}' WHERE id = 'l{1..3}'")
/// let sql = template.render(&source)   // e.g. "UPDATE lists SET name = 'milk' WHERE id = 'l2'"
/// ```
struct Template {
    enum Part {
        case text(String)
        case range(ClosedRange<Int>)
        case word
        case key
        case value
        case union
        case name(String)
    }
    let parts: [Part]

    /// The lengths of the large text and blobs `{value}` draws now and then.
    static let largeLengths = 1_024...6_144

    init(_ template: String) throws {
        var parts: [Part] = []
        var text = String.UnicodeScalarView()
        // Scalars, not characters: a quote followed by a combining mark is one `Character`.
        let scalars = Array(template.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\"" {
                // A quoted identifier (`""` inside it is a quote), copied as it is.
                var end = index + 1
                while end < scalars.count {
                    if scalars[end] == "\"" {
                        guard end + 1 < scalars.count, scalars[end + 1] == "\"" else { break }
                        end += 1
                    }
                    end += 1
                }
                let stop = min(end + 1, scalars.count)
                text.append(contentsOf: scalars[index..<stop])
                index = stop
                continue
            }
            guard scalar == "{" else {
                text.append(scalar)
                index += 1
                continue
            }
            guard let close = scalars[index...].firstIndex(of: "}") else {
                throw ScenarioError("operation '\(template)' opens a placeholder with '{' and never closes it")
            }
            parts.append(.text(String(text)))
            text = String.UnicodeScalarView()
            var name = String.UnicodeScalarView()
            name.append(contentsOf: scalars[(index + 1)..<close])
            parts.append(try Self.placeholder(String(name), in: template))
            index = close + 1
        }
        parts.append(.text(String(text)))
        self.parts = parts
    }

    private static func placeholder(_ name: String, in template: String) throws -> Part {
        switch name {
        case "word": return .word
        case "key": return .key
        case "value": return .value
        case "union": return .union
        default: break
        }
        if name.hasPrefix("name:"), name.count > 5 { return .name(String(name.dropFirst(5))) }
        if let dots = name.range(of: ".."), let low = Int(name[..<dots.lowerBound]),
            let high = Int(name[dots.upperBound...]), low <= high
        {
            return .range(low...high)
        }
        throw ScenarioError(
            "operation '\(template)' has placeholder '{\(name)}'; use {word}, {key}, {value}, {union}, "
                + "{name:X} or {A..B} with A <= B")
    }

    /// The template `text` parsed, from a cache the process shares (`nil` when it does not parse): a plan
    /// draws an operation per write step, and parsing its template again each time cost more than
    /// rendering it. Starts over past a few hundred templates (workload names are drawn per seed).
    /// Keyed by the text's bytes: a `String` key took a template naming column `Å` (U+00C5) for one naming
    /// `Å` (U+212B), which SQLite tells apart, and a run rendered another run's names.
    static func parsed(_ text: String) -> Template? {
        let key = SQLiteName.Key(text)
        if let known = cache.withLock({ $0[key] }) { return known }
        let template = try? Template(text)
        cache.withLock { templates in
            if templates.count >= 512 { templates.removeAll() }
            templates[key] = template
        }
        return template
    }

    private static let cache = Mutex<[SQLiteName.Key: Template?]>([:])

    func render(_ source: inout ChoiceSource) -> String {
        parts.map { part in
            switch part {
            case .text(let text): text
            case .range(let range): String(source.int(in: range))
            case .word: Workload.words[source.int(in: 0...Workload.words.count - 1)]
            case .key: Self.keys[source.int(in: 0...Self.keys.count - 1)].sqlLiteral
            case .value: Gen.anySQLiteValue(largeLengths: Self.largeLengths).generate(using: &source).sqlLiteral
            case .union: Self.unions.generate(using: &source).sqlLiteral
            case .name(let name): quoteIdentifier(name)
            }
        }.joined()
    }

    /// What `{union}` draws: mostly sets, sometimes a value that is not one (which a union reads as empty).
    static let unions = Gen<SQLiteValue>.frequency([(weight: 1, gen: .notAUnionArray), (weight: 11, gen: .unionArray)])

    /// The keys `{key}` draws from: values an untyped key column keeps apart, though some have the same
    /// bytes or the same characters; and the integer `1`, a key Concord refuses (DESIGN.md: a key is TEXT
    /// or BLOB), though a foreign key may still hold it.
    static let keys: [SQLiteValue] = [
        "1", "2", "3", .blob([0x31]), .blob([0x32]), "\u{E9}", .text(SQLiteText(bytes: [0x65, 0xCC, 0x81])), 1,
    ]
}
