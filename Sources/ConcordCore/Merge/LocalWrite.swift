/// A write an app made to a synced table, as the capture log recorded it.
///
/// Folding the log turns each of these into register changes stamped with
/// the time of the write. The values themselves are not in the log: they are
/// in the user table (or, for a deleted row, its hidden copy), and since the
/// log is folded in write order, the last stamp on each column lands with the
/// value the last write left there.
///
/// ```swift
/// let after = LocalWrite.update(changed: [true, false]).applied(to: before, stamp: s, policy: .column)
/// ```
public enum LocalWrite: Hashable, Sendable {
    /// An INSERT: every column is written; a dead or unknown row comes to life.
    case insert
    /// An UPDATE of the columns flagged `true`.
    case update(changed: [Bool])
    /// A DELETE.
    case delete

    /// The registers after this write, stamped `stamp`.
    ///
    /// Column values are left as they were (`.null` for new registers); the
    /// caller reads them from where the write left them.
    public func applied(to registers: RowRegisters?, columnCount: Int, stamp: Stamp, policy: TablePolicy)
        -> RowRegisters
    {
        var result = registers ?? RowRegisters(liveness: .unknown, columns: Array(repeating: nil, count: columnCount))
        let written = { (register: ColumnRegister?) in
            ColumnRegister(value: register?.value ?? .null, stamp: stamp, contributions: register?.contributions ?? [])
        }
        switch self {
        case .insert:
            result.liveness = Liveness(causalLength: Liveness.afterInsert(result.liveness.causalLength), stamp: stamp)
            result.columns = result.columns.map(written)
        case .update(let changed):
            if result.liveness.causalLength == 0 { result.liveness = Liveness(causalLength: 1, stamp: stamp) }
            for index in result.columns.indices where policy == .row || changed[index] {
                result.columns[index] = written(result.columns[index])
            }
        case .delete:
            result.liveness = Liveness(causalLength: Liveness.afterDelete(result.liveness.causalLength), stamp: stamp)
        }
        return result
    }
}
