import Concord

/// An exit status; thrown by a run function, it ends the command with that status and no message.
///
/// Use it when the command has already said everything, such as `check`
/// reporting a divergence and then failing. The values follow
/// swift-argument-parser: 0 success, 1 failure, 64 (`EX_USAGE`) bad usage.
///
/// ```swift
/// guard report.isConsistent else { throw ExitCode.failure }
/// ```
struct ExitCode: Error, Sendable, Equatable {
    let rawValue: Int32

    init(_ rawValue: Int32) {
        self.rawValue = rawValue
    }

    static let success = ExitCode(0)
    static let failure = ExitCode(1)
    static let usage = ExitCode(64)
}

/// The `concord` executable: routes a command line to its subcommand and turns the outcome into an exit status.
///
/// It behaves like a swift-argument-parser command group: no arguments,
/// `-h`, `--help` or `help` print the root help; `help <sub>` and
/// `<sub> --help` print a subcommand's help; `--version` prints the version;
/// usage errors print `Error: …` with the usage line and exit 64; other
/// errors print `Error: …` and exit 1. It never exits the process itself, so
/// tests call ``run(arguments:output:)`` directly.
///
/// ```swift
/// let tool = CommandLineTool(name: "concord", abstract: "Replicate SQLite databases.",
///                            version: "0.1.0", subcommands: [.status])
/// var output = Output.standard()
/// exit(tool.run(arguments: Array(CommandLine.arguments.dropFirst()), output: &output))
/// ```
struct CommandLineTool: Sendable {
    /// The executable's name, as users type it.
    let name: String
    /// One line, shown after `OVERVIEW:` in the root help.
    let abstract: String
    /// Further paragraphs for the root help.
    let discussion: String?
    /// Printed by `--version`.
    let version: String
    /// In the order the root help lists them.
    let subcommands: [Subcommand]

    init(name: String, abstract: String, discussion: String? = nil, version: String, subcommands: [Subcommand]) {
        var names: Set<String> = ["help"]
        for subcommand in subcommands {
            let spelling = subcommand.spec.name
            precondition(names.insert(spelling).inserted, "subcommand '\(spelling)' is declared twice or reserved")
        }
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.version = version
        self.subcommands = subcommands
    }

    /// Runs the command line (without the executable's name) and returns the exit status.
    func run(arguments: [String], output: inout Output) -> Int32 {
        var status = dispatch(arguments, &output)
        do {
            try output.flush()
        } catch {
            print("Error: \(error)", to: &output.standardError)
            if status == ExitCode.success.rawValue { status = ExitCode.failure.rawValue }
        }
        return status
    }

    /// Runs the command line with output going to the given sinks.
    func run(arguments: [String], standardOutput: any ByteSink, standardError: any ByteSink) -> Int32 {
        var output = Output(standardOutput: standardOutput, standardError: standardError)
        return run(arguments: arguments, output: &output)
    }

    // MARK: - Dispatch

    private var formatter: HelpFormatter { HelpFormatter(toolName: name) }

    /// The built-in `help` subcommand, listed last as swift-argument-parser does.
    private var helpSpec: CommandSpec {
        CommandSpec(
            name: "help", abstract: "Show subcommand help information.",
            arguments: [.positional("subcommand", .optional, help: "The subcommand to describe.")])
    }

    private func dispatch(_ arguments: [String], _ output: inout Output) -> Int32 {
        guard let first = arguments.first else { return showRootHelp(&output) }
        switch first {
        case "-h", "--help":
            return showRootHelp(&output)
        case "--version":
            print(version, to: &output)
            return ExitCode.success.rawValue
        case "help":
            return runHelp(Array(arguments.dropFirst()), &output)
        case _ where first.hasPrefix("-"):
            let suggestion =
                closestMatch(to: String(first.drop { $0 == "-" }), among: ["version", "help"])
                .map { ". Did you mean '--\($0)'?" } ?? ""
            return rootUsageError("Unknown option '\(first)'\(suggestion)", &output)
        default:
            guard let subcommand = subcommands.first(where: { $0.spec.name == first }) else {
                return rootUsageError(unknownSubcommand(first), &output)
            }
            return execute(subcommand, Array(arguments.dropFirst()), &output)
        }
    }

    private func execute(_ subcommand: Subcommand, _ arguments: [String], _ output: inout Output) -> Int32 {
        do {
            switch try ArgumentParser(subcommand.spec).parse(arguments) {
            case .helpRequested:
                output.write(formatter.help(for: subcommand.spec))
            case .arguments(let parsed):
                try subcommand.run(parsed, &output)
            }
            return ExitCode.success.rawValue
        } catch let error as UsageError {
            return usageError(error, defaultCommand: subcommand.spec, &output)
        } catch let exit as ExitCode {
            return exit.rawValue
        } catch {
            output.clearProgress()  // an error ends the line a long command was drawing
            print("Error: \(error)", to: &output.standardError)
            return ExitCode.failure.rawValue
        }
    }

    /// `help`, `help <sub>`, `help help`.
    private func runHelp(_ arguments: [String], _ output: inout Output) -> Int32 {
        let spec = helpSpec
        do throws(UsageError) {
            guard case .arguments(let parsed) = try ArgumentParser(spec).parse(arguments) else {
                output.write(formatter.help(for: spec))
                return ExitCode.success.rawValue
            }
            switch parsed.positional("subcommand") {
            case nil:
                return showRootHelp(&output)
            case "help":
                output.write(formatter.help(for: spec))
            case let name?:
                guard let subcommand = subcommands.first(where: { $0.spec.name == name }) else {
                    throw UsageError(unknownSubcommand(name), command: spec)
                }
                output.write(formatter.help(for: subcommand.spec))
            }
            return ExitCode.success.rawValue
        } catch {
            return usageError(error, defaultCommand: spec, &output)
        }
    }

    // MARK: - Messages

    private func showRootHelp(_ output: inout Output) -> Int32 {
        output.write(
            formatter.rootHelp(
                abstract: abstract, discussion: discussion, subcommands: subcommands.map(\.spec) + [helpSpec]))
        return ExitCode.success.rawValue
    }

    private func unknownSubcommand(_ name: String) -> String {
        let known = subcommands.map(\.spec.name) + ["help"]
        let suggestion = closestMatch(to: name, among: known).map { ". Did you mean '\($0)'?" } ?? ""
        return "Unknown subcommand '\(name)'\(suggestion)"
    }

    private func usageError(_ error: UsageError, defaultCommand: CommandSpec, _ output: inout Output) -> Int32 {
        let command = error.command ?? defaultCommand
        output.standardError.write(
            formatter.usageError(
                error.message, usage: formatter.usage(for: command), commandPath: "\(name) \(command.name)"))
        return ExitCode.usage.rawValue
    }

    private func rootUsageError(_ message: String, _ output: inout Output) -> Int32 {
        output.standardError.write(formatter.usageError(message, usage: formatter.rootUsage, commandPath: name))
        return ExitCode.usage.rawValue
    }
}
