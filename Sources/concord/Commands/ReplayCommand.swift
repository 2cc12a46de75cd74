import ConcordSimulator
import Foundation

/// The arguments of `concord replay`.
struct ReplayOptions: ParsableOptions {
    @Positional(help: "A reproducer written by `concord simulate`.")
    var file: String
    @Flag(help: "Shrink the failing plan and rewrite the file with the smallest one found.")
    var shrink = false
    @Option(
        valueName: "dir",
        help: "Write each device's database, as its disk held it at the end, to dir/device-N.sqlite, to open with "
            + "sqlite3 or `concord status`.")
    var keepFiles: String?
}

extension Subcommand {
    static let replay = Subcommand(
        "replay",
        abstract: "Run a failed simulation again from its reproducer file, printing every event.",
        discussion: """
            `concord simulate` writes a reproducer for each failing run: its scenario, seed, \
            plan and the choices the plan was drawn from. Replaying runs the plan, so it fails the \
            same way; the trace shows every write, delivery, loss, crash and clock jump up to \
            the failure. With --shrink, the plan is first made as small as it can be while it \
            still fails the same way, and the file is rewritten with it. Exits 1 while the \
            failure still happens. With --keep-files, each device's database file is kept for \
            a look at its schema, tables and metadata.
            """,
        options: ReplayOptions.self
    ) { options, output in
        var reproducer = try Reproducer.read(from: options.file)
        if options.shrink, let (shrunk, runs) = try reproducer.shrunk() {
            reproducer = shrunk
            try reproducer.write(to: options.file)
            print("shrunk to \(shrunk.plan.steps.count) steps in \(runs) runs; \(options.file) rewritten", to: &output)
        }
        for (index, step) in reproducer.plan.steps.enumerated() { print("step \(index): \(step)", to: &output) }
        var directory: URL?
        if let keepFiles = options.keepFiles {
            directory = URL(fileURLWithPath: keepFiles, isDirectory: true)
            try FileManager.default.createDirectory(atPath: keepFiles, withIntermediateDirectories: true)
        }
        let result = try reproducer.replay(keepingFilesIn: directory)
        for line in result.trace ?? [] { print(line, to: &output) }
        if let keepFiles = options.keepFiles {
            print("device databases written to \(keepFiles)", to: &output)
        }
        guard result.passed else {
            print(
                "Error: \(reproducer.scenario.name) seed \(reproducer.seed) still fails: \(result.failureDescription)",
                to: &output.standardError)
            throw ExitCode.failure
        }
        print(
            "\(reproducer.scenario.name) seed \(reproducer.seed) passes now (it failed with: \(reproducer.failure))",
            to: &output)
    }
}
