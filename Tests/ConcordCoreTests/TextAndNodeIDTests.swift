import ConcordTestTraits
import ConcordTesting
import Foundation
import Testing

@testable import ConcordCore

/// Changeset text is accepted exactly when it is valid UTF-8; node ids order and compare as their bytes.
@Suite(.tags(.core))
struct TextAndNodeIDTests {
    private func validUTF8(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { String(validUTF8: $0) }
    }

    private func strict(_ bytes: [UInt8]) -> String? {
        String(validating: bytes, as: UTF8.self)
    }

    @Test func acceptsExactlyWhatTheStrictCheckAccepts() {
        let cases: [[UInt8]] = [
            [], Array("title number 7".utf8), Array("caf\u{E9} \u{1F600}".utf8), [0x61, 0x00, 0x62],
            [0xFF], [0xC3, 0x28], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
            // A 4-byte sequence cut short is repaired to one U+FFFD, also 3 bytes: the length alone would not tell.
            [0xF0, 0x9F, 0x98, 0x41], [0x41, 0xF0, 0x9F, 0x98],
        ]
        for bytes in cases {
            #expect(validUTF8(bytes) == strict(bytes), "\(bytes)")
        }
    }

    /// Mostly ASCII with lead, continuation and invalid bytes mixed in, so valid and invalid both come up often.
    private static let textBytes = Gen.oneOf(
        [0x20...0x7E, 0x80...0xBF, 0xC0...0xDF, 0xE0...0xEF, 0xF0...0xFF].map { range in
            Gen.int(in: range).map { UInt8($0) }
        }
    ).array(length: 0...24)

    @Test func randomBytesAreJudgedLikeTheStrictCheck() throws {
        try Property.check(Self.textBytes, iterations: 20_000) { bytes in validUTF8(bytes) == strict(bytes) }
    }

    private static let idBytes = Gen.int(in: 0...255).map { UInt8($0) }.array(length: 16...16)

    /// Two ids; in a third of the pairs the second shares all but its last byte with the first,
    /// to test ties in the first word.
    private static let idPairs = Gen.zip(idBytes, idBytes, Gen.int(in: 0...2))

    @Test func nodeIDsKeepTheirBytesAndOrderByThem() throws {
        try Property.check(Self.idPairs, iterations: 5_000) { pair in
            let (first, other, shape) = pair
            var second = other
            if shape == 0 { second = Array(first.prefix(15)) + [other[15]] }
            let (a, b) = (NodeID(bytes: first)!, NodeID(bytes: second)!)
            return a.bytes == first && b.bytes == second && NodeID(hex: a.description) == a
                && (a < b) == first.lexicographicallyPrecedes(second)
                && (b < a) == second.lexicographicallyPrecedes(first)
                && (a == b) == (first == second)
                && (a != b || a.hashValue == b.hashValue)
        }
        #expect(NodeID(bytes: Array(repeating: 0, count: 15)) == nil)
    }
}
