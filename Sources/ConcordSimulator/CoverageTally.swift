/// One ``CoverageEvent`` over a batch: how many runs reached it, and how often in all.
///
/// `concord simulate` prints one line per event, in declaration order, events
/// never reached included (with 0), so a sweep shows what it never tried.
///
/// ```swift
/// let tallies = CoverageTally.over(results)
/// tallies.first { $0.event == .tornWrite }?.runs   // runs where a power loss tore a file
/// ```
public struct CoverageTally: Equatable, Sendable, Encodable {
    /// The event.
    public var event: CoverageEvent
    /// Runs that reached it at least once.
    public var runs: Int
    /// Times it was reached, over every run.
    public var occurrences: Int

    /// Every event, in declaration order, over `results`.
    public static func over(_ results: [SimulationResult]) -> [CoverageTally] {
        CoverageEvent.allCases.map { event in
            CoverageTally(
                event: event, runs: results.filter { $0.coverage[event] > 0 }.count,
                occurrences: results.reduce(0) { $0 + $1.coverage[event] })
        }
    }
}
