import ConcordSimulator
import Foundation

extension Subcommand {
    static let replay = Subcommand(CommandSpec(
        name: "replay",
        abstract: "Run a failed simulation again from its reproducer file, printing every event.",
        discussion: """
            `concord simulate` writes a reproducer for each failing run: its scenario, seed, \
            plan and the choices the plan was drawn from. Replaying runs the plan, so it fails the \
            same way; the trace shows every write, delivery, loss, crash and clock jump up to \
            the failure. With --shrink, the plan is first made as small as it can be while it \
            still fails the same way, and the file is rewritten with it. Exits 1 while the \
            failure still happens.
            """,
        arguments: [
            .positional("file", help: "A reproducer written by `concord simulate`."),
            .flag("shrink", help: "Shrink the failing plan and rewrite the file with the smallest one found."),
        ])
    ) { arguments, output in
        let path = try arguments.required("file")
        var reproducer = try Reproducer.read(from: path)
        if arguments.flag("shrink") {
            let simulation = Simulation(scenario: reproducer.scenario, seed: reproducer.seed)
            let first = try simulation.run(reproducer.plan)
            if first.failure != nil {
                // Choices written by a simulator that drew plans differently no longer give the plan: delete steps only.
                let shrunk = reproducer.choicesDrawPlan
                    ? try simulation.shrink(reproducer.choices, failing: first)
                    : try simulation.shrink(plan: reproducer.plan, failing: first)
                reproducer = Reproducer(scenario: reproducer.scenario, seed: reproducer.seed, plan: shrunk.plan,
                                        choices: shrunk.choices, failure: shrunk.result.failure?.description ?? reproducer.failure)
                try reproducer.write(to: path)
                print("shrunk to \(shrunk.plan.steps.count) steps in \(shrunk.runs) runs; \(path) rewritten", to: &output)
            }
        }
        for (index, step) in reproducer.plan.steps.enumerated() { print("step \(index): \(step)", to: &output) }
        let result = try reproducer.replay()
        for line in result.trace ?? [] { print(line, to: &output) }
        if !result.passed {
            print("Error: \(reproducer.scenario.name) seed \(reproducer.seed) still fails: "
                  + (result.failure?.description ?? "did not converge"), to: &output.standardError)
            throw ExitCode.failure
        }
        print("\(reproducer.scenario.name) seed \(reproducer.seed) passes now (it failed with: \(reproducer.failure))", to: &output)
    }
}
