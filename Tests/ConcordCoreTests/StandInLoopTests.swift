import ConcordTestTraits
import Testing

@testable import ConcordCore

private typealias Rows = InMemoryRowGraph

private func row(_ key: SQLiteValue) -> RowRef { RowRef(table: "nodes", key: key) }

/// A tree of `nodes` (`parent`, column 0, `ON DELETE CASCADE`) whose `buddy` (column 1, `SET NULL`) names any
/// node, and whose `fallback` (column 2, `SET DEFAULT 'gone'`, a node that does not exist) another.
private let schema = [
    ForeignKey(child: "nodes", column: 0, parent: "nodes", action: .cascade),
    ForeignKey(child: "nodes", column: 1, parent: "nodes", action: .setNull),
    ForeignKey(child: "nodes", column: 2, parent: "nodes", action: .setDefault, defaultValue: "gone"),
]

/// A loop that a `SET NULL` key closes is no cycle: its rows show, whichever is decided first.
///
/// Before, deciding the root first reached its grandchild through `buddy`, then the root again through
/// `parent`, and took that for a cycle: the child and grandchild were parked "on a cycle" and the root
/// showed NULL for its buddy, while a device that decided the grandchild first showed all three.
@Suite(.tags(.core))
struct StandInLoopTests {
    /// r ← x ← y under `parent`, and r.buddy = y.
    private func tree(fallback: SQLiteValue? = nil) -> Rows {
        let rows = Rows(schema)
        rows.put("nodes", "r", [.null, "y", fallback ?? .null])
        rows.put("nodes", "x", ["r", .null, .null])
        rows.put("nodes", "y", ["x", .null, .null])
        return rows
    }

    /// The placements of r, x and y, asked in `order`.
    private func placements(_ rows: Rows, asking order: [SQLiteValue]) throws -> [SQLiteValue: Placement] {
        var visibility = Visibility(graph: rows)
        var placements: [SQLiteValue: Placement] = [:]
        for key in order { placements[key] = try visibility.placement(of: row(key)) }
        return placements
    }

    private static let orders: [[SQLiteValue]] = [
        ["r", "x", "y"], ["r", "y", "x"], ["x", "r", "y"], ["x", "y", "r"], ["y", "r", "x"], ["y", "x", "r"],
    ]

    @Test(arguments: orders)
    func aSetNullKeyNamingADescendantShowsEveryRow(order: [SQLiteValue]) throws {
        let placements = try placements(tree(), asking: order)
        #expect(placements == ["r": .shown, "x": .shown, "y": .shown], "asked \(order)")
    }

    /// The root taken to show while its buddy was decided does not, for another stand-in: what was decided
    /// from it is decided again, and its descendants are parked behind it in every order.
    @Test(arguments: orders)
    func rowsDecidedFromARootThatTurnsOutHiddenAreDecidedAgain(order: [SQLiteValue]) throws {
        let rows = tree(fallback: "lost")
        rows.put("nodes", "lost", deleted: true, [.null, .null, .null])
        let placements = try placements(rows, asking: order)
        #expect(
            placements == [
                "r": .hidden(.missingParent(table: "nodes", key: "gone")),
                "x": .hidden(.hiddenParent(table: "nodes", key: "r")),
                "y": .hidden(.hiddenParent(table: "nodes", key: "x")),
            ], "asked \(order)")
    }

    /// A loop of hiding keys alone is still a cycle, however it is entered.
    @Test(arguments: orders)
    func aLoopOfHidingKeysIsACycle(order: [SQLiteValue]) throws {
        let rows = tree()
        rows.put("nodes", "r", ["y", .null, .null])
        let placements = try placements(rows, asking: order)
        #expect(placements.values.allSatisfy { if case .hidden(.onCycle?) = $0 { true } else { false } }, "\(order)")
    }
}
