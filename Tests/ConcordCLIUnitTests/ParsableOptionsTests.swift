import Concord
import ConcordSimulator
import ConcordTestSupport
import Testing

@testable import ConcordCLI

/// Options declared the way every command declares them, covering each kind of argument.
struct SampleOptions: ParsableOptions {
    enum Mode: String, CaseIterable, ArgumentValue { case fast, careful }

    @Flag(help: "Say more.")
    var beVerbose = false
    @Option(valueName: "name", help: "Names.")
    var name: [String]
    @Positional(help: "The input.")
    var input: String
    @Option(valueName: "a..b", help: "Which.")
    var seeds: ClosedRange<UInt64>?
    @Option(help: "How.")
    var mode = Mode.careful
    @Positional(help: "More inputs.")
    var extra: [String]
    @Option(valueName: "n", help: "How many.")
    var count: Int64 = 5
    @Option(short: "o", valueName: "file", help: "Where.")
    var outputFile: String?

    func validate() throws(UsageError) {
        guard count != 13 else { throw UsageError("--count must not be 13") }
    }
}

@Suite("Typed options", .tags(.cli))
struct ParsableOptionsTests {
    static let sample = CommandSpec(name: "sample", abstract: "A sample.", arguments: SampleOptions.arguments)

    func decode(_ arguments: [String]) throws(UsageError) -> SampleOptions {
        guard case .arguments(let parsed) = try ArgumentParser(Self.sample).parse(arguments) else {
            throw UsageError("help was requested")
        }
        return try SampleOptions(parsed)
    }

