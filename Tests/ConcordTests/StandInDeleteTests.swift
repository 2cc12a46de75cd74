import ConcordTestSupport
import Foundation
import Testing

@testable import Concord

/// A local delete keeps the real reference of a `SET NULL` / `SET DEFAULT` column that showed a stand-in.
///
/// The simulator's wide app found it (`Simulations/regressions/delete-kept-set-null-stand-in.json`): an
/// app with foreign keys off moved a note to a place that does not exist, so the note showed NULL
/// there while its register kept the place; deleting the note then wrote the NULL it showed into the
/// register, under the stamp of the move. The devices that had the move kept the place and those
/// that did not got NULL, under one stamp.
@Suite(.tags(.replica))
struct StandInDeleteTests {
    static func replica(policy: TablePolicy, action: String) throws -> Replica {
        let replica = try Replica.inMemory(
            configuration: configuration(node: 1, clock: ManualClock(unixMilliseconds: epoch2026)))
        try replica.database.execute(
            """
            CREATE TABLE places (id TEXT PRIMARY KEY NOT NULL, label);
            CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL,
                place DEFAULT 'home' REFERENCES places(id) ON DELETE \(action), body);
            """)
        try replica.enableSync(on: "places")
        try replica.enableSync(on: "notes", policy: policy)
        // 'home', the default a SET DEFAULT stand-in shows, exists: one naming no row parks its row instead.
        try replica.database.execute(
            "INSERT INTO places VALUES ('p', 'x'), ('home', 'h'); INSERT INTO notes VALUES ('n', 'p', 'b')")
        _ = try replica.foldLocalWrites()
        return replica
    }

    @Test(arguments: [TablePolicy.row, .column], ["SET NULL", "SET DEFAULT"])
    func aDeleteKeepsTheReferenceAStandInHid(policy: TablePolicy, action: String) throws {
        let replica = try Self.replica(policy: policy, action: action)
        try replica.database.execute("UPDATE notes SET place = 'missing' WHERE id = 'n'")
        _ = try replica.foldLocalWrites()
        let standIn: SQLiteValue = action == "SET NULL" ? .null : "home"
        #expect(try replica.database.scalar("SELECT place FROM notes") == standIn)
        try replica.database.execute("DELETE FROM notes WHERE id = 'n'")
        _ = try replica.foldLocalWrites()
        let registers = try #require(try replica.registers(of: "notes", key: "n"))
        #expect(!registers.liveness.isAlive)
        #expect(registers.columns[0]?.value == "missing", "the delete wrote the stand-in over the reference")
        #expect(try replica.check().isConsistent)
    }

    @Test func aDeleteKeepsAValueTheAppWroteOverAVisibleReference() throws {
        let replica = try Self.replica(policy: .column, action: "SET NULL")
        try replica.database.execute("UPDATE notes SET place = NULL WHERE id = 'n'; DELETE FROM notes WHERE id = 'n'")
        _ = try replica.foldLocalWrites()
        #expect(try replica.registers(of: "notes", key: "n")?.columns[0]?.value == .null)
    }
}
