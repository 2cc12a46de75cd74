import Concord
import ConcordTesting

/// An app for simulated devices to run: its schema, the tables it syncs and
/// how, and the SQL operations its users perform.
///
/// Operations are SQL templates whose placeholders are filled from the
/// simulation's choices: `{1..3}` an integer in the range, `{word}` one of a
/// few words. Small ranges keep the key space small, so devices collide
/// often. An operation the schema refuses (a reminder for a list this device
/// just deleted) is the app's error and changes nothing.
///
/// ```swift
/// let app = Workload.reminders
/// let sql = app.operation(&source)   // e.g. "UPDATE reminders SET done = 1 - done WHERE id = 'r3'"
/// ```
public struct Workload: Codable, Equatable, Sendable {
    /// How one table is synced.
    public struct Table: Codable, Equatable, Sendable {
        /// The table's name in the schema.
        public var name: String
        /// `column` (the default) or `row`.
        public var policy: String?
        /// Column name → merge name (`lww`, `max`, `min`, `counter`, `union`).
        public var merges: [String: String]?

        /// A synced table; without `policy` or `merges` it syncs by column, every column last-writer-wins.
        public init(name: String, policy: String? = nil, merges: [String: String]? = nil) {
            self.name = name
            self.policy = policy
            self.merges = merges
        }
    }

    /// A built-in app by name (`reminders`, `counter`); when set, the other fields are taken from it.
    public var app: String?
    /// SQL creating the app's tables.
    public var schema: String?
    /// The synced tables, parents before children.
    public var tables: [Table]?
    /// SQL templates, drawn uniformly (list one twice to draw it twice as often).
    public var operations: [String]?

    /// A workload: either a built-in `app`, or a `schema`, `tables` and `operations` of its own.
    public init(app: String? = nil, schema: String? = nil, tables: [Table]? = nil, operations: [String]? = nil) {
        self.app = app
        self.schema = schema
        self.tables = tables
        self.operations = operations
    }

    /// The built-in apps by name.
    public static let builtIn: [String: Workload] = ["reminders": .reminders, "counter": .counter]

    /// This workload with a built-in app's definition filled in; throws for an unknown app or a missing part.
    public func resolved() throws -> Workload {
        if let app {
            guard let base = Self.builtIn[app] else {
                throw ScenarioError(
                    "unknown app '\(app)'; the built-in apps are \(Self.builtIn.keys.sorted().joined(separator: ", "))")
            }
            return base
        }
        guard schema != nil, let tables, !tables.isEmpty, let operations, !operations.isEmpty else {
            throw ScenarioError("a workload needs either \"app\" or all of \"schema\", \"tables\" and \"operations\"")
        }
        for table in tables {
            if let policy = table.policy, TablePolicy(rawValue: policy) == nil {
                throw ScenarioError("table '\(table.name)' has policy '\(policy)'; use \"column\" or \"row\"")
            }
            for (column, merge) in (table.merges ?? [:]).sorted(by: { $0.key < $1.key })
            where !ColumnMerge.builtIns.contains(ColumnMerge(name: merge)) {
                throw ScenarioError(
                    "table '\(table.name)' merges \(column) with '\(merge)'; a scenario can use "
                        + ColumnMerge.builtIns.map(\.name).joined(separator: ", "))
            }
        }
        for template in operations { _ = try Template(template) }
        return self
    }

    /// Creates the schema on `replica` and enables sync on every table.
    func install(on replica: Replica) throws {
        try replica.database.execute(schema ?? "")
        for table in tables ?? [] {
            try replica.enableSync(
                on: table.name, policy: TablePolicy(rawValue: table.policy ?? "column") ?? .column,
                merges: (table.merges ?? [:]).mapValues { ColumnMerge(name: $0) })
        }
    }

    /// One random operation, as SQL.
    func operation(_ source: inout ChoiceSource) -> String {
        let templates = operations ?? []
        let template = templates[source.int(in: 0...templates.count - 1)]
        return (try? Template(template))?.render(&source) ?? template
    }

    /// Words `{word}` draws from.
    static let words = ["milk", "call", "paint", "read", "plan"]
}

/// An SQL template split into text and placeholders.
struct Template {
    enum Part {
        case text(String)
        case range(ClosedRange<Int>)
        case word
    }
    let parts: [Part]

    init(_ template: String) throws {
        var parts: [Part] = []
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            parts.append(.text(String(rest[..<open])))
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw ScenarioError("operation '\(template)' opens a placeholder with '{' and never closes it")
            }
            let name = rest[rest.index(after: open)..<close]
            if name == "word" {
                parts.append(.word)
            } else if let dots = name.range(of: ".."), let low = Int(name[..<dots.lowerBound]),
                let high = Int(name[dots.upperBound...]), low <= high
            {
                parts.append(.range(low...high))
            } else {
                throw ScenarioError(
                    "operation '\(template)' has placeholder '{\(name)}'; use {word} or {A..B} with A <= B")
            }
            rest = rest[rest.index(after: close)...]
        }
        parts.append(.text(String(rest)))
        self.parts = parts
    }

    func render(_ source: inout ChoiceSource) -> String {
        parts.map { part in
            switch part {
            case .text(let text): text
            case .range(let range): String(source.int(in: range))
            case .word: Workload.words[source.int(in: 0...Workload.words.count - 1)]
            }
        }.joined()
    }
}

