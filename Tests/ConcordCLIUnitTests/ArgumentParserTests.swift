import Concord
import ConcordTestSupport
import Testing

@testable import ConcordCLI

@Suite("Argument parsing", .tags(.cli))
struct ArgumentParserTests {
    static let export = CommandSpec(
        name: "export",
        abstract: "Export the changes a replica holds.",
        arguments: [
            .positional("db", help: "The replica's database file."),
            .option("since", valueName: "version", default: "0", help: "Only changes after this version."),
            .option("format", default: "binary", allowedValues: ["binary", "json"], help: "binary or json."),
            .option("output", short: "o", valueName: "file", help: "Where to write the changes."),
            .option("table", short: "t", valueName: "name", repeatable: true, help: "Only this table."),
            .flag("json", help: "Print a JSON summary."),
        ])

    static let sync = CommandSpec(
        name: "sync",
        abstract: "Sync replicas with each other.",
        arguments: [
            .positional("db", .repeating(minimum: 2), help: "The replicas' database files."),
            .option("rows", default: "100000", help: "How many rows."),
            .option("seeds", default: "1..20", help: "Which seeds."),
            .option("ratio", help: "A fraction."),
        ])

    static let importing = CommandSpec(
        name: "import",
        abstract: "Import changes.",
        arguments: [
            .positional("db", help: "The replica's database file."),
            .positional("file", .optional, help: "The changes, or - for standard input."),
        ])

    func parse(_ arguments: [String], _ spec: CommandSpec = Self.export) throws(UsageError) -> ParsedArguments {
        guard case .arguments(let parsed) = try ArgumentParser(spec).parse(arguments) else {
            throw UsageError("help was requested")
        }
        return parsed
    }

    func failure(_ arguments: [String], _ spec: CommandSpec = Self.export) -> String? {
        do throws(UsageError) {
            _ = try ArgumentParser(spec).parse(arguments)
            return nil
        } catch {
            #expect(error.command == spec)
            return error.message
        }
    }

    @Test func readsPositionalsOptionsAndFlags() throws {
        let parsed = try parse(["a.db", "--since", "12", "--format=json", "-o", "out.json", "--json"])
        #expect(parsed.positional("db") == "a.db")
        #expect(parsed.option("since") == "12")
        #expect(parsed.option("format") == "json")
        #expect(parsed.option("output") == "out.json")
        #expect(parsed.flag("json"))
    }

    @Test func absentOptionsFallBackToDefaults() throws {
        let parsed = try parse(["a.db"])
        #expect(parsed.option("since") == "0")
        #expect(parsed.option("format") == "binary")
        #expect(parsed.option("output") == nil)
        #expect(parsed.options("table") == [])
        #expect(!parsed.flag("json"))
    }

    @Test func inlineValueMayBeEmptyOrContainEquals() throws {
        let parsed = try parse(["a.db", "--output=a=b", "--table="])
        #expect(parsed.option("output") == "a=b")
        #expect(parsed.options("table") == [""])
    }

    @Test func repeatedOptionKeepsCommandLineOrder() throws {
        let parsed = try parse(["--table", "zebra", "a.db", "--table=apple", "-t", "mango"])
        #expect(parsed.options("table") == ["zebra", "apple", "mango"])
        #expect(parsed.option("table") == "mango")
    }

    @Test func dashIsAPositionalAndAValue() throws {
        let parsed = try parse(["-", "--output", "-"], Self.importing.withOutput)
        #expect(parsed.positional("db") == "-")
        #expect(parsed.option("output") == "-")
    }

    @Test func doubleDashEndsOptions() throws {
        let parsed = try parse(["--", "--json", "-h"], Self.importing)
        #expect(parsed.positional("db") == "--json")
        #expect(parsed.positional("file") == "-h")
    }

    @Test func optionalAndRepeatingPositionals() throws {
        #expect(try parse(["a.db"], Self.importing).positional("file") == nil)
        #expect(try parse(["a.db", "changes"], Self.importing).positional("file") == "changes")
        #expect(try parse(["a.db", "b.db", "c.db"], Self.sync).positionals("db") == ["a.db", "b.db", "c.db"])
    }

