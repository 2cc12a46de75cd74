/// Builds a ``ParsableOptions`` value from its already parsed property wrappers.
///
/// Swift writes `init(from:)` for a `Decodable` type, assigning every
/// property: that is the one way to set a type's properties without knowing
/// them. ``ParsableOptions/init(_:)`` parses each wrapper itself, and this
/// decoder hands them to that initializer by property name. A property that
/// is not an argument wrapper has nothing to receive and is a programming
/// error, reported when the command's options are first decoded (the tests
/// decode every command's options).
///
/// ```swift
/// let options = try ExportOptions(from: ParsedOptionsDecoder(wrappers: ["since": parsedSince, ...]))
/// ```
struct ParsedOptionsDecoder: Decoder {
    /// Parsed wrappers by property name (`since`, `largeRuns`).
    let wrappers: [String: any ArgumentDeclaration]

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Container(wrappers: wrappers))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw unsupported() }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw unsupported() }

    private struct Container<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let wrappers: [String: any ArgumentDeclaration]
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { wrappers.keys.compactMap(Key.init(stringValue:)) }

        func contains(_ key: Key) -> Bool { wrappers[key.stringValue] != nil }

        func decodeNil(forKey key: Key) -> Bool { false }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            guard let wrapper = wrappers[key.stringValue] as? T else {
                throw DecodingError.keyNotFound(
                    key,
                    DecodingError.Context(
                        codingPath: [key],
                        debugDescription: "'\(key.stringValue)' is not declared with @Positional, @Option or @Flag"))
            }
            return wrapper
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> { throw unsupported() }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw unsupported() }

        func superDecoder() throws -> any Decoder { throw unsupported() }

        func superDecoder(forKey key: Key) throws -> any Decoder { throw unsupported() }
    }
}

/// Options are flat: nothing in them nests or decodes without a key.
private func unsupported() -> DecodingError {
    DecodingError.dataCorrupted(
        DecodingError.Context(
            codingPath: [], debugDescription: "command-line options hold only @Positional, @Option and @Flag properties"
        ))
}
