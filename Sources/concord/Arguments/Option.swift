/// Declares an option of a command's options: `--since <version>`, `-o, --output <file>`, `--table <name> ...`.
///
/// The property's name, in kebab-case, is the option's name (`jsonFile` is
/// `--json-file`), and its type says what it takes: a value with a default
/// (`var since: Int64 = 0`, shown in help as `(default: 0)`), perhaps a value
/// (`String?`), or every value given (`[String]`, repeatable). The value's
/// type is any ``ArgumentValue``; an enum's cases are the values accepted.
///
/// ```swift
/// struct ExportOptions: ParsableOptions {
///     @Option(valueName: "version", help: "Only changes stored after this version.")
///     var since: Int64 = 0
///     @Option(short: "o", valueName: "file", help: "Write to this file instead of standard output.")
///     var output: String?
/// }
/// ```
typealias Option<Value: Sendable> = ArgumentProperty<ArgumentKind.Option, Value>

extension ArgumentProperty where Kind == ArgumentKind.Option, Value: ArgumentValue {
    /// An option with a default, which applies when the option is absent.
    init(wrappedValue: Value, short: Character? = nil, valueName: String? = nil, help: String) {
        self.init(default: wrappedValue) { name in
            .option(
                name, short: short, valueName: valueName, default: wrappedValue.argumentText,
                allowedValues: Value.allowedValues, help: help)
        } read: { arguments, name throws(UsageError) in
            try arguments.convert(arguments.required(name), for: name)
        }
    }
}

extension ArgumentProperty where Kind == ArgumentKind.Option {
    /// An option that may be left out; the property is `nil` then.
    init<Wrapped: ArgumentValue>(short: Character? = nil, valueName: String? = nil, help: String)
    where Value == Wrapped? {
        self.init { name in
            .option(name, short: short, valueName: valueName, allowedValues: Wrapped.allowedValues, help: help)
        } read: { arguments, name throws(UsageError) in
            try arguments.typedValue(name)
        }
    }

    /// An option that may be given any number of times, collecting every value in order.
    init<Element: ArgumentValue>(short: Character? = nil, valueName: String? = nil, help: String)
    where Value == [Element] {
        self.init { name in
            .option(
                name, short: short, valueName: valueName, allowedValues: Element.allowedValues, repeatable: true,
                help: help)
        } read: { arguments, name throws(UsageError) in
            try arguments.typedValues(name)
        }
    }
}
