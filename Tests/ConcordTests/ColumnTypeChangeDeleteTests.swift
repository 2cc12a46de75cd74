import ConcordCore
import ConcordTestSupport
import ConcordTesting
import Testing

@testable import Concord

/// A local delete keeps a value its column showed converted as its writer wrote it.
///
/// The simulator's table-rebuild family found it (its releases declare `done` TEXT where it was INTEGER):
/// a device whose column shows another device's `0` as `'0'` deleted the row, and its delete trigger wrote
/// the `'0'` it showed over the `0` the row's hidden copy kept, under the writer's stamp. The register
/// changed value without a write, on every device the delete reached (so a row brought back by a RESTRICT
/// child showed `'0'` for the writer's `0`, `7` for `'007'`), while `check` said ok.
@Suite(.tags(.replica))
struct ColumnTypeChangeDeleteTests {
    let clock = ManualClock(unixMilliseconds: epoch2026)

    /// A writer whose `n` is `writerType` and a reader whose `n` is `readerType`, after the writer's insert of
    /// `value` reached the reader.
    private func pair(writer writerType: String, reader readerType: String, value: SQLiteValue) throws -> [Replica] {
        let types = [writerType, readerType]
        let replicas = try inMemoryReplicas(2, clock: clock) { replica, index in
            try replica.database.execute("CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, n \(types[index]), w TEXT)")
            try replica.enableSync(on: "t")
        }
        try replicas[0].database.execute("INSERT INTO t VALUES ('z', ?, 'x')", [value])
        clock.advance(by: 10)
        try Replica.sync(replicas)
        return replicas
    }

    @Test(arguments: [
        ("INTEGER", "TEXT", SQLiteValue.integer(0)), ("TEXT", "INTEGER", "007"), ("TEXT", "REAL", "1"),
        ("REAL", "INTEGER", .real(2.0)), ("TEXT", "NUMERIC", "02"),
    ])
    func aDeleteKeepsTheValueAsWritten(writer: String, reader: String, value: SQLiteValue) throws {
        let replicas = try pair(writer: writer, reader: reader, value: value)
        let written = try #require(try replicas[0].registers(of: "t", key: "z")?.columns[0])
        clock.advance(by: 10)
        try replicas[1].database.execute("DELETE FROM t WHERE id = 'z'")
        clock.advance(by: 10)
        try Replica.sync(replicas)
        for replica in replicas {
            let registers = try #require(try replica.registers(of: "t", key: "z"))
            #expect(registers.liveness.causalLength == 2)
            #expect(registers.columns[0] == written, "the register kept its value and stamp")
            #expect(try replica.check().isConsistent)
        }
    }

    /// A value the app wrote in the same fold as the delete is the one the delete keeps.
    @Test func anUpdateBeforeTheDeleteIsKept() throws {
        let replicas = try pair(writer: "INTEGER", reader: "TEXT", value: .integer(0))
        clock.advance(by: 10)
        try replicas[1].database.execute("UPDATE t SET n = 5 WHERE id = 'z'; DELETE FROM t WHERE id = 'z'")
        clock.advance(by: 10)
        try Replica.sync(replicas)
        for replica in replicas {
            #expect(try replica.registers(of: "t", key: "z")?.columns[0]?.value == "5")
        }
    }
}