    @Test(arguments: [["--help"], ["-h"], ["a.db", "--bogus", "--help"], ["--since", "-h"]])
    func helpWinsAnywhereBeforeDoubleDash(arguments: [String]) throws {
        #expect(try ArgumentParser(Self.export).parse(arguments) == .helpRequested)
    }

    @Test func unknownOptionSuggestsACloseName() {
        #expect(failure(["a.db", "--sinse", "3"]) == "Unknown option '--sinse'. Did you mean '--since'?")
        #expect(failure(["a.db", "--formt=json"]) == "Unknown option '--formt'. Did you mean '--format'?")
        #expect(failure(["a.db", "--frobnicate"]) == "Unknown option '--frobnicate'")
        #expect(failure(["a.db", "-x"]) == "Unknown option '-x'")
    }

    @Test func missingValue() {
        #expect(failure(["a.db", "--since"]) == "Missing value for '--since <version>'")
        #expect(failure(["a.db", "--since", "--json"]) == "Missing value for '--since <version>'")
        #expect(failure(["a.db", "-o"]) == "Missing value for '-o <file>'")
    }

    @Test func missingPositional() {
        #expect(failure([]) == "Missing expected argument '<db>'")
        #expect(failure(["--json"]) == "Missing expected argument '<db>'")
        #expect(failure([], Self.sync) == "Missing expected argument '<db> ...'")
        #expect(failure(["a.db"], Self.sync) == "Expected at least 2 values for '<db> ...', but got 1")
    }

    @Test func unexpectedArguments() {
        #expect(failure(["a.db", "extra"]) == "Unexpected argument 'extra'")
        #expect(failure(["a.db", "x", "--json", "y"]) == "2 unexpected arguments: 'x', 'y'")
    }

