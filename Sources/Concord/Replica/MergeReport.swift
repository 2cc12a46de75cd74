@_spi(Testing) import ConcordCore

/// Which rows an apply changed in what the user tables show, table by table, so an app can refresh its screens.
///
/// Registers are Concord's business; an app shows rows. After a sync it needs
/// the keys whose shown row was inserted, updated, deleted, hidden (alive, but
/// a parent it needs went away on another device), shown again or parked —
/// including rows that changed only because another row did (a child hidden
/// with its deleted parent). Every row whose shown state an apply changed is
/// listed once, with the last word for it — up to ``MergeRecorder/limit``
/// rows: an apply that changes more (a first sync of a large table) reports
/// only that it did (``isComplete`` is false), so that a streamed import keeps
/// its memory bounded; the app then reads the changes from the version log
/// (``Replica/changedRows(since:)``).
///
/// ```swift
/// let report = try phone.apply(changes)
/// for table in report.changes.tables {
///     reload(table.name, keys: table.keys(.inserted) + table.keys(.updated) + table.keys(.shownAgain))
///     remove(table.name, keys: table.keys(.deleted) + table.keys(.hidden) + table.keys(.parked))
/// }
/// ```
public struct MergeReport: Hashable, Sendable, Encodable {
    /// One table's changed keys, in key order per kind of change.
    public struct Table: Hashable, Sendable, Encodable {
        /// The table's name.
        public var name: String
        /// The keys, per kind of change.
        public var changes: [ShownChange: [SQLiteValue]]

        /// The keys whose shown row changed as `change` says, in key order.
        public func keys(_ change: ShownChange) -> [SQLiteValue] { changes[change] ?? [] }

        /// The table and, per kind of change, its keys (see ``JSONKey``: TEXT as a string, any other key typed).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: DynamicKey.self)
            try container.encode(name, forKey: DynamicKey("table"))
            for change in ShownChange.allCases where !keys(change).isEmpty {
                try container.encode(keys(change).map(JSONKey.init), forKey: DynamicKey(change.rawValue))
            }
        }
    }

    /// The tables with a change, in name order (bytewise).
    public private(set) var tables: [Table] = []
    /// Whether ``tables`` lists every row the apply changed; false when more changed than a report holds.
    public private(set) var isComplete = true

    /// No change.
    public init() {}

    /// The report of what `recorder` noted.
    init(_ recorder: MergeRecorder) {
        tables = recorder.tables()
        isComplete = !recorder.overflowed
    }

    /// Whether no shown row changed.
    public var isEmpty: Bool { tables.isEmpty && isComplete }

    /// How many rows changed, as `change` says, in every table.
    public func count(_ change: ShownChange) -> Int { tables.reduce(0) { $0 + $1.keys(change).count } }

    /// The table's changes, if it has any.
    public subscript(table: String) -> Table? { tables.first { $0.name.utf8.elementsEqual(table.utf8) } }

    /// This report followed by `later`'s (a second apply): a row in both keeps the later word, except that a
    /// row inserted and then updated is still inserted, and one inserted and then deleted did not change.
    public func followed(by later: MergeReport) -> MergeReport {
        var words: [String: [SQLiteValue: ShownChange]] = [:]
        for table in tables {
            for (change, keys) in table.changes { for key in keys { words[table.name, default: [:]][key] = change } }
        }
        for table in later.tables {
            for (change, keys) in table.changes {
                for key in keys {
                    switch (words[table.name]?[key], change) {
                    case (.inserted?, .updated): continue
                    case (.inserted?, .deleted): words[table.name]?[key] = nil
                    default: words[table.name, default: [:]][key] = change
                    }
                }
            }
        }
        var combined = MergeReport()
        guard isComplete && later.isComplete else {
            combined.isComplete = false
            return combined
        }
        combined.tables = words.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.compactMap { name in
            var changes: [ShownChange: [SQLiteValue]] = [:]
            for (key, change) in words[name]! { changes[change, default: []].append(key) }
            return changes.isEmpty ? nil : Table(name: name, changes: changes.mapValues { $0.sorted() })
        }
        return combined
    }

    /// `2 inserted, 1 deleted in reminders; ...`, or `no shown row changed`.
    public var summary: String {
        guard isComplete else {
            return "more than \(MergeRecorder.limit) shown rows changed, too many to list (see changedRows(since:))"
        }
        guard !isEmpty else { return "no shown row changed" }
        return tables.map { table in
            ShownChange.allCases.filter { !table.keys($0).isEmpty }
                .map { "\(table.keys($0).count) \($0.rawValue)" }.joined(separator: ", ") + " in \(table.name)"
        }.joined(separator: "; ")
    }

    private enum CodingKeys: String, CodingKey { case tables, complete }

    /// The tables, and `"complete": false` when more rows changed than the report lists.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(tables, forKey: .tables)
        if !isComplete { try container.encode(false, forKey: .complete) }
    }

    private struct DynamicKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
