import Concord
import ConcordTestSupport
import ConcordTesting
import Foundation
import Testing

@testable import ConcordSimulator

/// An app's statements folded together give what folding after each of them gives: the same tables,
/// registers and stamps (the clock stands still, so each fold ticks it the same way), for the
/// workloads' own statements, drawn, on an app that enforces foreign keys.
///
/// Real apps write many statements between two syncs, and the fold then sees a delete and a re-insert
/// of one row, or a counter bumped three times, at once. This fails on two bugs the simulator's batched
/// scenarios found (fixed in ff26fdf; checked by undoing each fix): a re-insert deleted again before the
/// fold joining with the new life's values instead of the previous life's, and a counter's delete writing
/// the table where the app had inserted the row again, which the fold then took for an app write.
/// (An app that leaves foreign keys off is told apart on purpose: a child it moves after deleting its
/// parent is that later write's business only when both are in one fold; the simulator's
/// batched-writes scenario covers it.)
@Suite(.tags(.simulation, .property))
struct FoldBatchingTests {
    static let batchedWrites = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Simulations/batched-writes.json").standardized.path

    @Test func propertyOneFoldOfSeveralStatementsEqualsAFoldAfterEach() throws {
        // The counter app's `fastest` is left out: a `min` column holding NULL keeps it (MergePolicies.md), so
        // after a fold the app reads NULL where, without one, it reads what it wrote, and writes otherwise.
        // So is `best = max(best, n)`: a row inserted again shows the best of its earlier lives only once a
        // fold joined them, so before the fold the app reads 0, writes n and stamps it, and after it reads
        // n already and writes nothing; the same value, under another stamp.
        var counter = Workload.counter
        counter.operations = counter.operations?.filter { !$0.contains("fastest") && !$0.contains("max(best") }
        let workloads = [Workload.reminders, counter, try Scenario.load(path: Self.batchedWrites).workload.resolved()]
        try Property.check(seed: 0xF01D, iterations: 300) { source in
            let workload = workloads[source.int(in: 0...workloads.count - 1)]
            var templates = workload.operations(at: 1)
            let lifecycles = source.bool(probability: 2.0 / 3)
            if lifecycles {
                // Every statement on one row of each table, an insert, an update or a delete a third of the
                // time each: lives end and begin again, with edits between, inside one fold.
                templates = templates.map(Self.oneRowEach)
                source.note("one row per table, inserts, updates and deletes")
            }
            let earlier = (0..<source.int(in: 0...10)).map { _ in Self.draw(templates, &source, lifecycles) }
            let batch = (0..<source.int(in: 2...8)).map { _ in Self.draw(templates, &source, lifecycles) }
            source.note("earlier, folded one by one: \(earlier)")
            source.note("then: \(batch)")
            let (each, once) = (try Self.replica(workload), try Self.replica(workload))
            for (replica, foldsEach) in [(each, true), (once, false)] {
                for sql in earlier { try Self.write(sql, on: replica, fold: true) }
                for sql in batch { try Self.write(sql, on: replica, fold: foldsEach) }
                _ = try replica.foldLocalWrites()
            }
            let (a, b) = (try each.canonicalDump(), try once.canonicalDump())
            try Property.require(
                a == b, "one fold differs from a fold after each statement:\n\(Self.firstDifference(a, b))")
            let report = try once.check()
            try Property.require(report.isConsistent, "\(report)")
        }
    }

    /// One statement from `templates`: with `lifecycles`, an insert, an update or a delete, a third of the time each.
    static func draw(_ templates: [String], _ source: inout ChoiceSource, _ lifecycles: Bool) -> String {
        var pool = templates
        if lifecycles {
            let kind = ["INSERT", "UPDATE", "DELETE"][source.int(in: 0...2)]
            let chosen = templates.filter { $0.uppercased().hasPrefix(kind) }
            if !chosen.isEmpty { pool = chosen }
        }
        let template = pool[source.int(in: 0...pool.count - 1)]
        return Template.parsed(template)?.render(&source) ?? template
    }

    /// `template` with each quoted key range (`'c{1..3}'`) narrowed to its first key (`'c1'`).
    static func oneRowEach(_ template: String) -> String {
        template.replacing(/'([A-Za-z]+)\{(\d+)\.\.\d+\}'/) { "'\($0.output.1)\($0.output.2)'" }
    }

    static func replica(_ workload: Workload) throws -> Replica {
        let replica = try Replica.inMemory(
            configuration: configuration(node: 1, clock: ManualClock(unixMilliseconds: epoch2026)))
        try workload.install(on: replica)
        try replica.database.execute("PRAGMA foreign_keys = ON")
        return replica
    }

    /// Runs the app's `sql`; a statement a constraint refuses changes nothing, on either replica.
    static func write(_ sql: String, on replica: Replica, fold: Bool) throws {
        do {
            try replica.database.execute(sql)
        } catch let error as SQLiteError where error.code == 19 {
            return
        }
        if fold { _ = try replica.foldLocalWrites() }
    }

    static func firstDifference(_ a: String, _ b: String) -> String {
        let (left, right) = (a.split(separator: "\n"), b.split(separator: "\n"))
        let index = left.indices.first { $0 >= right.count || left[$0] != right[$0] } ?? left.count
        return
            "  each: \(index < left.count ? String(left[index]) : "(end)")\n  once: \(index < right.count ? String(right[index]) : "(end)")"
    }
}
