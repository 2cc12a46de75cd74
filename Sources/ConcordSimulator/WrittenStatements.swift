@_spi(Simulation) import Concord

/// The statements one device's app ran in a step and its database accepted, in order, with the capture
/// log's end before the first and after each, so the writes one fold stamps for all of them can be told apart.
///
/// Why: a real app runs several statements between two syncs, and Concord
/// folds them together; the rows' registers then hold only the newest stamp
/// of each column, so they cannot say which statement made which write. The
/// fold reports each write it stamps with its log position
/// (``FoldedWrite``); a statement's writes are those between the log's end
/// before it and after it. The report is checked against the registers:
/// every row it names, with the newest stamp it gives, is what the registers
/// hold, and nothing else.
///
/// ```swift
/// let written = WrittenStatements(device: 0, statements: [first, second], logEnds: [0, 2, 3])
/// let parts = try written.split(folded, stamped: touched)   // [[two rows of first], [one row of second]]
/// ```
struct WrittenStatements {
    let device: Int
    var statements: [Statement]
    /// The capture log's end before the first statement and after each; empty for one statement, all of
    /// whose folded writes are its own.
    var logEnds: [Int64] = []
    /// Per statement, whether the device folding it is a copy of the file it ran on (``WaitingWrite``); empty
    /// when none is.
    var credited: [Bool] = []

    /// Whether the registers alone cannot tell these statements' writes apart, so the fold's report is
    /// needed: several statements folded together, or one whose replace deleted rows (its delete's stamp
    /// is overwritten by the insert after it, ``Statement/deletesReplacedRows``).
    var needsFoldReport: Bool { statements.count > 1 || statements.contains(where: \.deletesReplacedRows) }

    /// Derives again what each statement cascaded to (what SQLite did not, ``Statement/cascaded``), as one fold makes
    /// the cascades of all of them: a child a later statement wrote (moved, updated, deleted, inserted
    /// again) is left to that write, and a child an earlier statement's cascade deleted is gone already,
    /// though the app's table still showed it (``logged`` is the capture log from before the first
    /// statement, ``Replica/capturedRows(after:)``).
    mutating func deriveCascadesOfOneFold(_ logged: [(seq: Int64, row: RowRef)], foreignKeys: [ForeignKey]) {
        var deleted: Set<RowRef> = []
        for index in statements.indices where !statements[index].cascaded.isEmpty {
            let later = Set(logged.filter { $0.seq > logEnds[index + 1] }.map(\.row))
            let statement = statements[index]
            statements[index].cascaded = Statement.cascades(
                before: statement.before, after: statement.after, foreignKeys: foreignKeys,
                leaving: later.union(deleted), replaced: statement.replacedRows)
            deleted.formUnion(statements[index].cascaded)
        }
    }

    /// The fold's report and the registers disagree, or a reported write belongs to no statement.
    struct Disagreement: Error {
        let message: String
    }

    /// The rows each statement's writes stamped (for a row stamped more than once, the newest stamp), in
    /// stamping order, from the fold's report `folded`; `stamped` is what the registers show afterwards
    /// (``OwnWrite/collect(from:node:newest:version:)``).
    /// One statement's writes are all of `stamped`; when it replaced rows by deleting them, each row also
    /// gets the stamps the report gives it (the delete's, which the insert after it overwrote).
    func split(_ folded: [FoldedWrite], stamped: [OwnWrite]) throws(Disagreement) -> [[OwnWrite]] {
        guard statements.count > 1 else {
            guard statements.first?.deletesReplacedRows == true else { return [stamped] }
            return [
                stamped.map { write in
                    var write = write
                    write.stamps = Set(write.stamps + folded.filter { $0.row == write.row }.map(\.stamp)).sorted()
                    return write
                }
            ]
        }
        var parts: [[OwnWrite]] = []
        var newest: [RowRef: Stamp] = [:]
        // What the registers hold, for telling apart a row's writes by one statement and its triggers.
        let held = Dictionary(stamped.map { ($0.row, $0) }, uniquingKeysWith: { $0.stamp > $1.stamp ? $0 : $1 })
        for index in statements.indices {
            let (low, high) = (logEnds[index], logEnds[index + 1])
            var rows: [RowRef: [Stamp]] = [:]
            for write in folded where low < write.seq && write.seq <= high {
                rows[write.row, default: []].append(write.stamp)
                newest[write.row] = max(newest[write.row] ?? write.stamp, write.stamp)
            }
            parts.append(
                rows.map { row, stamps in
                    let stamps = Set(stamps).sorted()
                    return OwnWrite(
                        row: row, stamp: stamps.last!, stamps: stamps, columnStamps: held[row]?.columnStamps ?? [],
                        livenessStamp: held[row]?.livenessStamp)
                }.sorted { $0.stamp < $1.stamp })
        }
        if let stray = folded.first(where: { $0.seq <= logEnds[0] || $0.seq > logEnds[logEnds.count - 1] }) {
            throw Disagreement(
                message: "the fold stamped \(stray.row) for the write at log position \(stray.seq), which none of the "
                    + "app's \(statements.count) statements made (they filled positions \(logEnds[0] + 1) to "
                    + "\(logEnds[logEnds.count - 1]))")
        }
        let heldStamps = held.mapValues(\.stamp)
        if heldStamps != newest {
            let rows = Set(heldStamps.keys).union(newest.keys).sorted { ($0.table, $0.key) < ($1.table, $1.key) }
            let row = rows.first { heldStamps[$0] != newest[$0] }!
            throw Disagreement(
                message: "the fold reported stamping \(row) \(newest[row].map { "last at \($0)" } ?? "never"), "
                    + "but its registers hold \(heldStamps[row].map { "\($0)" } ?? "no new stamp of this device's")")
        }
        return parts
    }
}