    @Test func theSpecComesFromTheDeclarationsInOrder() {
        #expect(
            SampleOptions.arguments == [
                .flag("be-verbose", help: "Say more."),
                .option("name", valueName: "name", repeatable: true, help: "Names."),
                .positional("input", help: "The input."),
                .option("seeds", valueName: "a..b", help: "Which."),
                .option("mode", default: "careful", allowedValues: ["fast", "careful"], help: "How."),
                .positional("extra", .repeating(minimum: 0), help: "More inputs."),
                .option("count", valueName: "n", default: "5", help: "How many."),
                .option("output-file", short: "o", valueName: "file", help: "Where."),
            ])
    }

    @Test func absentArgumentsTakeTheirDeclaredDefaults() throws {
        let options = try decode(["in"])
        #expect(options.input == "in" && options.extra == [])
        #expect(options.count == 5 && options.mode == .careful)
        #expect(options.outputFile == nil && options.seeds == nil && options.name == [] && !options.beVerbose)
    }

    @Test func everyKindOfArgumentIsDecodedToItsType() throws {
        let options = try decode([
            "in", "x", "y", "--count=-2", "--mode", "fast", "-o", "f", "--seeds", "3..<5",
            "--name", "a", "--name", "b", "--be-verbose",
        ])
        #expect(options.input == "in" && options.extra == ["x", "y"])
        #expect(options.count == -2 && options.mode == .fast && options.outputFile == "f")
        #expect(options.seeds == 3...4 && options.name == ["a", "b"] && options.beVerbose)
    }

    @Test func aValueThatDoesNotConvertNamesTheArgument() {
        #expect(throws: UsageError("The value 'many' is invalid for '--count <n>'", command: Self.sample)) {
            try decode(["in", "--count", "many"])
        }
        #expect(
            throws: UsageError(
                "The value '9..1' is invalid for '--seeds <a..b>': the range is empty", command: Self.sample)
        ) {
            try decode(["in", "--seeds", "9..1"])
        }
    }

    @Test func validationRunsAfterDecoding() {
        #expect(throws: UsageError("--count must not be 13")) { try decode(["in", "--count", "13"]) }
    }

    @Test func propertyNamesBecomeKebabCase() {
        #expect(argumentName(of: "largeRuns") == "large-runs")
        #expect(argumentName(of: "noImportProbe") == "no-import-probe")
        #expect(argumentName(of: "db") == "db")
    }

    // MARK: - The tool's commands

    /// Every subcommand, with the fewest arguments its spec accepts.
    static var minimalCommandLines: [(Subcommand, ParsedArguments)] {
        Main.tool.subcommands.map { subcommand in
            var positionals: [String: [String]] = [:]
            for argument in subcommand.spec.positionals {
                switch argument.kind {
                case .positional(.required): positionals[argument.name] = ["x.db"]
                case .positional(.repeating(let minimum)):
                    positionals[argument.name] = Array(repeating: "x.db", count: minimum)
                default: break
                }
            }
            return (subcommand, ParsedArguments(command: subcommand.spec, positionals: positionals))
        }
    }

    @Test func everySubcommandDeclaresTypedOptions() throws {
        for subcommand in Main.tool.subcommands {
            let options = try #require(subcommand.options, "\(subcommand.spec.name) reads its arguments by name")
            #expect(subcommand.spec.arguments == options.arguments)
        }
    }

    /// A default goes into help as text and comes back from it: the decoded value is the declared one.
    @Test func everySubcommandsOptionsRoundTripTheirDefaults() throws {
        var checked = 0
        for (subcommand, parsed) in Self.minimalCommandLines {
            let options = try #require(subcommand.options)
            for (property, declared) in options.declarations {
                let name = argumentName(of: property)
                let decoded = try declared.parsed(from: parsed, name: name)
                guard case .option(let details) = declared.spec(named: name).kind, details.defaultValue != nil else {
                    continue
                }
                let before = declared.heldValue.map { String(describing: $0) }
                #expect(
                    before != nil && decoded.heldValue.map { String(describing: $0) } == before,
                    "\(subcommand.spec.name) --\(name): declared \(before ?? "nothing")")
                checked += 1
            }
        }
        #expect(checked >= 11, "export, simulate, fuzz and bench declare defaults")
    }

    @Test func commandOptionsDecodeToTheirTypes() throws {
        func parsed(_ spec: CommandSpec, _ arguments: [String]) throws -> ParsedArguments {
            guard case .arguments(let parsed) = try ArgumentParser(spec).parse(arguments) else {
                throw UsageError("help")
            }
            return parsed
        }
        let bench = try BenchOptions(
            parsed(
                Subcommand.bench.spec,
                [
                    "--rows", "10, 20", "--large-runs", "2",
                    "--no-import-probe", "--json-file", "f.json",
                ]))
        #expect(bench.sizes == [10, 20] && bench.largeRuns == 2 && bench.noImportProbe && bench.jsonFile == "f.json")
        #expect(try BenchOptions(parsed(Subcommand.bench.spec, ["--scaling"])).sizes == [10_000, 100_000, 1_000_000])
        let simulate = try SimulateOptions(
            parsed(Subcommand.simulate.spec, ["--seeds", "2..4", "--topology", "cloud"]))
        #expect(simulate.seedRange == 2...4 && simulate.topology == .cloud && simulate.jobs == nil)
        #expect(
            try SimulateOptions(parsed(Subcommand.simulate.spec, ["--seeds", "2..4", "--seed", "9"])).seedRange == 9...9
        )
        let enable = try EnableOptions(
            parsed(
                Subcommand.enable.spec,
                [
                    "a.db", "--table", "t:row", "--table", "u",
                    "--merge", "u.n=counter",
                ]))
        #expect(enable.table.map(\.name) == ["t", "u"] && enable.table.map(\.policy) == [.row, .column])
        #expect(try enable.merges == ["u": ["n": .counter]])
        let fuzz = try FuzzOptions(
            parsed(
                Subcommand.fuzz.spec,
                [
                    "--first", "5", "--inputs", "3", "--timeout", "2.5",
                    "--worker", "d", "--skip", "6,7",
                ]))
        #expect(fuzz.indices == 5..<8 && fuzz.timeout.value == 2.5 && fuzz.skip?.values == [6, 7] && fuzz.jobs == nil)
        #expect(try ExportOptions(parsed(Subcommand.export.spec, ["a.db", "--format", "json"])).format == .json)
    }

    @Test(arguments: [
        (["export", "a.db", "--since", "soon"], "The value 'soon' is invalid for '--since <version>'"),
        (["export", "a.db", "--since", "-1"], "--since takes a version of at least 0 (0 exports everything)"),
        (["bench", "--runs", "x"], "The value 'x' is invalid for '--runs <r>'"),
        (["bench", "--rows", "0"], "--rows takes row counts of at least 1, such as 100000 or 10000,100000"),
        (["bench", "--json", "--markdown"], "--json and --markdown cannot be combined"),
        (["simulate", "--seeds", "5..1"], "The value '5..1' is invalid for '--seeds <a..b>': the range is empty"),
        (["simulate", "--devices", "two"], "The value 'two' is invalid for '--devices <k>'"),
        (
            ["fuzz", "--timeout", "0"],
            "The value '0' is invalid for '--timeout <seconds>': expected a number of seconds above 0"
        ),
        (["fuzz", "--worker", "d", "--skip", "a"], "--skip takes input indices separated by commas"),
        (["fuzz", "--jobs", "0"], "--jobs must be at least 1"),
        (
            ["enable", "a.db", "--table", ":row"],
            "The value ':row' is invalid for '--table <name[:policy]>': the table's name is missing before ':row'"
        ),
        (["enable", "a.db"], "Missing expected argument '--table <name[:policy]>'"),
        (
            ["enable", "a.db", "--table", "t", "--merge", "u.x=max"],
            "--merge u.x=max names no table that --table declares (TABLE.COLUMN=KIND)"
        ),
    ])
    func aWrongValueIsAUsageErrorThatExits64(arguments: [String], message: String) {
        let out = MemoryByteSink()
        let err = MemoryByteSink()
        let status = Main.tool.run(arguments: arguments, standardOutput: out, standardError: err)
        let errors = String(decoding: err.bytes, as: UTF8.self)
        #expect(status == 64)
        #expect(out.bytes.isEmpty)
        #expect(errors.hasPrefix("Error: \(message)\nUsage: concord \(arguments[0]) "), "\(errors)")
        #expect(errors.hasSuffix("  See 'concord \(arguments[0]) --help' for more information.\n"))
    }

    @Test func progressIsDrawnOnlyOnATerminal() {
        let out = MemoryByteSink()
        let err = MemoryByteSink()
        var output = Output(standardOutput: out, standardError: err)
        output.progress("3/10 runs")
        output.clearProgress()
        #expect(err.bytes.isEmpty, "a sink that is not a terminal gets no progress")
        var terminal = output
        terminal.standardError = TextStream(sink: err, isTerminal: true)
        terminal.progress("3/10 runs")
        #expect(String(decoding: err.bytes, as: UTF8.self) == "\u{1B}[2K\r3/10 runs")
    }
}
