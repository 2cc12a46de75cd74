import Concord

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `concord` command-line tool.
@main
struct Main {
    static let tool = CommandLineTool(
        name: "concord",
        abstract: "Replicate SQLite databases across devices without losing edits.",
        version: ConcordRelease.current,
        subcommands: [
            .enable, .disable, .export, .import, .sync, .status, .changed, .conflicts, .restore, .check, .simulate,
            .replay, .fuzz, .demo, .bench,
        ])

    static func main() {
        // The tool owns its process: SQLite's allocations need not take a global lock to be counted.
        Database.disableMemoryStatistics()
        var output = Output.standard()
        exit(tool.run(arguments: Array(CommandLine.arguments.dropFirst()), output: &output))
    }
}
