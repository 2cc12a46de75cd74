import ConcordSimulator
import Foundation

extension SimulationSummary {
    /// The coverage table `concord simulate` prints after the summary: each event in declaration order,
    /// the runs that reached it and how often in all, unreached events with 0.
    ///
    /// ```
    /// event                                             runs  occurrences
    /// cascade                                              5           23
    /// ```
    var coverageTable: String {
        let header =
            "event".padding(toLength: 44, withPad: " ", startingAt: 0) + pad("runs", 10) + pad("occurrences", 13)
        let rows = coverage.map { tally in
            tally.event.rawValue.padding(toLength: 44, withPad: " ", startingAt: 0) + pad("\(tally.runs)", 10)
                + pad("\(tally.occurrences)", 13)
        }
        return ([header] + rows).joined(separator: "\n") + "\n"
    }

    /// What a time-boxed sweep (`--duration`) adds: the seeds it reached and how fast it went.
    var swarmTable: String {
        let seeds = results.map(\.seed)
        let scenarioCount = max(scenarios.count, 1)
        let reached = seeds.min().map { "\($0)..\(seeds.max()!)" } ?? "none"
        let rows: [(String, String)] = [
            (
                "seeds run",
                "\(reached) (\(results.count) runs over \(scenarioCount) scenario\(scenarioCount == 1 ? "" : "s"))"
            ),
            ("seeds per second", String(format: "%.2f", runsPerSecond / Double(scenarioCount))),
            ("runs per second", String(format: "%.2f", runsPerSecond)),
        ]
        return rows.map { $0.0.padding(toLength: 48, withPad: " ", startingAt: 0) + $0.1 }.joined(separator: "\n")
            + "\n"
    }

    /// `text` right-aligned in `width` columns.
    private func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
