extension Reproducer {
    /// A reproducer of a seed's own plan that failed with `result`.
    ///
    /// The plan is drawn again from the seed, with its choices, so the file
    /// can be both replayed and shrunk.
    ///
    /// ```swift
    /// let simulation = Simulation(scenario: .default, seed: 7)
    /// let result = try simulation.run()
    /// if !result.passed { try Reproducer(failed: simulation, result: result).write(to: "r.json") }
    /// ```
    public init(failed simulation: Simulation, result: SimulationResult) {
        self.init(
            scenario: simulation.scenario, seed: simulation.seed, choices: simulation.plan().choices,
            failure: result.failureDescription)
    }

    /// The file `concord simulate` writes a failed run's reproducer to: `concord-reproducer-SCENARIO-SEED.json`.
    public var fileName: String { "concord-reproducer-\(scenario.name)-\(seed).json" }

    /// This reproducer with its plan shrunk as far as it still fails the same way, or `nil` when the plan passes now.
    ///
    /// A failure found in a long plan is hard to read; the smallest plan that
    /// fails the same way usually names the bug. The recorded choices are
    /// shrunk when they still draw the recorded plan; a reproducer written by
    /// a simulator that drew plans differently has only its steps deleted.
    /// `runs` is how many runs the shrinker made.
    ///
    /// ```swift
    /// if let (smaller, runs) = try reproducer.shrunk() {
    ///     try smaller.write(to: path)   // smaller.plan.steps.count steps, found in `runs` runs
    /// }
    /// ```
    public func shrunk(maxRuns: Int = 500) throws -> (reproducer: Reproducer, runs: Int)? {
        let simulation = Simulation(scenario: scenario, seed: seed)
        let first = try simulation.run(plan)
        guard first.failure != nil else { return nil }
        let shrunk =
            choicesDrawPlan
            ? try simulation.shrink(choices, failing: first, maxRuns: maxRuns)
            : try simulation.shrink(plan: plan, failing: first, maxRuns: maxRuns)
        let reproducer = Reproducer(
            scenario: scenario, seed: seed, plan: shrunk.plan, choices: shrunk.choices,
            failure: shrunk.result.failure?.description ?? failure)
        return (reproducer, shrunk.runs)
    }
}
