import ConcordTesting

@testable import ConcordCore

/// Generators of registers for merge tests.
///
/// A stamp names one write, so everything a write carries is a function of
/// its stamp here: two registers with the same stamp are always equal, as in
/// a real system. Stamps come from a tiny space (3 nodes × 4 clock readings)
/// so that merges collide often.
enum MergeGen {
    static let nodes = [node(1), node(2), node(3)]

    static let stamp: Gen<Stamp> = Gen.zip(Gen.int(in: 0...3), Gen.int(in: 0...2)).map { hlc, index in
        Stamp(hlc: HLCTimestamp(milliseconds: UInt64(hlc), counter: 0), node: nodes[index])
    }

    /// A stable number for a stamp, to derive what its write carried.
    static func fingerprint(_ stamp: Stamp, _ salt: Int = 0) -> Int {
        Int(stamp.hlc.milliseconds) * 7 + Int(stamp.node.bytes[0]) * 13 + salt * 5
    }

    /// Values that collide under SQLite's order: 0 and 0.0, NULL, text and blob.
    static let scalarPool: [SQLiteValue] = [
        .null, .integer(0), .real(0), .integer(1), .real(1.5), .text("a"), .text("b"), .blob([0]),
    ]
    /// Union values as the fold stores them: canonical arrays.
    static let unionPool: [SQLiteValue] = [
        .text("[]"), .text(#"["a"]"#), .text(#"[1,"a"]"#), .text(#"[2,"b"]"#), .text("[2]"),
    ]

    static func register(_ pool: [SQLiteValue]) -> Gen<ColumnRegister?> {
        stamp.map { ColumnRegister(value: pool[fingerprint($0) % pool.count], stamp: $0) }.optional()
    }

    static let contribution: Gen<CounterContribution> = stamp.map { stamp in
        CounterContribution(
            causalLength: UInt64(1 + fingerprint(stamp, 1) % 3),
            amount: Int64(fingerprint(stamp, 2) % 11) - 5, stamp: stamp)
    }

    /// A counter register: at most one contribution per node.
    static let counterRegister: Gen<ColumnRegister?> = contribution.array(length: 0...3).map { entries in
        let merged = RowMerge.mergeContributions(entries, [])
        guard let newest = merged.map(\.stamp).max() else { return nil }
        return ColumnRegister(value: .integer(0), stamp: newest, contributions: merged)
    }

    static let liveness: Gen<Liveness> = stamp.optional().map { stamp in
        guard let stamp else { return .unknown }
        return Liveness(causalLength: UInt64(1 + fingerprint(stamp, 3) % 4), stamp: stamp)
    }

    /// Rows of the five built-in merges, in this column order.
    static let merges: [ColumnMerge] = [.lww, .max, .min, .union, .counter]

    /// A column-policy row; its counter shows the sum of its current contributions, as stored rows do.
    static let row: Gen<RowRegisters> = Gen.zip(
        liveness, Gen.zip(register(scalarPool), register(scalarPool), register(scalarPool)),
        Gen.zip(register(unionPool), counterRegister)
    ).map { liveness, scalars, rest in
        var counter = rest.1
        let sum = RowMerge.counterValue(rest.1?.contributions ?? [], life: liveness.causalLength)
        counter?.value = .integer(sum)
        return RowRegisters(liveness: liveness, columns: [scalars.0, scalars.1, scalars.2, rest.0, counter])
    }

    /// A row-policy row: one write supplied every column, so they share its stamp.
    static let wholeRow: Gen<RowRegisters> = Gen.zip(liveness, stamp.optional()).map { liveness, stamp in
        RowRegisters(
            liveness: liveness,
            columns: (0..<5).map { column in
                stamp.map { ColumnRegister(value: scalarPool[fingerprint($0, column) % scalarPool.count], stamp: $0) }
            })
    }
}
