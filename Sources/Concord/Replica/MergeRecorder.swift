@_spi(Testing) import ConcordCore

/// Notes, while an apply materializes rows, where each row was and where it goes, for its ``MergeReport``.
///
/// An apply materializes up to millions of rows, so noting one must cost
/// little: rows are appended as they come (a table's rows mostly come in key
/// order, since apply writes each batch in key order), and only at the end
/// are they grouped by table, put in key order if they are not, and a row
/// noted twice (a related row met again while visibility settles) is
/// judged from where it was first to where it went last.
///
/// ```swift
/// var recorder = MergeRecorder()
/// recorder.note("reminders", "r1", wasShown: false, wasAlive: false, valuesChanged: true, now: .shown)
/// MergeReport(recorder)["reminders"]?.keys(.inserted)   // ["r1"]
/// ```
struct MergeRecorder {
    private struct Note {
        var key: SQLiteValue
        var wasShown: Bool
        var wasAlive: Bool
        var valuesChanged: Bool
        var now: ShownChange.Destination
    }

    /// The most rows a report lists; past it the recorder lets its notes go and says only that it overflowed,
    /// so that an apply of millions of rows keeps its memory bounded (about 100 bytes a note).
    static let limit = 100_000

    private var names: [String] = []
    private var notes: [[Note]] = []
    private var lastTable = -1
    private var count = 0
    /// More rows were noted than ``limit``: nothing is kept.
    private(set) var overflowed = false

    /// Notes that `key` of `table` was (or was not) shown and alive, and goes where `now` says.
    mutating func note(
        _ table: String, _ key: SQLiteValue, wasShown: Bool, wasAlive: Bool, valuesChanged: Bool,
        now: ShownChange.Destination
    ) {
        guard !overflowed else { return }
        count += 1
        guard count <= Self.limit else {
            (overflowed, names, notes, lastTable) = (true, [], [], -1)
            return
        }
        let note = Note(key: key, wasShown: wasShown, wasAlive: wasAlive, valuesChanged: valuesChanged, now: now)
        if lastTable < 0 || !names[lastTable].utf8.elementsEqual(table.utf8) {
            lastTable =
                names.firstIndex { $0.utf8.elementsEqual(table.utf8) }
                ?? {
                    names.append(table)
                    notes.append([])
                    return names.count - 1
                }()
        }
        notes[lastTable].append(note)
    }

    /// Each table's changes, tables in name order and keys in key order.
    func tables() -> [MergeReport.Table] {
        names.indices.sorted { names[$0].utf8.lexicographicallyPrecedes(names[$1].utf8) }.compactMap { index in
            var rows = notes[index]
            if !zip(rows, rows.dropFirst()).allSatisfy({ $0.key < $1.key }) {
                rows = rows.enumerated().sorted { ($0.element.key, $0.offset) < ($1.element.key, $1.offset) }
                    .map(\.element)
            }
            var changes: [ShownChange: [SQLiteValue]] = [:]
            var start = 0
            while start < rows.count {
                var end = start + 1
                while end < rows.count && rows[end].key == rows[start].key { end += 1 }
                let (first, last) = (rows[start], rows[end - 1])
                let changed = rows[start..<end].contains { $0.valuesChanged }
                if let change = ShownChange.of(
                    wasShown: first.wasShown, wasAlive: first.wasAlive, valuesChanged: changed, now: last.now)
                {
                    changes[change, default: []].append(first.key)
                }
                start = end
            }
            return changes.isEmpty ? nil : MergeReport.Table(name: names[index], changes: changes)
        }
    }
}
