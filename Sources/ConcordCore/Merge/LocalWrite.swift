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
    /// A DELETE nothing captured (a row gone from its table while triggers were off, or from a table rebuilt
    /// without them): the row's values left with it unread, so the registers of the columns flagged `true`
    /// are forgotten rather than kept holding NULL under the stamps of the values they held.
    ///
    /// Why: NULL under another value's stamp is a second write claiming that stamp, which a merge settles by
    /// value; a `min` column (or a user-defined join) keeps NULL, the smallest value, for good, on every
    /// device once the row is inserted again. Forgotten, the register is what the peers still hold. (The
    /// other merges settle such a tie on the value: NULL loses it.)
    case deleteUncaptured(forgetting: [Bool])

    /// The columns a delete nothing captured forgets, by their merges: those where NULL would win a tie.
    public static func forgottenByUncapturedDelete(_ merges: [ColumnMerge]) -> [Bool] {
        merges.map {
            switch $0 {
            case .min, .custom: true
            case .lww, .max, .counter, .union: false
            }
        }
    }

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
        case .deleteUncaptured(let forgetting):
            result = LocalWrite.delete.applied(to: result, columnCount: columnCount, stamp: stamp, policy: policy)
            for index in result.columns.indices where forgetting.indices.contains(index) && forgetting[index] {
                result.columns[index] = nil
            }
        }
        return result
    }
}