extension Workload {
    /// Lists; reminders that cascade with their list; subtasks; tags and a reminder-tag join table; a cover blob per list.
    public static let reminders = Workload(
        schema: """
            CREATE TABLE lists (id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL, cover BLOB);
            CREATE TABLE reminders (id TEXT PRIMARY KEY NOT NULL,
                list_id TEXT NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
                title TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0, priority INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE subtasks (id TEXT PRIMARY KEY NOT NULL,
                reminder_id TEXT NOT NULL REFERENCES reminders(id) ON DELETE CASCADE, title TEXT NOT NULL);
            CREATE TABLE tags (id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL);
            CREATE TABLE reminder_tags (id TEXT PRIMARY KEY NOT NULL,
                reminder_id TEXT NOT NULL REFERENCES reminders(id) ON DELETE CASCADE,
                tag_id TEXT NOT NULL REFERENCES tags(id) ON DELETE CASCADE);
            """,
        tables: ["lists", "reminders", "subtasks", "tags", "reminder_tags"].map { Table(name: $0) },
        operations: [
            "INSERT INTO lists (id, name, cover) VALUES ('l{1..3}', '{word}', x'0{0..3}')",
            "UPDATE lists SET name = '{word}' WHERE id = 'l{1..3}'",
            "UPDATE lists SET cover = x'1{0..9}' WHERE id = 'l{1..3}'",
            "DELETE FROM lists WHERE id = 'l{1..3}'",
            "INSERT INTO reminders (id, list_id, title) VALUES ('r{1..6}', 'l{1..3}', '{word}')",
            "INSERT INTO reminders (id, list_id, title) VALUES ('r{1..6}', 'l{1..3}', '{word}')",
            "UPDATE reminders SET done = 1 - done WHERE id = 'r{1..6}'",
            "UPDATE reminders SET title = '{word}', priority = {0..3} WHERE id = 'r{1..6}'",
            "UPDATE reminders SET list_id = 'l{1..3}' WHERE id = 'r{1..6}'",
            "DELETE FROM reminders WHERE id = 'r{1..6}'",
            "INSERT INTO subtasks (id, reminder_id, title) VALUES ('s{1..4}', 'r{1..6}', '{word}')",
            "DELETE FROM subtasks WHERE id = 's{1..4}'",
            "INSERT INTO tags (id, name) VALUES ('t{1..3}', '{word}')",
            "INSERT INTO reminder_tags (id, reminder_id, tag_id) VALUES ('rt{1..6}', 'r{1..6}', 't{1..3}')",
            "DELETE FROM tags WHERE id = 't{1..3}'",
        ])

    /// Counters merged as counters (concurrent increments add up) beside the same counts merged
    /// last-writer-wins, a best score merged by max, and themes under the row policy (a theme's
    /// colours always come from one write).
    public static let counter = Workload(
        schema: """
            CREATE TABLE counters (id TEXT PRIMARY KEY NOT NULL, label TEXT NOT NULL,
                taps INTEGER NOT NULL DEFAULT 0, taps_lww INTEGER NOT NULL DEFAULT 0, best INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE themes (id TEXT PRIMARY KEY NOT NULL, background TEXT, foreground TEXT);
            """,
        tables: [
            Table(name: "counters", merges: ["taps": "counter", "best": "max"]), Table(name: "themes", policy: "row"),
        ],
        operations: [
            "INSERT INTO counters (id, label) VALUES ('c{1..3}', '{word}')",
            "UPDATE counters SET taps = taps + {1..3}, taps_lww = taps_lww + {1..3} WHERE id = 'c{1..3}'",
            "UPDATE counters SET taps = taps + {1..3}, taps_lww = taps_lww + {1..3} WHERE id = 'c{1..3}'",
            "UPDATE counters SET taps = taps - 1, taps_lww = taps_lww - 1 WHERE id = 'c{1..3}'",
            "UPDATE counters SET best = max(best, {0..20}) WHERE id = 'c{1..3}'",
            "UPDATE counters SET label = '{word}' WHERE id = 'c{1..3}'",
            "DELETE FROM counters WHERE id = 'c{1..3}'",
            "INSERT OR REPLACE INTO themes (id, background, foreground) VALUES ('t{1..2}', '{word}', '{word}')",
            "UPDATE themes SET foreground = '{word}' WHERE id = 't{1..2}'",
        ])
}