    @Test func valueNotAllowed() {
        #expect(
            failure(["a.db", "--format", "xml"])
                == "The value 'xml' is invalid for '--format <format>'. Please provide one of 'binary' or 'json'.")
    }

    @Test func nonRepeatableOptionGivenTwice() {
        #expect(failure(["a.db", "--since", "1", "--since=2"]) == "The option '--since' can only be given once")
    }

    @Test func flagGivenAValue() {
        #expect(
            failure(["a.db", "--json=yes"]) == "The option '--json' does not take any value, but 'yes' was specified.")
    }

    // MARK: - Typed accessors

    @Test func integers() throws {
        #expect(try parse(["a.db", "b.db"], Self.sync).integer("rows") == 100_000)
        #expect(try parse(["a", "b", "--rows", "7"], Self.sync).integer("rows", as: UInt8.self) == 7)
        #expect(throws: UsageError("The value '1e5' is invalid for '--rows <rows>'", command: Self.sync)) {
            try parse(["a", "b", "--rows", "1e5"], Self.sync).integer("rows")
        }
        #expect(throws: UsageError("The value '300' is invalid for '--rows <rows>'", command: Self.sync)) {
            try parse(["a", "b", "--rows", "300"], Self.sync).integer("rows", as: UInt8.self)
        }
    }

    @Test(arguments: [("1..20", 1...20), ("1...20", 1...20), ("1..<21", 1...20), ("7", 7...7), ("0..0", 0...0)])
    func ranges(text: String, expected: ClosedRange<UInt64>) throws {
        #expect(try parse(["a", "b", "--seeds", text], Self.sync).range("seeds") == expected)
    }

    @Test func badRanges() throws {
        #expect(try parse(["a", "b"], Self.sync).range("seeds") == 1...20)
        #expect(
            throws: UsageError(
                "The value '20..1' is invalid for '--seeds <seeds>': the range is empty", command: Self.sync)
        ) {
            try parse(["a", "b", "--seeds", "20..1"], Self.sync).range("seeds")
        }
        #expect(
            throws: UsageError(
                "The value '5..<5' is invalid for '--seeds <seeds>': the range is empty", command: Self.sync)
        ) {
            try parse(["a", "b", "--seeds", "5..<5"], Self.sync).range("seeds")
        }
        let expectation = "expected a number or a range such as 1..20"
        #expect(
            throws: UsageError("The value '1..x' is invalid for '--seeds <seeds>': \(expectation)", command: Self.sync)
        ) {
            try parse(["a", "b", "--seeds", "1..x"], Self.sync).range("seeds")
        }
        #expect(
            throws: UsageError("The value '-1..3' is invalid for '--seeds <seeds>': \(expectation)", command: Self.sync)
        ) {
            try parse(["a", "b", "--seeds=-1..3"], Self.sync).range("seeds")
        }
        #expect(try parse(["a", "b", "--seeds=-1..3"], Self.sync).range("seeds", as: Int.self) == -1...3)
    }

    @Test func requiredAndConvertedValues() throws {
        let parsed = try parse(["a.db", "b.db", "--ratio", "0.25"], Self.sync)
        #expect(try parsed.value("ratio", as: Double.self) == 0.25)
        #expect(try parse(["a", "b"], Self.sync).value("ratio", as: Double.self) == nil)
        #expect(throws: UsageError("Missing expected argument '--output <file>'", command: Self.export)) {
            try parse(["a.db"]).required("output")
        }
        #expect(try parse(["a.db"]).required("db") == "a.db")
    }

    // MARK: - Help

    @Test func commandHelp() {
        let expected = """
            OVERVIEW: Export the changes a replica holds.

            USAGE: concord export <db> [--since <version>] [--format <format>] [--output <file>] [--table <name> ...] [--json]

            ARGUMENTS:
              <db>                    The replica's database file.

            OPTIONS:
              --since <version>       Only changes after this version. (default: 0)
              --format <format>       binary or json. (default: binary)
              -o, --output <file>     Where to write the changes.
              -t, --table <name>      Only this table.
              --json                  Print a JSON summary.
              -h, --help              Show help information.


            """
        #expect(HelpFormatter(toolName: "concord").help(for: Self.export) == expected)
    }

    @Test func usageLines() {
        let formatter = HelpFormatter(toolName: "concord")
        #expect(
            formatter.usage(for: Self.sync)
                == "concord sync <db> <db> ... [--rows <rows>] [--seeds <seeds>] [--ratio <ratio>]")
        #expect(formatter.usage(for: Self.importing) == "concord import <db> [<file>]")
        let any = CommandSpec(
            name: "check", abstract: "", arguments: [.positional("db", .repeating(minimum: 0), help: "")])
        #expect(formatter.usage(for: any) == "concord check [<db> ...]")
    }

    @Test func helpWrapsAtEightyColumns() {
        let spec = CommandSpec(
            name: "bench",
            abstract: "Measure how fast replicas export, import and merge changes on this machine.",
            discussion:
                "Each run uses a fresh temporary directory, so nothing you have is touched.\n\nExample:\n  concord bench --rows 1000",
            arguments: [
                .option(
                    "rows", default: "100000",
                    help: "How many rows each table gets before the measurements start, per replica."),
                .option("a-very-long-option-name", valueName: "value", help: "Pushed below its label."),
                .positional("label", .optional, help: ""),
            ])
        let expected = """
            OVERVIEW: Measure how fast replicas export, import and merge changes on this
            machine.

            Each run uses a fresh temporary directory, so nothing you have is touched.

            Example:
              concord bench --rows 1000

            USAGE: concord bench [--rows <rows>] [--a-very-long-option-name <value>] [<label>]

            ARGUMENTS:
              <label>

            OPTIONS:
              --rows <rows>           How many rows each table gets before the measurements
                                      start, per replica. (default: 100000)
              --a-very-long-option-name <value>
                                      Pushed below its label.
              -h, --help              Show help information.


            """
        #expect(HelpFormatter(toolName: "concord").help(for: spec) == expected)
    }

    @Test func rootHelp() {
        let text = HelpFormatter(toolName: "concord").rootHelp(
            abstract: "Replicate SQLite databases across devices.", discussion: nil,
            subcommands: [Self.export, Self.sync])
        #expect(
            text == """
                OVERVIEW: Replicate SQLite databases across devices.

                USAGE: concord <subcommand>

                OPTIONS:
                  --version               Show the version.
                  -h, --help              Show help information.

                SUBCOMMANDS:
                  export                  Export the changes a replica holds.
                  sync                    Sync replicas with each other.

                  See 'concord help <subcommand>' for detailed help.

                """)
    }

    @Test func suggestions() {
        #expect(editDistance("kitten", "sitting") == 3)
        #expect(editDistance("", "abc") == 3)
        #expect(editDistance("abc", "") == 3)
        #expect(closestMatch(to: "exprot", among: ["export", "import"]) == "export")
        #expect(closestMatch(to: "foo", among: ["json", "help"]) == nil)
        #expect(closestMatch(to: "sinc", among: ["since", "sync"]) == "since")
    }
}

