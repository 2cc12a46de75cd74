import Foundation
import Testing

@testable import Concord

/// The seed a randomized test in this file runs: `CONCORD_SEED` when set (to replay a failure), else `fixed`.
private func seed(_ fixed: UInt64) -> UInt64 {
    ProcessInfo.processInfo.environment["CONCORD_SEED"].flatMap(UInt64.init) ?? fixed
}

/// Changeset text is accepted exactly when it is valid UTF-8; node ids order and hash as their bytes.
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

    @Test func randomBytesAreJudgedLikeTheStrictCheck() {
        let seed = seed(0x5EED_0007)
        var rng = SeededGenerator(seed: seed)
        // Mostly ASCII with lead, continuation and invalid bytes mixed in, so valid and invalid both come up often.
        let pool: [ClosedRange<UInt8>] = [0x20...0x7E, 0x80...0xBF, 0xC0...0xDF, 0xE0...0xEF, 0xF0...0xFF]
        var mismatches = 0
        for _ in 0..<50_000 {
            let bytes = (0..<Int.random(in: 0...24, using: &rng)).map { _ in
                UInt8.random(in: pool.randomElement(using: &rng)!, using: &rng)
            }
            if validUTF8(bytes) != strict(bytes) {
                mismatches += 1
                Issue.record("\(bytes) judged differently (replay with CONCORD_SEED=\(seed))")
                if mismatches > 5 { return }
            }
        }
    }

    @Test func nodeIDsKeepTheirBytesAndOrderByThem() {
        let seed = seed(0x5EED_0016)
        var rng = SeededGenerator(seed: seed)
        var ids: [NodeID] = []
        for index in 0..<400 {
            // Every fourth id shares all but its last byte with the one before, to test ties in the first word.
            var bytes = index % 4 == 3 ? ids[index - 1].bytes : (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if index % 4 == 3 { bytes[15] &+= 1 }
            let id = NodeID(bytes: bytes)!
            #expect(id.bytes == bytes, "replay with CONCORD_SEED=\(seed)")
            #expect(NodeID(hex: id.description) == id, "replay with CONCORD_SEED=\(seed)")
            ids.append(id)
        }
        for a in ids.prefix(100) {
            for b in ids {
                #expect((a < b) == a.bytes.lexicographicallyPrecedes(b.bytes), "\(a) vs \(b), CONCORD_SEED=\(seed)")
                #expect((a == b) == (a.bytes == b.bytes), "\(a) vs \(b), CONCORD_SEED=\(seed)")
                if a == b { #expect(a.hashValue == b.hashValue) }
            }
        }
        #expect(NodeID(bytes: Array(repeating: 0, count: 15)) == nil)
    }
}
