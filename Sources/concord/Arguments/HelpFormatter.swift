/// Renders help and usage text the way swift-argument-parser does.
///
/// Users of Swift command-line tools know that layout (`OVERVIEW:`, `USAGE:`,
/// `ARGUMENTS:`, `OPTIONS:`, descriptions in a column at 26, wrapped at 80),
/// so `concord` keeps it. The width is fixed rather than taken from the
/// terminal, so help text is the same everywhere and can be tested exactly.
///
/// ```swift
/// let formatter = HelpFormatter(toolName: "concord")
/// print(formatter.help(for: exportSpec), terminator: "")
/// print(formatter.usage(for: exportSpec))   // concord export <db> [--since <version>]
/// ```
struct HelpFormatter: Sendable {
    /// The executable's name, first word of every usage line.
    let toolName: String
    /// The column at which text wraps.
    let width: Int

    private static let indent = 2
    private static let descriptionColumn = 26

    init(toolName: String, width: Int = 80) {
        self.toolName = toolName
        self.width = width
    }

    /// The full help for one subcommand, ending with a blank line.
    func help(for command: CommandSpec) -> String {
        let arguments = command.arguments.filter(\.isPositional).map { ($0.label, description(of: $0)) }
        let options =
            command.arguments.filter { !$0.isPositional }.map { (helpLabel(of: $0), description(of: $0)) }
            + [("-h, --help", "Show help information.")]
        return overview(command.abstract, command.discussion)
            + "USAGE: \(usage(for: command))\n\n"
            + sections([("ARGUMENTS", arguments), ("OPTIONS", options)])
            + "\n"
    }

    /// The help for the tool itself: its options and the list of subcommands.
    func rootHelp(abstract: String, discussion: String?, subcommands: [CommandSpec]) -> String {
        let options = [("--version", "Show the version."), ("-h, --help", "Show help information.")]
        return overview(abstract, discussion)
            + "USAGE: \(rootUsage)\n\n"
            + sections([("OPTIONS", options), ("SUBCOMMANDS", subcommands.map { ($0.name, $0.abstract) })])
            + "\n  See '\(toolName) help <subcommand>' for detailed help.\n"
    }

    /// One line naming every argument, as in `concord export <db> [--since <version>]`.
    func usage(for command: CommandSpec) -> String {
        ([toolName, command.name] + command.arguments.map(synopsis)).joined(separator: " ")
    }

    /// The tool's own usage line.
    var rootUsage: String { "\(toolName) <subcommand>" }

    /// What goes to standard error for a usage error: message, usage line, pointer to help.
    ///
    /// `commandPath` is what to run with `--help`: `concord export`, or just `concord`.
    func usageError(_ message: String, usage: String, commandPath: String) -> String {
        "Error: \(message)\nUsage: \(usage)\n  See '\(commandPath) --help' for more information.\n"
    }

    // MARK: - Pieces

    private func overview(_ abstract: String, _ discussion: String?) -> String {
        guard !abstract.isEmpty else { return "" }
        let text = discussion.map { "OVERVIEW: \(abstract)\n\n\($0)" } ?? "OVERVIEW: \(abstract)"
        return wrap(text, indent: 0) + "\n\n"
    }

    private func sections(_ sections: [(title: String, elements: [(String, String)])]) -> String {
        sections
            .filter { !$0.elements.isEmpty }
            .map { section in "\(section.title):\n" + section.elements.map(element).joined() }
            .joined(separator: "\n")
    }

    /// `  label                   description…`, or the description on its own lines if the label is long.
    private func element(_ label: String, _ description: String) -> String {
        let padded = String(repeating: " ", count: Self.indent) + label
        guard !description.isEmpty else { return padded + "\n" }
        let body = wrap(description, indent: Self.descriptionColumn)
        if padded.count < Self.descriptionColumn {
            return padded + body.dropFirst(padded.count) + "\n"
        }
        return padded + "\n" + body + "\n"
    }

    private func synopsis(_ argument: ArgumentSpec) -> String {
        switch argument.kind {
        case .positional(.required):
            argument.label
        case .positional(.optional):
            "[\(argument.label)]"
        case .positional(.repeating(let minimum)) where minimum == 0:
            "[\(argument.label) ...]"
        case .positional(.repeating(let minimum)):
            Array(repeating: argument.label, count: minimum).joined(separator: " ") + " ..."
        case .option(let details):
            details.repeatable ? "[\(argument.label) ...]" : "[\(argument.label)]"
        case .flag:
            "[\(argument.label)]"
        }
    }

    private func helpLabel(of argument: ArgumentSpec) -> String {
        (argument.shortName.map { "-\($0), " } ?? "") + argument.label
    }

    private func description(of argument: ArgumentSpec) -> String {
        guard case .option(let details) = argument.kind, let value = details.defaultValue else {
            return argument.help
        }
        return argument.help.isEmpty ? "(default: \(value))" : "\(argument.help) (default: \(value))"
    }

    /// Word-wraps `text` at `width`, every line starting at column `indent`.
    ///
    /// Line breaks in `text` are kept, and so are a line's leading spaces (for
    /// indented examples in a discussion); a word longer than a line overflows.
    private func wrap(_ text: String, indent: Int) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            let words = line.split(separator: " ")
            guard !words.isEmpty else { return "" }
            let prefix = String(repeating: " ", count: indent + line.prefix { $0 == " " }.count)
            var lines: [String] = []
            var current = prefix + words[0]
            for word in words.dropFirst() {
                if current.count + 1 + word.count <= width {
                    current += " " + word
                } else {
                    lines.append(current)
                    current = prefix + word
                }
            }
            lines.append(current)
            return lines.joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