extension CommandSpec {
    /// `import` plus an `--output` option, for the stdin/stdout test.
    fileprivate var withOutput: CommandSpec {
        CommandSpec(
            name: name, abstract: abstract,
            arguments: arguments + [.option("output", valueName: "file", help: "")])
    }
}

// MARK: - Dispatcher

@Suite("Command dispatch", .tags(.cli))
struct CommandDispatchTests {
    struct Broken: Error, CustomStringConvertible {
        var description: String { "the database is locked" }
    }

    static let tool = CommandLineTool(
        name: "concord",
        abstract: "Replicate SQLite databases across devices.",
        version: "0.1.0",
        subcommands: [
            Subcommand(ArgumentParserTests.export) { arguments, output in
                print("exporting \(try arguments.required("db")) since \(try arguments.integer("since"))", to: &output)
                for table in arguments.options("table") { print("table \(table)", to: &output) }
            },
            Subcommand(ArgumentParserTests.sync) { arguments, output in
                let replicas = arguments.positionals("db")
                guard Set(replicas).count == replicas.count else {
                    throw UsageError("Each replica may be named only once")
                }
                print("warning: syncing", to: &output.standardError)
                if replicas.contains("locked.db") { throw Broken() }
                if replicas.contains("diverged.db") { throw ExitCode(3) }
                _ = try arguments.range("seeds")
            },
        ])

    static let formatter = HelpFormatter(toolName: "concord")
    static let rootUsage = "Usage: concord <subcommand>\n  See 'concord --help' for more information.\n"
    static let exportUsage = """
        Usage: concord export <db> [--since <version>] [--format <format>] [--output <file>] [--table <name> ...] [--json]
          See 'concord export --help' for more information.

        """
    static let syncUsage = """
        Usage: concord sync <db> <db> ... [--rows <rows>] [--seeds <seeds>] [--ratio <ratio>]
          See 'concord sync --help' for more information.

        """

    func run(_ arguments: String...) -> (status: Int32, out: String, err: String) {
        let out = MemoryByteSink()
        let err = MemoryByteSink()
        let status = Self.tool.run(arguments: arguments, standardOutput: out, standardError: err)
        return (status, String(decoding: out.bytes, as: UTF8.self), String(decoding: err.bytes, as: UTF8.self))
    }

    var rootHelp: String {
        Self.formatter.rootHelp(
            abstract: "Replicate SQLite databases across devices.", discussion: nil,
            subcommands: Self.tool.subcommands.map(\.spec)
                + [CommandSpec(name: "help", abstract: "Show subcommand help information.")])
    }

    @Test func rootHelpOnNoArgumentsHelpFlagsAndHelp() {
        let result = run()
        #expect(result == (0, rootHelp, ""))
        #expect(result.out.contains("  help                    Show subcommand help information.\n"))
        #expect(run("--help") == result)
        #expect(run("-h") == result)
        #expect(run("help") == result)
    }

