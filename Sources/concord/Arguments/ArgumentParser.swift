/// A command line that does not fit its command: the message, and which command it was for.
///
/// The dispatcher prints it as `Error: <message>`, then the command's usage
/// line and a pointer to its help, and exits with status 64. Run functions
/// throw it too, for problems only they can see; they may leave `command`
/// out and the dispatcher fills in the command being run.
///
/// ```swift
/// guard replicas.count == Set(replicas).count else {
///     throw UsageError("Each replica may be named only once")
/// }
/// ```
struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    let message: String
    /// The command whose usage to show; `nil` means the command being run.
    let command: CommandSpec?

    init(_ message: String, command: CommandSpec? = nil) {
        self.message = message
        self.command = command
    }

    var description: String { message }
}

/// What a command line asked for: to run with these arguments, or to see help.
enum ParseOutcome: Sendable, Equatable {
    case arguments(ParsedArguments)
    case helpRequested
}

/// Parses a command's arguments (everything after its name) against its spec.
///
/// It follows swift-argument-parser's conventions: `--opt value` and
/// `--opt=value`, `-h`/`--help` anywhere before `--`, `--` ending options,
/// and `-` taken as a positional (conventionally standard input). Problems
/// come back as a ``UsageError`` carrying swift-argument-parser's wording.
///
/// ```swift
/// switch try ArgumentParser(spec).parse(["a.db", "--since=12"]) {
/// case .arguments(let arguments): print(arguments.option("since")!)   // 12
/// case .helpRequested: print(HelpFormatter(toolName: "concord").help(for: spec))
/// }
/// ```
struct ArgumentParser: Sendable {
    let command: CommandSpec

    init(_ command: CommandSpec) {
        self.command = command
    }

