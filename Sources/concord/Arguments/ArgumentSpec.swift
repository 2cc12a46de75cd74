/// One argument a command accepts: a positional, an option taking a value, or a flag.
///
/// Commands describe their arguments as data instead of parsing by hand, so
/// parsing, error messages and help text all come from one description and
/// cannot drift apart. Names are kebab-case and are also the keys for the
/// accessors on ``ParsedArguments``.
///
/// ```swift
/// let arguments: [ArgumentSpec] = [
///     .positional("db", help: "The replica's database file."),
///     .option("since", valueName: "version", default: "0", help: "Only changes after this version."),
///     .option("format", default: "binary", allowedValues: ["binary", "json"], help: "binary or json."),
///     .option("table", valueName: "name", repeatable: true, help: "Only this table; repeat for more."),
///     .flag("json", help: "Print JSON instead of text."),
/// ]
/// ```
struct ArgumentSpec: Sendable, Equatable {
    /// How many values a positional argument takes.
    enum Arity: Sendable, Equatable {
        /// Exactly one value.
        case required
        /// Zero or one value.
        case optional
        /// All remaining values, at least `minimum` of them.
        case repeating(minimum: Int)
    }

    /// What an option accepts beyond its name.
    struct OptionDetails: Sendable, Equatable {
        /// Shown as `<valueName>` in usage and help.
        var valueName: String
        /// Used when the option is absent, and shown in help as `(default: …)`.
        var defaultValue: String?
        /// The only values accepted, checked while parsing; empty means any value.
        var allowedValues: [String]
        /// Whether the option may be given more than once, collecting every value.
        var repeatable: Bool
    }

    /// What kind of argument this is.
    enum Kind: Sendable, Equatable {
        case positional(Arity)
        case option(OptionDetails)
        case flag
    }

    /// The kebab-case name: `db` shows as `<db>`, `since` as `--since`.
    let name: String
    /// An optional one-letter alias for options and flags, as in `-o`.
    let shortName: Character?
    /// One line (wrapped if long) describing the argument in help.
    let help: String
    let kind: Kind

    /// A positional argument, such as `<db>`, `[<file>]` or `<db> <db> ...`.
    static func positional(_ name: String, _ arity: Arity = .required, help: String) -> ArgumentSpec {
        ArgumentSpec(name: name, shortName: nil, help: help, kind: .positional(arity))
    }

    /// An option taking a value, such as `--since <version>` or `-o, --output <file>`.
    static func option(
        _ name: String,
        short: Character? = nil,
        valueName: String? = nil,
        default defaultValue: String? = nil,
        allowedValues: [String] = [],
        repeatable: Bool = false,
        help: String
    ) -> ArgumentSpec {
        let details = OptionDetails(
            valueName: valueName ?? name, defaultValue: defaultValue,
            allowedValues: allowedValues, repeatable: repeatable)
        return ArgumentSpec(name: name, shortName: short, help: help, kind: .option(details))
    }

    /// A flag that is either present or not, such as `--json`.
    static func flag(_ name: String, short: Character? = nil, help: String) -> ArgumentSpec {
        ArgumentSpec(name: name, shortName: short, help: help, kind: .flag)
    }

    var isPositional: Bool {
        if case .positional = kind { true } else { false }
    }

    /// How the argument is named in messages: `<db>`, `--since <version>`, `--json`.
    var label: String {
        switch kind {
        case .positional: "<\(name)>"
        case .option(let details): "--\(name) <\(details.valueName)>"
        case .flag: "--\(name)"
        }
    }
}

/// Everything about one subcommand that parsing and help need.
///
/// The dispatcher parses a subcommand's arguments against its spec, and the
/// help formatter renders the same spec, so the two always agree.
///
/// ```swift
/// let export = CommandSpec(
///     name: "export",
///     abstract: "Export the changes a replica holds.",
///     arguments: [.positional("db", help: "The replica's database file.")]
/// )
/// ```
struct CommandSpec: Sendable, Equatable {
    /// The word after `concord` that selects this command.
    let name: String
    /// One line, shown after `OVERVIEW:` and in the root help's list.
    let abstract: String
    /// Further paragraphs shown under the abstract in the command's help.
    let discussion: String?
    /// In the order they appear in usage and help.
    let arguments: [ArgumentSpec]

    /// Declares a command; traps on a spec no command line could satisfy unambiguously.
    init(name: String, abstract: String, discussion: String? = nil, arguments: [ArgumentSpec] = []) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        validate()
    }

    /// The positional arguments, in order.
    var positionals: [ArgumentSpec] { arguments.filter(\.isPositional) }

    /// The argument called `name`, if any.
    func argument(named name: String) -> ArgumentSpec? {
        arguments.first { $0.name == name }
    }

    /// Programmer errors in a spec, caught the first time the spec is built.
    private func validate() {
        var names: Set<String> = ["help"]
        var shortNames: Set<Character> = ["h"]
        var sawNonRequired = false
        var sawRepeating = false
        for argument in arguments {
            precondition(isKebabCase(argument.name), "'\(argument.name)' in '\(name)' is not kebab-case")
            precondition(names.insert(argument.name).inserted, "'\(name)' declares '\(argument.name)' twice")
            if let short = argument.shortName {
                precondition(shortNames.insert(short).inserted, "'\(name)' declares '-\(short)' twice")
            }
            switch argument.kind {
            case .positional(let arity):
                precondition(!sawRepeating, "'\(name)': only the last positional may repeat")
                if arity == .required {
                    precondition(!sawNonRequired, "'\(name)': required positionals must come first")
                } else {
                    sawNonRequired = true
                }
                if case .repeating = arity { sawRepeating = true }
            case .option(let details):
                precondition(
                    !(details.repeatable && details.defaultValue != nil),
                    "'\(name)': repeatable option '\(argument.name)' cannot have a default")
                if let value = details.defaultValue, !details.allowedValues.isEmpty {
                    precondition(
                        details.allowedValues.contains(value),
                        "'\(name)': default '\(value)' of '\(argument.name)' is not an allowed value")
                }
            case .flag:
                break
            }
        }
    }
}

private func isKebabCase(_ name: String) -> Bool {
    !name.isEmpty && !name.hasPrefix("-") && !name.hasSuffix("-")
        && name.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
}