    @Test func subcommandHelp() {
        let expected = Self.formatter.help(for: ArgumentParserTests.export)
        #expect(run("export", "--help") == (0, expected, ""))
        #expect(run("export", "a.db", "--bogus", "-h") == (0, expected, ""))
        #expect(run("help", "export") == (0, expected, ""))
        #expect(
            run("help", "help").out.hasPrefix(
                "OVERVIEW: Show subcommand help information.\n\nUSAGE: concord help [<subcommand>]\n"))
    }

    @Test func version() {
        #expect(run("--version") == (0, "0.1.0\n", ""))
    }

    @Test func runsTheSubcommand() {
        #expect(
            run("export", "a.db", "--since=5", "--table", "b", "-t", "a") == (
                0, "exporting a.db since 5\ntable b\ntable a\n", ""
            ))
    }

    @Test func unknownSubcommandOrRootOption() {
        #expect(
            run("exprot", "a.db") == (
                64, "", "Error: Unknown subcommand 'exprot'. Did you mean 'export'?\n" + Self.rootUsage
            ))
        #expect(run("frobnicate") == (64, "", "Error: Unknown subcommand 'frobnicate'\n" + Self.rootUsage))
        #expect(
            run("--verison") == (
                64, "", "Error: Unknown option '--verison'. Did you mean '--version'?\n" + Self.rootUsage
            ))
        #expect(
            run("help", "nope") == (
                64, "",
                """
                Error: Unknown subcommand 'nope'
                Usage: concord help [<subcommand>]
                  See 'concord help --help' for more information.

                """
            ))
    }

    @Test func parseErrorPrintsUsageAndExits64() {
        #expect(run("export") == (64, "", "Error: Missing expected argument '<db>'\n" + Self.exportUsage))
        let notAllowed = "The value 'xml' is invalid for '--format <format>'. Please provide one of 'binary' or 'json'."
        #expect(run("export", "a.db", "--format", "xml") == (64, "", "Error: \(notAllowed)\n" + Self.exportUsage))
        let notANumber = "The value 'soon' is invalid for '--since <version>'"
        #expect(run("export", "a.db", "--since", "soon") == (64, "", "Error: \(notANumber)\n" + Self.exportUsage))
    }

    @Test func usageErrorFromRunExits64() {
        #expect(
            run("sync", "a.db", "a.db") == (64, "", "Error: Each replica may be named only once\n" + Self.syncUsage))
        let empty = "The value '9..1' is invalid for '--seeds <seeds>': the range is empty"
        #expect(
            run("sync", "a.db", "b.db", "--seeds", "9..1") == (
                64, "", "warning: syncing\nError: \(empty)\n" + Self.syncUsage
            ))
    }

    @Test func otherErrorsExit1() {
        #expect(run("sync", "a.db", "locked.db") == (1, "", "warning: syncing\nError: the database is locked\n"))
    }

    @Test func thrownExitCodeEndsQuietly() {
        #expect(run("sync", "a.db", "diverged.db") == (3, "", "warning: syncing\n"))
    }

    @Test func standardErrorFlushesStandardOutputFirst() {
        let out = RecordingSink()
        let err = RecordingSink()
        var output = Output(standardOutput: out, standardError: err)
        print("result", to: &output)
        #expect(out.flushes == 0)
        output.standardError.write("warning\n")
        #expect(out.flushes == 1)
        #expect(String(decoding: out.bytes, as: UTF8.self) == "result\n")
        #expect(String(decoding: err.bytes, as: UTF8.self) == "warning\n")
        #expect(!output.standardOutput.isTerminal)
    }

    @Test func failedFinalFlushExits1() {
        let status = Self.tool.run(
            arguments: ["export", "a.db"], standardOutput: FullDisk(), standardError: MemoryByteSink())
        #expect(status == 1)
    }
}

/// Records how often it was flushed.
private final class RecordingSink: ByteSink {
    private(set) var bytes: [UInt8] = []
    private(set) var flushes = 0
    func write(_ bytes: [UInt8]) { self.bytes += bytes }
    func flush() { flushes += 1 }
    func close() {}
}

/// Accepts writes into a buffer, then fails to flush them.
private final class FullDisk: ByteSink {
    func write(_ bytes: [UInt8]) {}
    func flush() throws {
        throw ChangesetError.io(operation: "write", path: "standard output", reason: "No space left on device")
    }
    func close() {}
}
