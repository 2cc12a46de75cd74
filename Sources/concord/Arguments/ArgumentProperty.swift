/// The property wrapper behind `@Positional`, `@Option` and `@Flag`: an argument's declaration and, once parsed, its value.
///
/// `Kind` only selects the initializers (``ArgumentKind``), so the three
/// attributes share one implementation. The argument's name is not stored:
/// it comes from the property's name (`largeRuns` is `--large-runs`), so it is
/// written once, in Swift, where the compiler checks every use.
///
/// ```swift
/// struct Options: ParsableOptions {
///     @Option(valueName: "r", help: "Runs per size.")
///     var runs = 3          // an ArgumentProperty<ArgumentKind.Option, Int>
/// }
/// ```
@propertyWrapper
struct ArgumentProperty<Kind, Value: Sendable>: ArgumentDeclaration, Decodable {
    /// The argument's spec, given the name derived from the property.
    private let makeSpec: @Sendable (String) -> ArgumentSpec
    /// The property's value, read from the arguments the command line gave.
    private let read: @Sendable (ParsedArguments, String) throws(UsageError) -> Value
    /// The default before parsing (or `nil` if there is none), the parsed value after.
    private var value: Value?

    init(
        default value: Value? = nil,
        spec: @escaping @Sendable (String) -> ArgumentSpec,
        read: @escaping @Sendable (ParsedArguments, String) throws(UsageError) -> Value
    ) {
        self.value = value
        self.makeSpec = spec
        self.read = read
    }

    /// The value, which exists once parsed (or declared with a default).
    var wrappedValue: Value {
        get {
            guard let value else { preconditionFailure("an argument was read before it was parsed") }
            return value
        }
        set { value = newValue }
    }

    func spec(named name: String) -> ArgumentSpec { makeSpec(name) }

    func parsed(from arguments: ParsedArguments, name: String) throws(UsageError) -> Self {
        var copy = self
        copy.value = try read(arguments, name)
        return copy
    }

    var heldValue: (any Sendable)? { value }

    /// Arguments are never decoded on their own: ``ParsableOptions/init(_:)`` hands over parsed copies.
    init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(
            DecodingError.Context(
                codingPath: decoder.codingPath,
                debugDescription: "command-line arguments decode only through ParsableOptions"))
    }
}

/// The kinds of ``ArgumentProperty``: each has its own attribute and initializers.
enum ArgumentKind {
    /// `@Positional`: `<db>`, `[<file>]`, `<db> <db> ...`.
    enum Positional {}
    /// `@Option`: `--since <version>`.
    enum Option {}
    /// `@Flag`: `--json`.
    enum Flag {}
}
