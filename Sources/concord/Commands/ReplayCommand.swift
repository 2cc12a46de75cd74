import ConcordSimulator
import Foundation

/// What it takes to run a failing simulation again: its seed and configuration.
struct Reproducer: Codable, Equatable {
    var seed: UInt64
    var configuration: Simulation.Configuration
    var failure: String

    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path))
    }

    static func read(from path: String) throws -> Reproducer {
        do {
            return try JSONDecoder().decode(Reproducer.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch let error as DecodingError {
            throw ReproducerError(path: path, detail: "\(error)")
        }
    }
}

struct ReproducerError: Error, CustomStringConvertible {
    let path: String
    let detail: String
    var description: String {
        "'\(path)' is not a simulation reproducer (expected JSON with seed, configuration and failure): \(detail)"
    }
}

extension Subcommand {
    static let replay = Subcommand(CommandSpec(
        name: "replay",
        abstract: "Run a failed simulation again from its reproducer file, printing every event.",
        discussion: """
            `concord simulate` writes a reproducer for each failing seed. Replaying it runs \
            the same seed and configuration, so it fails the same way; the trace shows every \
            write, delivery, loss, crash and clock jump up to the failure. Exits 1 while the \
            failure still happens.
            """,
        arguments: [.positional("file", help: "A reproducer written by `concord simulate`.")])
    ) { arguments, output in
        let reproducer = try Reproducer.read(from: try arguments.required("file"))
        let result = try Simulation(seed: reproducer.seed, configuration: reproducer.configuration, keepsTrace: true).run()
        for line in result.trace ?? [] { print(line, to: &output) }
        if let failure = result.failure ?? (result.converged ? nil : "did not converge") {
            print("Error: seed \(reproducer.seed) still fails: \(failure)", to: &output.standardError)
            throw ExitCode.failure
        }
        print("seed \(reproducer.seed) passes now (it failed with: \(reproducer.failure))", to: &output)
    }
}
