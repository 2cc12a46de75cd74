import ConcordTestSupport
import Testing

@testable import Concord

/// The read positions a replica keeps (``ReadPositions``): those handed out are known, others above the oldest
/// kept are not, and only the newest 4,096 are kept, older ones taken at their word.
@Suite(.tags(.replica))
struct ReadPositionsTests {
    @Test func aPositionIsKnownWhenHandedOutOrAtOrBelowTheFloor() throws {
        let database = try Database.inMemory()
        try database.execute(ReadPositions.createSQL)
        let positions = ReadPositions(database: database)
        try positions.start(at: 100)
        try positions.record(150)
        for position: Int64 in [0, 7, 100, 150] { #expect(try positions.isKnown(position), "\(position)") }
        for position: Int64 in [101, 149, 151] { #expect(try !positions.isKnown(position), "\(position)") }
    }

    @Test func onlyTheNewestAreKeptAndOlderOnesAreTakenAtTheirWord() throws {
        let database = try Database.inMemory()
        try database.execute(ReadPositions.createSQL)
        let positions = ReadPositions(database: database)
        try positions.start(at: 0)
        // Every tenth version handed out, 10,000 times: pruned at each position whose low nine bits are zero.
        for step in Int64(1)...10_000 { try positions.record(step * 10) }
        let count = try database.scalar("SELECT count(*) FROM \(Metadata.positions)")?.integerValue ?? 0
        #expect(count >= Int64(ReadPositions.kept) && count < Int64(ReadPositions.kept) + 512)
        let oldest = try database.scalar("SELECT min(pos) FROM \(Metadata.positions)")?.integerValue ?? 0
        #expect(try positions.isKnown(oldest - 5), "below the oldest kept: taken at its word")
        #expect(try !positions.isKnown(oldest + 5), "between two kept ones: never handed out")
        #expect(try positions.isKnown(100_000))
    }
}
