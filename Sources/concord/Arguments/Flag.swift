/// Declares a flag of a command's options, such as `--json`: true when given, false otherwise.
///
/// The property's name, in kebab-case, is the flag's name (`keepGoing` is
/// `--keep-going`). A flag starts out false, as its declaration says.
///
/// ```swift
/// struct StatusOptions: ParsableOptions {
///     @Flag(help: "Print machine-readable JSON.")
///     var json = false
/// }
/// ```
typealias Flag = ArgumentProperty<ArgumentKind.Flag, Bool>

extension ArgumentProperty where Kind == ArgumentKind.Flag, Value == Bool {
    /// A flag; `wrappedValue` must be false, since a flag can only be switched on.
    init(wrappedValue: Bool, short: Character? = nil, help: String) {
        precondition(!wrappedValue, "a flag starts out false")
        self.init(default: false) { name in
            .flag(name, short: short, help: help)
        } read: { arguments, name in
            arguments.flag(name)
        }
    }
}
