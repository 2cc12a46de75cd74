/// A property of a ``ParsableOptions`` type that declares a command-line argument, seen without its types.
///
/// ``ParsableOptions`` finds these among a type's properties (they are the
/// ``ArgumentProperty`` values behind `@Positional`, `@Option` and `@Flag`)
/// to build the command's spec, and gets from each a copy holding the parsed
/// value.
///
/// ```swift
/// let declaration: any ArgumentDeclaration = Option<Int>(wrappedValue: 3, help: "Runs per size.")
/// declaration.spec(named: "runs").label   // "--runs <runs>"
/// ```
protocol ArgumentDeclaration: Sendable {
    /// The argument's spec under the name derived from its property.
    func spec(named name: String) -> ArgumentSpec
    /// A copy holding the value the command line gave the argument called `name`.
    func parsed(from arguments: ParsedArguments, name: String) throws(UsageError) -> Self
    /// The value held: a default before parsing (`nil` if there is none), the parsed value after.
    var heldValue: (any Sendable)? { get }
}
