import ConcordTestSupport
import Foundation
import Testing

@_spi(Testing) @testable import Concord

/// Incremental BLOB I/O writes a TEXT or BLOB value in place and fires no trigger, so Concord never heard
/// of it: the device showed the new bytes under the old write's stamp, a peer kept the old bytes under the
/// same stamp, and both devices' `check` said ok. Synced columns now refuse to open for writing.
@Suite(.tags(.replica))
struct InPlaceWriteTests {
    private let clock = ManualClock(unixMilliseconds: epoch2026)
    private static let schema = "CREATE TABLE files (id TEXT PRIMARY KEY NOT NULL, data BLOB, name TEXT, size INTEGER)"

    /// What opening column `column` of the row with `rowid` in place for writing says: `nil` when it opens.
    private func refusalToWrite(_ database: Database, column: String, rowid: Int64) -> String? {
        do {
            try database.openInPlace(table: "files", column: column, rowid: rowid, forWriting: true)
            return nil
        } catch {
            return "\(error)"
        }
    }

    private func rowid(_ database: Database) throws -> Int64 {
        try database.scalar("SELECT rowid FROM files WHERE id = 'f'")?.integerValue ?? 0
    }

    @Test func syncedColumnsCannotBeOpenedForWritingInPlace() throws {
        let replica = try Replica.inMemory(configuration: configuration(node: 1, clock: clock))
        try replica.database.execute(Self.schema)
        try replica.database.execute("INSERT INTO files VALUES ('f', zeroblob(4), 'a.bin', 4)")
        let rowid = try rowid(replica.database)
        #expect(refusalToWrite(replica.database, column: "data", rowid: rowid) == nil, "before sync, it could")
        try replica.enableSync(on: "files")
        for column in ["data", "name"] {
            let refusal = refusalToWrite(replica.database, column: column, rowid: rowid)
            #expect(
                refusal?.contains("cannot open indexed column for writing") == true, "\(column): \(refusal ?? "opened")"
            )
        }
        try replica.database.openInPlace(table: "files", column: "data", rowid: rowid, forWriting: false)
        // The guard holds no row: it covers every synced column, for no row.
        #expect(
            try replica.database.scalar("SELECT sql FROM sqlite_schema WHERE name = '_concord_1_inplace_guard'")
                == .text(#"CREATE INDEX "_concord_1_inplace_guard" ON "files"("data", "name", "size") WHERE 0"#))
    }

    /// A column a migration adds is covered too, and so is a table whose guard the app dropped, once
    /// Concord looks at the schema again.
    @Test func theGuardFollowsNewColumnsAndComesBackWhenDropped() throws {
        let replica = try Replica.inMemory(configuration: configuration(node: 1, clock: clock))
        try replica.database.execute(Self.schema)
        try replica.enableSync(on: "files")
        try replica.database.execute("ALTER TABLE files ADD COLUMN thumbnail BLOB")
        try replica.foldLocalWrites()
        try replica.database.execute("INSERT INTO files VALUES ('f', x'00', 'a', 1, zeroblob(8))")
        let rowid = try rowid(replica.database)
        #expect(refusalToWrite(replica.database, column: "thumbnail", rowid: rowid) != nil)
        try replica.database.execute("DROP INDEX _concord_1_inplace_guard")
        try replica.foldLocalWrites()
        #expect(refusalToWrite(replica.database, column: "data", rowid: rowid) != nil)
        #expect(try replica.check().isConsistent)
        // Replaced by one of the same name over fewer columns: made again over all of them.
        try replica.database.execute(
            "DROP INDEX _concord_1_inplace_guard; CREATE INDEX _concord_1_inplace_guard ON files(name) WHERE 0")
        try replica.foldLocalWrites()
        #expect(refusalToWrite(replica.database, column: "data", rowid: rowid) != nil)
        let report = try replica.check()
        #expect(report.isConsistent, "\(report)")
    }
}
