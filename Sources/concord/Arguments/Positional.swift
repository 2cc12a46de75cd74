/// Declares a positional argument of a command's options: `<db>`, `[<file>]` or `<db> <db> ...`.
///
/// The property's name is the argument's name, and its type says how many
/// values it takes: one (`String`), perhaps one (`String?`), or all the
/// remaining ones (`[String]`, at least `minimum`). Any ``ArgumentValue``
/// type can stand in for `String`.
///
/// ```swift
/// struct SyncOptions: ParsableOptions {
///     @Positional(minimum: 2, help: "Two or more replica database files.")
///     var db: [String]
/// }
/// ```
typealias Positional<Value: Sendable> = ArgumentProperty<ArgumentKind.Positional, Value>

extension ArgumentProperty where Kind == ArgumentKind.Positional, Value: ArgumentValue {
    /// A positional that must be given, such as `<db>`.
    init(help: String) {
        self.init { name in
            .positional(name, .required, help: help)
        } read: { arguments, name throws(UsageError) in
            try arguments.convert(arguments.required(name), for: name)
        }
    }
}

extension ArgumentProperty where Kind == ArgumentKind.Positional {
    /// A positional that may be left out, such as `[<file>]`.
    init<Wrapped: ArgumentValue>(help: String) where Value == Wrapped? {
        self.init { name in
            .positional(name, .optional, help: help)
        } read: { arguments, name throws(UsageError) in
            try arguments.typedValue(name)
        }
    }

    /// A positional taking every remaining value, at least `minimum` of them, such as `<db> <db> ...`.
    init<Element: ArgumentValue>(minimum: Int = 0, help: String) where Value == [Element] {
        self.init { name in
            .positional(name, .repeating(minimum: minimum), help: help)
        } read: { arguments, name throws(UsageError) in
            try arguments.typedValues(name)
        }
    }
}
