import Foundation

/// Everything needed to run a failed simulation again: its scenario, seed,
/// the plan that failed, and the choices that plan was drawn from.
///
/// `concord simulate` writes one per failing seed; `concord replay` runs its
/// plan; `concord replay --shrink` rewrites it with the smallest failing plan
/// the shrinker finds. The plan is stored whole, so a reproducer keeps
/// replaying the same steps even after the way plans are drawn changes; the
/// choices serve shrinking. Files in `Simulations/regressions/` are
/// reproducers of fixed bugs, which CI replays and which must pass.
///
/// ```swift
/// let reproducer = try Reproducer.read(from: "concord-reproducer-reminders-7.json")
/// let result = try reproducer.replay()
/// ```
public struct Reproducer: Codable, Equatable, Sendable {
    /// The scenario the simulation ran, stored whole so the file needs no other.
    public var scenario: Scenario
    /// The seed that failed.
    public var seed: UInt64
    /// The failure as it was seen when the file was written.
    public var failure: String
    /// The plan that failed: what ``replay()`` runs.
    public var plan: SimulationPlan
    /// The choices `plan` was drawn from.
    public var choices: [UInt64]

    /// A reproducer of the plan `choices` draw for `scenario` and `seed`.
    public init(scenario: Scenario, seed: UInt64, choices: [UInt64], failure: String) {
        self.init(
            scenario: scenario, seed: seed, plan: Simulation(scenario: scenario, seed: seed).plan(replaying: choices),
            choices: choices, failure: failure)
    }

    /// A reproducer of `plan`; `choices` may be empty when they are not known.
    public init(scenario: Scenario, seed: UInt64, plan: SimulationPlan, choices: [UInt64], failure: String) {
        self.scenario = scenario
        self.seed = seed
        self.failure = failure
        self.plan = plan
        self.choices = choices
    }

    /// Runs the recorded plan again, keeping the trace.
    ///
    /// With `directory`, each device's database file, as its disk holds it when the run ends, is written
    /// there as `device-N.sqlite`.
    public func replay(keepingFilesIn directory: URL? = nil) throws -> SimulationResult {
        let simulation = Simulation(scenario: scenario, seed: seed, keepsTrace: true)
        guard let directory else { return try simulation.run(plan) }
        return try simulation.run(plan, in: directory)
    }

    /// Whether the choices still draw the recorded plan (they do unless the way plans are drawn changed since).
    public var choicesDrawPlan: Bool {
        Simulation(scenario: scenario, seed: seed).plan(replaying: choices) == plan
    }

    /// Writes the reproducer to `path` as pretty-printed JSON with sorted keys, so files diff well.
    public func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path))
    }

    /// Reads a reproducer ``write(to:)`` wrote, and validates its scenario.
    ///
    /// - Throws: ``ScenarioError`` when the file cannot be read or is not a reproducer, or what
    ///   ``Scenario/validate()`` throws.
    public static func read(from path: String) throws -> Reproducer {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw ScenarioError("cannot read reproducer '\(path)': \(error.localizedDescription)")
        }
        do {
            let reproducer = try JSONDecoder().decode(Reproducer.self, from: data)
            try reproducer.scenario.validate()
            return reproducer
        } catch let error as DecodingError {
            throw ScenarioError(
                "'\(path)' is not a simulation reproducer (expected JSON with scenario, seed, failure, "
                    + "plan and choices): \(ScenarioError.describe(error))")
        }
    }
}
