import ConcordTestTraits
import ConcordTesting
import Testing

@_spi(Testing) @testable import ConcordCore

/// Rows decided in chains far deeper than a thread's stack, and the same reasons whatever order rows are
/// asked about in.
///
/// A row's placement depends on its parents', so a chain written child first (replies to replies, a list
/// kept as linked rows) was decided with a frame per row: 30,000 rows overflowed the main thread's stack and
/// ended the process at every fold, and a parked chain took minutes, each row walking to the top to look
/// for a cycle.
@Suite("Visibility in deep chains", .tags(.core), .timeLimit(.hangGuard))
struct VisibilityDepthTests {
    /// `folders` references itself with the given action.
    private static func chain(_ depth: Int, action: ForeignKey.Action = .cascade, root: Bool) -> InMemoryRowGraph {
        let rows = InMemoryRowGraph([ForeignKey(child: "folders", column: 0, parent: "folders", action: action)])
        for index in 1...depth { rows.put("folders", .text("f\(index)"), [.text("f\(index - 1)")]) }
        if root { rows.put("folders", "f0", [nil]) }
        return rows
    }

    private static func row(_ key: String) -> RowRef { RowRef(table: "folders", key: .text(key)) }

    @Test(arguments: [ForeignKey.Action.cascade, .setNull])
    func aChainDeeperThanTheStackIsDecidedFromTheBottom(action: ForeignKey.Action) throws {
        let depth = 20_000
        let bottom = try onSmallStack(bytes: 256 * 1024) {
            var visibility = Visibility(graph: Self.chain(depth, action: action, root: true))
            return try visibility.placement(of: Self.row("f\(depth)"))
        }
        #expect(bottom == .shown(overrides: [:]))
        let placements = try onSmallStack(bytes: 256 * 1024) {
            var visibility = Visibility(graph: Self.chain(depth, action: action, root: false))
            return try [depth, 1].map { try visibility.placement(of: Self.row("f\($0)")) }
        }
        if action == .cascade {
            #expect(placements[0] == .hidden(.hiddenParent(table: "folders", key: .text("f\(depth - 1)"))))
            #expect(placements[1] == .hidden(.missingParent(table: "folders", key: "f0")))
        } else {
            // Only the top row names a parent that does not show: it shows NULL there.
            #expect(placements == [.shown(overrides: [:]), .shown(overrides: [0: .null])])
        }
    }

    /// Random forests of folders — rows naming a random earlier or later row, themselves, a missing one or
    /// none; some deleted — are decided alike asked top down, bottom up, in a random order, or one row per
    /// fresh decider. The reasons too: replicas with the same registers report the same ones.
    @Test func placementsDoNotDependOnTheOrderRowsAreAskedIn() throws {
        try Property.check(seed: 0xDEE9_0001, iterations: 300) { source in
            let count = source.int(in: 1...40)
            let action = [ForeignKey.Action.cascade, .restrict, .setNull][source.int(in: 0...2)]
            let rows = InMemoryRowGraph([ForeignKey(child: "folders", column: 0, parent: "folders", action: action)])
            for index in 0..<count {
                let parent: SQLiteValue? =
                    switch source.int(in: 0...5) {
                    case 0: nil
                    case 1: "missing"
                    case 2: .text("f\(index)")
                    default: .text("f\(source.int(in: 0...(count - 1)))")
                    }
                rows.put("folders", .text("f\(index)"), deleted: source.int(in: 0...6) == 0, [parent])
            }
            let keys = (0..<count).map { Self.row("f\($0)") }
            func decide(_ order: [RowRef]) throws -> [RowRef: Placement] {
                var visibility = Visibility(graph: rows)
                return Dictionary(uniqueKeysWithValues: try order.map { ($0, try visibility.placement(of: $0)) })
            }
            var shuffled = keys
            for index in shuffled.indices.reversed() {
                shuffled.swapAt(index, source.int(in: 0...index))
            }
            let alone = Dictionary(
                uniqueKeysWithValues: try keys.map { key in
                    var visibility = Visibility(graph: rows)
                    return (key, try visibility.placement(of: key))
                })
            for (name, order) in [("top down", keys), ("bottom up", keys.reversed()), ("shuffled", shuffled)] {
                let decided = try decide(order)
                for key in keys where decided[key] != alone[key] {
                    try Property.require(
                        false, "\(key) asked \(name): \(decided[key]!), asked alone: \(alone[key]!)")
                }
            }
        }
    }
}
