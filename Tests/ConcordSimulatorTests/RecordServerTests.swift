import Concord
import ConcordTestSupport
import Testing

@testable import ConcordSimulator

@Suite("Record server", .tags(.simulation))
struct RecordServerTests {
    static let node = NodeID(bytes: Array(repeating: 1, count: 16))!
    static let schema = TableSchema(name: "notes", key: "id", columns: ["body"], policy: .column)

    static func row(_ key: String, _ body: String, hlc: UInt64) -> RowChange {
        let stamp = Stamp(hlc: HLCTimestamp(rawValue: hlc), node: node)
        return RowChange(
            table: "notes", key: .text(key),
            registers: RowRegisters(
                liveness: Liveness(causalLength: 1, stamp: stamp),
                columns: [ColumnRegister(value: .text(body), stamp: stamp)]))
    }

    @Test func anUploadWithAStaleTagIsRefusedWithTheServerRecord() {
        var server = RecordServer()
        let first = server.save([.init(change: Self.row("n1", "a", hlc: 1), knownTag: nil)], schemas: [Self.schema])
        #expect(first.saved.map(\.1) == [1] && first.conflicts.isEmpty)
        let second = server.save([.init(change: Self.row("n1", "b", hlc: 2), knownTag: 1)], schemas: [Self.schema])
        #expect(second.saved.map(\.1) == [2])
        // A device that still holds tag 1 (or believes the record is new) must fetch, merge and retry.
        for stale in [1, nil] as [Int?] {
            let refused = server.save(
                [.init(change: Self.row("n1", "c", hlc: 3), knownTag: stale)], schemas: [Self.schema])
            #expect(refused.saved.isEmpty)
            #expect(refused.conflicts.map(\.change) == [Self.row("n1", "b", hlc: 2)])
        }
    }

    @Test func fetchesPageThroughChangesSinceAToken() {
        var server = RecordServer()
        _ = server.save(
            (1...5).map { .init(change: Self.row("n\($0)", "x", hlc: UInt64($0)), knownTag: nil) },
            schemas: [Self.schema])
        _ = server.save([.init(change: Self.row("n2", "y", hlc: 9), knownTag: 1)], schemas: [Self.schema])
        let first = server.changes(since: 0, limit: 2)
        #expect(first.records.map(\.change.key) == [.text("n1"), .text("n3")] && first.more)
        let rest = server.changes(since: first.token, limit: 10)
        // n2 was saved again last, so it comes last, once, in its latest form.
        #expect(rest.records.map(\.change.key) == [.text("n4"), .text("n5"), .text("n2")] && !rest.more)
        #expect(rest.records.last?.change == Self.row("n2", "y", hlc: 9))
        #expect(server.changes(since: rest.token).records.isEmpty)
    }

    @Test func theLimitIsFourHundredRecordsPerRequest() {
        var server = RecordServer()
        _ = server.save(
            (1...400).map { .init(change: Self.row("n\($0)", "x", hlc: UInt64($0)), knownTag: nil) },
            schemas: [Self.schema])
        _ = server.save([.init(change: Self.row("n401", "x", hlc: 401), knownTag: nil)], schemas: [Self.schema])
        let page = server.changes(since: 0, limit: 1_000)
        #expect(page.records.count == 400 && page.more)
    }
}
