extension Scenario {
    /// The events of ``mustReach`` that no run of this scenario among `results` reached, in the order listed.
    ///
    /// A batch that passes every check may still never have tried what the
    /// scenario is about (no power loss tore a write, no task brought its
    /// project back); listing those events in `mustReach` turns that into a
    /// failure. Runs are matched by scenario name, so one batch over several
    /// scenario files checks each file against its own runs.
    ///
    /// ```swift
    /// var scenario = try Scenario.load(path: "Simulations/power-loss.json")
    /// scenario.mustReach = [.tornWrite]
    /// let results = try SimulationBatch(scenarios: [scenario], seeds: 1...8, jobs: 2).run()
    /// scenario.unreached(in: results)   // [] when some run tore a write
    /// ```
    public func unreached(in results: [SimulationResult]) -> [CoverageEvent] {
        let runs = results.filter { $0.scenario == name }
        return (mustReach ?? []).filter { event in !runs.contains { $0.coverage[event] > 0 } }
    }
}
