@_spi(Simulation) import Concord
import ConcordTestSupport
import Foundation
import Testing

@Suite("Importing changeset files", .tags(.replica), .timeLimit(.hangGuard))
struct StreamedImportTests {
    /// Both paths: decoded in memory, and streamed twice from the file.
    @Test(arguments: [0, Replica.decodedInMemoryLimit])
    func aFileAppliesAndADamagedOneChangesNothing(limit: Int) throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock(unixMilliseconds: epoch2026)
        let a = try makeReplica(directory, "a.db", node: 1, clock: clock)
        let b = try makeReplica(directory, "b.db", node: 2, clock: clock)
        for index in 0..<300 {
            try a.database.execute(
                "INSERT INTO reminders (id, title) VALUES (?, ?)", [.text("r\(index)"), .text("t\(index)")])
        }
        let sink = try FileByteSink(path: directory.path("changes.bin"))
        try a.exportChanges(since: 0, to: sink)
        try sink.close()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: directory.path("changes.bin")))
        bytes[bytes.count - 10] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: directory.path("damaged.bin")))

        let before = try fileBytes(directory.path("b.db"))
        #expect(throws: ChangesetError.self) {
            try b.applyChangeset(atPath: directory.path("damaged.bin"), decodingInMemoryUpTo: limit)
        }
        #expect(try fileBytes(directory.path("b.db")) == before)
        var heard: [ChangesetProgress] = []
        let report = try b.applyChangeset(atPath: directory.path("changes.bin"), decodingInMemoryUpTo: limit) {
            heard.append($0)
        }
        #expect(report.applied == 300)
        #expect(try a.canonicalDump() == b.canonicalDump())

        // Progress: each step's bytes only grow, each ends once, having read every byte and every row.
        let size = bytes.count
        let steps: [ChangesetProgress.Step] = limit == 0 ? [.validating, .merging] : [.reading]
        #expect(heard.map(\.step).reduce(into: []) { $0.last == $1 ? () : $0.append($1) } == steps)
        for step in steps {
            let states = heard.filter { $0.step == step }
            #expect(zip(states, states.dropFirst()).allSatisfy { $0.bytesRead <= $1.bytesRead })
            #expect(states.filter(\.finished).count == 1 && states.last?.finished == true)
            #expect(states.last?.bytesRead == size && states.last?.rows == 300 && states.last?.fileSize == size)
        }
    }
}
