import ConcordSimulator
import Foundation

/// How `concord simulate` ends: a reproducer and an error for each failed run, and an error for each
/// scenario whose runs never reached an event its `mustReach` lists; either exits 1.
///
/// ```swift
/// let failed = try reportSimulationFailures(runs, results, &output)
/// let unreached = reportUnreachedEvents(scenarios, results, &output)
/// if failed || unreached { throw ExitCode.failure }
/// ```
extension Subcommand {
    /// Writes a reproducer for each failed run and says where; whether any run failed.
    static func reportSimulationFailures(_ runs: [Simulation], _ results: [SimulationResult], _ output: inout Output)
        throws -> Bool
    {
        let failed = zip(runs, results).filter { !$0.1.passed }
        for (simulation, result) in failed {
            let reproducer = Reproducer(failed: simulation, result: result)
            try reproducer.write(to: reproducer.fileName)
            let file = reproducer.fileName
            print(
                "Error: \(simulation.scenario.name) seed \(simulation.seed): \(result.failureDescription)\n"
                    + "Reproducer written to \(file); run it again with `concord replay \(file)`, "
                    + "or shrink it with `concord replay \(file) --shrink`.", to: &output.standardError)
        }
        return !failed.isEmpty
    }

    /// Says which events of each scenario's `mustReach` no run of it reached; whether any was missed.
    static func reportUnreachedEvents(_ scenarios: [Scenario], _ results: [SimulationResult], _ output: inout Output)
        -> Bool
    {
        var missed = false
        for scenario in scenarios {
            let unreached = scenario.unreached(in: results)
            guard !unreached.isEmpty else { continue }
            missed = true
            let runs = results.filter { $0.scenario == scenario.name }.count
            print(
                "Error: \(scenario.name): no run of \(runs) reached \(unreached.map(\.rawValue).joined(separator: ", ")) "
                    + "(listed in mustReach); run more seeds, or raise the rates of the faults that lead there.",
                to: &output.standardError)
        }
        return missed
    }
}
