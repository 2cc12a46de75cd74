/// A command's arguments as a Swift type: one property per argument, declared once.
///
/// Each property is a ``Positional``, ``Option`` or ``Flag`` that carries the
/// argument's help, value name and default; its name, in kebab-case, is the
/// argument's name. The command's spec (and so its parsing and help) is
/// derived from these declarations, and ``init(_:)`` decodes a parsed command
/// line into the type once, converting every value. A command then reads
/// `options.since`: a misspelled name does not compile, where a string
/// looked up at run time would trap. This is swift-argument-parser's design,
/// which cannot be fetched here, over the hand-written parser.
///
/// A conforming type needs `init()`, which Swift writes when every property
/// has a wrapper, and `Decodable`, which Swift writes too; `validate()` checks
/// what no single argument can.
///
/// ```swift
/// struct ExportOptions: ParsableOptions {
///     @Positional(help: "The replica's database file.")
///     var db: String
///     @Option(valueName: "version", help: "Only changes stored after this version.")
///     var since: Int64 = 0
///
///     func validate() throws(UsageError) {
///         guard since >= 0 else { throw UsageError("--since takes a version of at least 0") }
///     }
/// }
///
/// let options = try ExportOptions(parsed)   // parsed: ParsedArguments for ExportOptions.arguments
/// options.since                             // 0 when --since was not given
/// ```
protocol ParsableOptions: Decodable, Sendable {
    /// Options holding only their declarations and defaults, from which the spec is read.
    init()
    /// Checks combinations of values, after every value has been read. The default accepts anything.
    func validate() throws(UsageError)
}

extension ParsableOptions {
    func validate() throws(UsageError) {}

    /// The arguments the properties declare, in declaration order.
    static var arguments: [ArgumentSpec] {
        declarations.map { $0.declaration.spec(named: argumentName(of: $0.property)) }
    }

    /// Decodes a command line parsed against ``arguments``, then validates it.
    init(_ parsed: ParsedArguments) throws(UsageError) {
        var wrappers: [String: any ArgumentDeclaration] = [:]
        for (property, declaration) in Self.declarations {
            wrappers[property] = try declaration.parsed(from: parsed, name: argumentName(of: property))
        }
        do {
            try self.init(from: ParsedOptionsDecoder(wrappers: wrappers))
        } catch {
            preconditionFailure("\(Self.self): \(error)")
        }
        try validate()
    }

    /// Every argument wrapper by property name (`since`, not the storage's `_since`), in declaration order.
    static var declarations: [(property: String, declaration: any ArgumentDeclaration)] {
        Mirror(reflecting: Self()).children.compactMap { child in
            guard let label = child.label, let declaration = child.value as? any ArgumentDeclaration else { return nil }
            return (String(label.drop { $0 == "_" }), declaration)
        }
    }
}

/// A property's name in kebab-case, as its argument is named: `largeRuns` → `large-runs`.
func argumentName(of property: String) -> String {
    property.reduce(into: "") { name, character in
        if character.isUppercase {
            name += "-" + character.lowercased()
        } else {
            name.append(character)
        }
    }
}
