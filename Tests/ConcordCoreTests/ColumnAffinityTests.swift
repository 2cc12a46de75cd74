import ConcordTestTraits
import Testing

@testable import ConcordCore

/// Column affinity follows section 3.1 of "Datatypes In SQLite", rules in their order.
@Suite("Column affinity", .tags(.core))
struct ColumnAffinityTests {
    @Test func declaredTypesFollowSQLitesRulesInOrder() {
        let cases: [(String, ColumnAffinity)] = [
            // The examples of the SQLite documentation's table (section 3.1.1).
            ("INT", .integer), ("INTEGER", .integer), ("TINYINT", .integer), ("UNSIGNED BIG INT", .integer),
            ("INT8", .integer), ("CHARACTER(20)", .text), ("VARCHAR(255)", .text), ("NATIVE CHARACTER(70)", .text),
            ("NVARCHAR(100)", .text), ("TEXT", .text), ("CLOB", .text), ("BLOB", .blob), ("", .blob),
            ("REAL", .real), ("DOUBLE", .real), ("DOUBLE PRECISION", .real), ("FLOAT", .real),
            ("NUMERIC", .numeric), ("DECIMAL(10,5)", .numeric), ("BOOLEAN", .numeric), ("DATE", .numeric),
            ("DATETIME", .numeric),
            // Rule order: "INT" wins over the rest, so "FLOATING POINT" is INTEGER and "CHARINT" too.
            ("FLOATING POINT", .integer), ("CHARINT", .integer), ("BLOBCHAR", .text), ("STRING", .numeric),
            ("text", .text), ("Varchar", .text), ("ANY", .numeric),
        ]
        for (declared, affinity) in cases {
            #expect(ColumnAffinity(declaredType: declared) == affinity, "\(declared)")
        }
    }

    @Test func anyInAStrictTableKeepsValuesAsWritten() {
        #expect(ColumnAffinity(declaredType: "ANY", strict: true) == .blob)
        #expect(ColumnAffinity(declaredType: "any", strict: true) == .blob)
        #expect(ColumnAffinity(declaredType: "INTEGER", strict: true) == .integer)
        #expect(ColumnAffinity(declaredType: "TEXT", strict: true) == .text)
    }

    @Test func onlyValuesSQLiteWouldConvertAreFlagged() {
        // A REAL column stores -0.0 as the integer 0 and reads it back as 0.0.
        let values: [SQLiteValue] = [.null, .integer(5), .real(2.0), .text("5"), .blob([0x35]), .real(-0.0)]
        let expected: [ColumnAffinity: [Bool]] = [
            .blob: [false, false, false, false, false, false],
            .text: [false, true, true, false, false, true],
            .integer: [false, false, true, true, false, true],
            .numeric: [false, false, true, true, false, true],
            .real: [false, true, false, true, false, true],
        ]
        for (affinity, flags) in expected {
            #expect(values.map { affinity.mayConvert($0) } == flags, "\(affinity)")
        }
    }
}
