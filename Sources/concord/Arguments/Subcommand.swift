/// One subcommand of the tool: the arguments it accepts and what it does with them.
///
/// Each subcommand lives in its own file as a static member, next to the
/// ``ParsableOptions`` type declaring its arguments, so the list in the tool
/// reads like the help it produces. `run` gets the decoded options and
/// writes only through `output`, so tests can run it in memory.
///
/// ```swift
/// struct StatusOptions: ParsableOptions {
///     @Positional(help: "The replica's database file.")
///     var db: String
/// }
///
/// extension Subcommand {
///     static let status = Subcommand("status", abstract: "Show a replica's sync state.",
///                                    options: StatusOptions.self) { options, output in
///         print("Replica \(options.db)", to: &output)
///     }
/// }
/// ```
struct Subcommand: Sendable {
    /// Its name, abstract and arguments.
    let spec: CommandSpec
    /// Does the work. A thrown ``UsageError`` exits 64 with usage, an ``ExitCode`` exits quietly
    /// with that status, and anything else prints `Error: <description>` and exits 1.
    let run: @Sendable (ParsedArguments, inout Output) throws -> Void
    /// The type its arguments decode into; `nil` for a subcommand that reads ``ParsedArguments`` itself.
    private(set) var options: (any ParsableOptions.Type)?

    init(_ spec: CommandSpec, run: @escaping @Sendable (ParsedArguments, inout Output) throws -> Void) {
        self.spec = spec
        self.run = run
    }
}

extension Subcommand {
    /// A subcommand whose arguments are those `options` declares, decoded into it before `run` sees them.
    ///
    /// A value that does not convert, or options that fail their `validate()`,
    /// end the command with the usage error before `run` starts.
    init<Options: ParsableOptions>(
        _ name: String, abstract: String, discussion: String? = nil, options: Options.Type,
        run: @escaping @Sendable (Options, inout Output) throws -> Void
    ) {
        let spec = CommandSpec(name: name, abstract: abstract, discussion: discussion, arguments: Options.arguments)
        self.init(spec) { parsed, output in
            try run(try Options(parsed), &output)
        }
        self.options = Options.self
    }
}
