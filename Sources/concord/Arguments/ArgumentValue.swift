/// A type an option or positional can hold, read from one command-line token.
///
/// Each command declares its arguments with their Swift types (see
/// ``ParsableOptions``); conforming a type here is what lets it appear there.
/// Reading a value can fail with a reason, which the parser turns into
/// swift-argument-parser's wording: `The value 'x' is invalid for '--seeds
/// <a..b>': the range is empty`. Integers, strings, closed ranges and
/// string-backed `CaseIterable` enums conform already; an enum's cases are
/// also the values the parser accepts and help lists.
///
/// ```swift
/// enum Format: String, CaseIterable, ArgumentValue { case binary, json }
///
/// struct Percent: ArgumentValue {
///     var value: Int
///     init(argument: String) throws(InvalidArgument) {
///         guard let value = Int(argument), (0...100).contains(value) else { throw InvalidArgument("expected 0 to 100") }
///         self.value = value
///     }
///     var argumentText: String { String(value) }
/// }
/// ```
protocol ArgumentValue: Sendable {
    /// Reads the value from its command-line spelling.
    init(argument: String) throws(InvalidArgument)
    /// How the value is spelled on a command line; help shows a default this way.
    var argumentText: String { get }
    /// The only spellings accepted, checked while parsing; empty (the default) accepts any.
    static var allowedValues: [String] { get }
}

extension ArgumentValue {
    static var allowedValues: [String] { [] }
}

extension String: ArgumentValue {
    init(argument: String) {
        self = argument
    }

    var argumentText: String { self }
}

extension ArgumentValue where Self: FixedWidthInteger {
    init(argument: String) throws(InvalidArgument) {
        guard let value = Self(argument, radix: 10) else { throw InvalidArgument() }
        self = value
    }

    var argumentText: String { String(self) }
}

extension Int: ArgumentValue {}
extension Int64: ArgumentValue {}
extension UInt64: ArgumentValue {}

/// `1..20`, `1...20`, `1..<21` or a single `7`.
extension ClosedRange: ArgumentValue where Bound == UInt64 {
    init(argument: String) throws(InvalidArgument) {
        self = try closedRange(argument, as: UInt64.self)
    }

    var argumentText: String { "\(lowerBound)..\(upperBound)" }
}

extension ArgumentValue where Self: CaseIterable & RawRepresentable, RawValue == String {
    /// Parsing already refused anything but ``allowedValues``, so this fails only when called directly.
    init(argument: String) throws(InvalidArgument) {
        guard let value = Self(rawValue: argument) else { throw InvalidArgument() }
        self = value
    }

    var argumentText: String { rawValue }

    static var allowedValues: [String] { allCases.map(\.rawValue) }
}

/// Reads `a..b`, `a...b` (both inclusive), `a..<b` (exclusive) or a lone `a`.
func closedRange<T: FixedWidthInteger>(_ text: String, as type: T.Type) throws(InvalidArgument) -> ClosedRange<T> {
    let malformed = InvalidArgument("expected a number or a range such as 1..20")
    for separator in ["..<", "...", ".."] {
        guard let found = text.firstRange(of: separator) else { continue }
        guard let lower = T(text[..<found.lowerBound], radix: 10),
            let upper = T(text[found.upperBound...], radix: 10)
        else { throw malformed }
        let isEmpty = separator == "..<" ? lower >= upper : lower > upper
        guard !isEmpty else { throw InvalidArgument("the range is empty") }
        return separator == "..<" ? lower...(upper - 1) : lower...upper
    }
    guard let single = T(text, radix: 10) else { throw malformed }
    return single...single
}
