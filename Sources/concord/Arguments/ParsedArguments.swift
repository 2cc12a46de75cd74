/// The values a command line gave one command, read by argument name.
///
/// Parsing already checked the shape of the command line (required
/// positionals present, allowed values, no duplicates); the typed accessors
/// here check what only the command knows, such as that `--rows` is a
/// number, and throw a ``UsageError`` naming the argument and the bad value.
/// Asking for a name the spec does not declare is a programming error and traps.
///
/// ```swift
/// let db = try arguments.required("db")
/// let format = arguments.option("format")          // its default if absent
/// let tables = arguments.options("table")          // every --table, in order
/// let seeds = try arguments.range("seeds")         // "1..20" → 1...20
/// let rows = try arguments.integer("rows")         // "100000" → 100_000
/// if arguments.flag("json") { … }
/// ```
///
/// Commands read these through their ``ParsableOptions``, whose property
/// wrappers call the typed accessors with the names the spec was built from,
/// so no command spells a name a second time.
struct ParsedArguments: Sendable, Equatable {
    /// The command these arguments were parsed for.
    let command: CommandSpec
    private let positionalValues: [String: [String]]
    private let optionValues: [String: [String]]
    private let presentFlags: Set<String>

    /// Values keyed by argument name; normally built by ``ArgumentParser``.
    init(
        command: CommandSpec,
        positionals: [String: [String]] = [:],
        options: [String: [String]] = [:],
        flags: Set<String> = []
    ) {
        self.command = command
        self.positionalValues = positionals
        self.optionValues = options
        self.presentFlags = flags
    }

    /// The value of a single positional; `nil` only when an optional one is absent.
    func positional(_ name: String) -> String? {
        requirePositional(name)
        return positionalValues[name]?.first
    }

    /// Every value of a repeating positional, in command-line order.
    func positionals(_ name: String) -> [String] {
        requirePositional(name)
        return positionalValues[name] ?? []
    }

    /// The option's value, or its default, or `nil`; for a repeatable option, the last value.
    func option(_ name: String) -> String? {
        let details = requireOption(name)
        return optionValues[name]?.last ?? details.defaultValue
    }

    /// Every value given for the option, in command-line order (its default if none were).
    func options(_ name: String) -> [String] {
        let details = requireOption(name)
        return optionValues[name] ?? details.defaultValue.map { [$0] } ?? []
    }

    /// Whether the flag was given.
    func flag(_ name: String) -> Bool {
        guard case .flag = spec(name).kind else { misuse(name, "is not a flag") }
        return presentFlags.contains(name)
    }

    /// The value of a positional or option, throwing if there is none.
    ///
    /// For positionals that parsing already required, this never throws; it
    /// spares the caller an unwrap.
    func required(_ name: String) throws(UsageError) -> String {
        guard let value = rawValue(name) else {
            throw UsageError("Missing expected argument '\(spec(name).label)'", command: command)
        }
        return value
    }

    /// The value of a positional or option converted to `T`, or `nil` when absent.
    func value<T: LosslessStringConvertible>(_ name: String, as type: T.Type) throws(UsageError) -> T? {
        guard let text = rawValue(name) else { return nil }
        guard let value = T(text) else { throw invalid(name, text) }
        return value
    }

    /// The value of a positional or option as an `Int`.
    func integer(_ name: String) throws(UsageError) -> Int {
        try integer(name, as: Int.self)
    }

    /// The value of a positional or option as an integer of type `T`, such as `--rows 100000`.
    func integer<T: FixedWidthInteger>(_ name: String, as type: T.Type) throws(UsageError) -> T {
        let text = try required(name)
        guard let value = T(text, radix: 10) else { throw invalid(name, text) }
        return value
    }

    /// The value as a `ClosedRange<UInt64>`: `1..20`, `1...20`, `1..<21` or a single `7`.
    func range(_ name: String) throws(UsageError) -> ClosedRange<UInt64> {
        try range(name, as: UInt64.self)
    }

    /// The value as a closed range of `T`; see ``range(_:)`` for the accepted forms.
    func range<T: FixedWidthInteger>(_ name: String, as type: T.Type) throws(UsageError) -> ClosedRange<T> {
        try read(try required(name), for: name) { text throws(InvalidArgument) in try closedRange(text, as: T.self) }
    }

    // MARK: - Typed values

    /// The value of a positional or option read as `T`, or `nil` when absent.
    func typedValue<T: ArgumentValue>(_ name: String) throws(UsageError) -> T? {
        guard let text = rawValue(name) else { return nil }
        return try convert(text, for: name)
    }

    /// Every value of a repeating positional or repeatable option, read as `T`, in command-line order.
    func typedValues<T: ArgumentValue>(_ name: String) throws(UsageError) -> [T] {
        let texts = spec(name).isPositional ? positionals(name) : options(name)
        return try texts.map { text throws(UsageError) in try convert(text, for: name) }
    }

    /// `text`, given for the argument called `name`, read as `T`; a failure names the argument and the value.
    func convert<T: ArgumentValue>(_ text: String, for name: String) throws(UsageError) -> T {
        try read(text, for: name) { text throws(InvalidArgument) in try T(argument: text) }
    }

    /// `text` read by `reader`, its ``InvalidArgument`` turned into the usage error for the argument called `name`.
    private func read<T>(
        _ text: String, for name: String, _ reader: (String) throws(InvalidArgument) -> T
    ) throws(UsageError) -> T {
        do throws(InvalidArgument) {
            return try reader(text)
        } catch {
            throw error.message.map { UsageError($0, command: command) } ?? invalid(name, text, reason: error.reason)
        }
    }

    // MARK: - Lookup

    private func rawValue(_ name: String) -> String? {
        switch spec(name).kind {
        case .positional: positionalValues[name]?.first
        case .option(let details): optionValues[name]?.last ?? details.defaultValue
        case .flag: misuse(name, "is a flag and has no value")
        }
    }

    private func spec(_ name: String) -> ArgumentSpec {
        guard let spec = command.argument(named: name) else { misuse(name, "is not declared") }
        return spec
    }

    private func requirePositional(_ name: String) {
        guard spec(name).isPositional else { misuse(name, "is not a positional argument") }
    }

    private func requireOption(_ name: String) -> ArgumentSpec.OptionDetails {
        guard case .option(let details) = spec(name).kind else { misuse(name, "is not an option") }
        return details
    }

    private func misuse(_ name: String, _ problem: String) -> Never {
        preconditionFailure("'\(name)' \(problem) in the spec of '\(command.name)'")
    }

    private func invalid(_ name: String, _ value: String, reason: String? = nil) -> UsageError {
        let suffix = reason.map { ": \($0)" } ?? ""
        return UsageError("The value '\(value)' is invalid for '\(spec(name).label)'\(suffix)", command: command)
    }
}