    func parse(_ arguments: [String]) throws(UsageError) -> ParseOutcome {
        let optionsEnd = arguments.firstIndex(of: "--") ?? arguments.endIndex
        if arguments[..<optionsEnd].contains(where: { $0 == "-h" || $0 == "--help" }) {
            return .helpRequested
        }
        var positionalTokens: [String] = []
        var options: [String: [String]] = [:]
        var flags: Set<String> = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let token = arguments[index]
            index += 1
            if token == "--" {
                positionalTokens += arguments[index...]
                break
            }
            guard token.hasPrefix("-"), token != "-" else {
                positionalTokens.append(token)
                continue
            }
            let (spelling, inlineValue) = splitInlineValue(token)
            let spec = try namedArgument(spelling)
            switch spec.kind {
            case .flag:
                if let value = inlineValue { throw unexpectedValue(spelling, value) }
                flags.insert(spec.name)
            case .option(let details):
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if index < arguments.endIndex, isValue(arguments[index]) {
                    value = arguments[index]
                    index += 1
                } else {
                    throw error("Missing value for '\(spelling) <\(details.valueName)>'")
                }
                try check(value, for: spec, details: details, spelling: spelling, seen: options[spec.name] != nil)
                options[spec.name, default: []].append(value)
            case .positional:
                preconditionFailure("positionals have no option name")
            }
        }
        let positionals = try assignPositionals(positionalTokens)
        return .arguments(ParsedArguments(command: command, positionals: positionals, options: options, flags: flags))
    }

    // MARK: - Named arguments

    /// `--name=value` → (`--name`, `value`); anything else is all name. Split at the `=` scalar: a value
    /// starting with a combining mark makes `=` and the mark one `Character`.
    private func splitInlineValue(_ token: String) -> (String, String?) {
        let scalars = token.unicodeScalars
        guard token.hasPrefix("--"), let equals = scalars.firstIndex(of: "=") else { return (token, nil) }
        return (String(scalars[..<equals]), String(scalars[scalars.index(after: equals)...]))
    }

    /// The option or flag spelled `--long` or `-s`; help spellings land here only with `=value`.
    private func namedArgument(_ spelling: String) throws(UsageError) -> ArgumentSpec {
        if spelling == "--help" {
            return .flag("help", help: "")
        }
        let match: ArgumentSpec?
        if spelling.hasPrefix("--") {
            let name = spelling.dropFirst(2)
            match = command.arguments.first { !$0.isPositional && $0.name == name }
        } else if spelling.count == 2, let short = spelling.last {
            match = command.arguments.first { $0.shortName == short }
        } else {
            match = nil
        }
        guard let match else { throw unknownOption(spelling) }
        return match
    }

    private func unknownOption(_ spelling: String) -> UsageError {
        guard spelling.hasPrefix("--") else { return error("Unknown option '\(spelling)'") }
        let known = command.arguments.filter { !$0.isPositional }.map(\.name) + ["help"]
        guard let suggestion = closestMatch(to: String(spelling.dropFirst(2)), among: known) else {
            return error("Unknown option '\(spelling)'")
        }
        return error("Unknown option '\(spelling)'. Did you mean '--\(suggestion)'?")
    }

    private func unexpectedValue(_ spelling: String, _ value: String) -> UsageError {
        error("The option '\(spelling)' does not take any value, but '\(value)' was specified.")
    }

    /// A following token is an option's value unless it looks like an option itself; a negative
    /// number is a value, so `--since -1` reaches the option's own check rather than reading as missing.
    private func isValue(_ token: String) -> Bool {
        token == "-" || !token.hasPrefix("-") || Double(token) != nil
    }

    private func check(
        _ value: String, for spec: ArgumentSpec, details: ArgumentSpec.OptionDetails, spelling: String, seen: Bool
    ) throws(UsageError) {
        if !details.allowedValues.isEmpty, !details.allowedValues.contains(value) {
            throw error(
                "The value '\(value)' is invalid for '\(spelling) <\(details.valueName)>'. "
                    + "Please provide one of \(listing(details.allowedValues)).")
        }
        if seen, !details.repeatable {
            throw error("The option '--\(spec.name)' can only be given once")
        }
    }

    // MARK: - Positionals

    private func assignPositionals(_ tokens: [String]) throws(UsageError) -> [String: [String]] {
        var remaining = tokens[...]
        var assigned: [String: [String]] = [:]
        for spec in command.positionals {
            guard case .positional(let arity) = spec.kind else { continue }
            switch arity {
            case .required:
                guard let value = remaining.popFirst() else {
                    throw error("Missing expected argument '\(spec.label)'")
                }
                assigned[spec.name] = [value]
            case .optional:
                if let value = remaining.popFirst() { assigned[spec.name] = [value] }
            case .repeating(let minimum):
                if remaining.isEmpty, minimum > 0 {
                    throw error("Missing expected argument '\(spec.label) ...'")
                }
                if remaining.count < minimum {
                    let counts = "at least \(minimum) values for '\(spec.label) ...', but got \(remaining.count)"
                    throw error("Expected \(counts)")
                }
                assigned[spec.name] = Array(remaining)
                remaining = []
            }
        }
        switch remaining.count {
        case 0: return assigned
        case 1: throw error("Unexpected argument '\(remaining[remaining.startIndex])'")
        default:
            let quoted = remaining.map { "'\($0)'" }.joined(separator: ", ")
            throw error("\(remaining.count) unexpected arguments: \(quoted)")
        }
    }

    private func error(_ message: String) -> UsageError {
        UsageError(message, command: command)
    }
}

/// `'a'`, `'a' or 'b'`, `'a', 'b' or 'c'`.
private func listing(_ values: [String]) -> String {
    let quoted = values.map { "'\($0)'" }
    guard let last = quoted.last, quoted.count > 1 else { return quoted.joined() }
    return quoted.dropLast().joined(separator: ", ") + " or " + last
}

/// The candidate nearest to `word` if it is near enough to be a likely typo.
///
/// "Near enough" is at most two edits, and fewer than half the length of the
/// longer word, so `--sinse` suggests `--since` but `--foo` suggests nothing.
/// Ties go to the earliest candidate, keeping suggestions deterministic.
///
/// ```swift
/// closestMatch(to: "exprot", among: ["export", "import"])   // "export"
/// ```
func closestMatch(to word: String, among candidates: [String]) -> String? {
    var best: (candidate: String, distance: Int)?
    for candidate in candidates {
        let distance = editDistance(word, candidate)
        guard distance <= 2, 2 * distance < max(word.count, candidate.count) else { continue }
        if distance < best?.distance ?? .max { best = (candidate, distance) }
    }
    return best?.candidate
}

/// Levenshtein distance: insertions, deletions and substitutions, each costing one.
func editDistance(_ a: String, _ b: String) -> Int {
    let b = Array(b)
    var previous = Array(0...b.count)
    for (i, x) in a.enumerated() {
        var current = [i + 1]
        for (j, y) in b.enumerated() {
            current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
        }
        previous = current
    }
    return previous[b.count]
}
