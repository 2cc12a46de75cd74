import Concord
import ConcordTesting

/// An app for simulated devices to run: its schema, the tables it syncs and
/// how, and the SQL operations its users perform.
///
/// Operations are SQL templates whose placeholders are filled from the
/// simulation's choices: `{1..3}` an integer in the range, `{word}` one of a
/// few words, `{key}`, `{value}` and `{union}` keys and values from the whole
/// value space, `{name:X}` a table or column name, drawn per seed with
/// ``names`` (see `Template`). Small ranges keep the key space small, so
/// devices collide often. An operation the schema refuses (a reminder for a list this device
/// just deleted) is the app's error and changes nothing.
///
/// Apps evolve while their users' devices run different releases, so a
/// workload may list later ``versions``: each a migration the app runs on its
/// own database, tables to sync from then on (or merges declared on new
/// columns), and operations that become available (see `Workload+Versions`).
/// The schema, tables and operations above are version 1.
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
        /// Column name → merge name (`lww`, `max`, `min`, `counter`, `union`, or a user-defined merge of
        /// ``Workload/mergeFunctions``, such as `longest`).
        public var merges: [String: String]?

        /// A synced table; without `policy` or `merges` it syncs by column, every column last-writer-wins.
        public init(name: String, policy: String? = nil, merges: [String: String]? = nil) {
            self.name = name
            self.policy = policy
            self.merges = merges
        }

        /// Enables sync on this table of `replica` as declared; on a table that syncs already, that picks
        /// up its added columns and the merges declared on them.
        func enable(on replica: Replica) throws {
            try replica.enableSync(
                on: name, policy: TablePolicy(rawValue: policy ?? "column") ?? .column,
                merges: (merges ?? [:]).mapValues { ColumnMerge(name: $0) })
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
    /// Later releases of the app, in order: `versions[0]` is version 2. With `app`, they follow the built-in app.
    public var versions: [Version]?
    /// `drawn`: each name written `{name:X}` stands for an identifier drawn per seed (`WorkloadNames`);
    /// `plain` (the default, but for the `wide` app): each stands for itself.
    public var names: String?

    /// A workload: either a built-in `app`, or a `schema`, `tables` and `operations` of its own; either may
    /// be followed by later `versions`.
    public init(
        app: String? = nil, schema: String? = nil, tables: [Table]? = nil, operations: [String]? = nil,
        versions: [Version]? = nil, names: String? = nil
    ) {
        self.app = app
        self.schema = schema
        self.tables = tables
        self.operations = operations
        self.versions = versions
        self.names = names
    }

    /// The built-in apps by name.
    public static let builtIn: [String: Workload] = ["reminders": .reminders, "counter": .counter, "wide": .wide]

    /// This workload with a built-in app's definition filled in (its ``versions`` kept); throws for an
    /// unknown app, a missing part, or a table, merge, template or migration that cannot work.
    public func resolved() throws -> Workload {
        if let app {
            guard var base = Self.builtIn[app] else {
                throw ScenarioError(
                    "unknown app '\(app)'; the built-in apps are \(Self.builtIn.keys.sorted().joined(separator: ", "))")
            }
            base.versions = versions
            base.names = names ?? base.names
            try base.validateNames()
            try base.validateVersions()
            return base
        }
        guard schema != nil, let tables, !tables.isEmpty, let operations, !operations.isEmpty else {
            throw ScenarioError("a workload needs either \"app\" or all of \"schema\", \"tables\" and \"operations\"")
        }
        try Self.validate(tables)
        for template in operations { _ = try Template(template) }
        try validateNames()
        try validateVersions()
        return self
    }

    /// Checks that each table's policy and merges are ones a scenario can name; `context` starts a message.
    static func validate(_ tables: [Table], context: String = "") throws {
        for table in tables {
            if let policy = table.policy, TablePolicy(rawValue: policy) == nil {
                throw ScenarioError("\(context)table '\(table.name)' has policy '\(policy)'; use \"column\" or \"row\"")
            }
            for (column, merge) in (table.merges ?? [:]).sorted(by: { $0.key < $1.key })
            where !ColumnMerge.builtIns.contains(ColumnMerge(name: merge)) && functionsByName[merge] == nil {
                throw ScenarioError(
                    "\(context)table '\(table.name)' merges \(column) with '\(merge)'; a scenario can use "
                        + (ColumnMerge.builtIns.map(\.name) + mergeFunctions.map(\.name)).joined(separator: ", "))
            }
        }
    }

    /// Creates the schema of version 1 on `replica` and enables sync on every table.
    func install(on replica: Replica) throws {
        try replica.database.execute(schema ?? "")
        for table in tables ?? [] { try table.enable(on: replica) }
    }

    /// One random operation of those a device at `version` can perform, as SQL.
    func operation(_ source: inout ChoiceSource, version: Int = 1) -> String {
        let templates = operations(at: version)
        let template = templates[source.int(in: 0...templates.count - 1)]
        return Template.parsed(template)?.render(&source) ?? template
    }

    /// Words `{word}` draws from.
    static let words = ["milk", "call", "paint", "read", "plan"]
}
