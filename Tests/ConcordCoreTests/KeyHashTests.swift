import ConcordTestTraits
import Testing

@testable import ConcordCore

/// The key hash is stored with every register row, so it must never change: these values are
/// FNV-1a 64 of the type tag and the key's little-endian bytes, computed independently (Python).
@Suite("Key hash", .tags(.core))
struct KeyHashTests {
    @Test func hashesArePinned() {
        let pinned: [(SQLiteValue, Int64)] = [
            (.null, -5_808_590_958_014_384_161),
            (.integer(1), 8_184_434_590_310_759_885),
            (.integer(.min), 5_951_978_445_854_759_468),
            (.real(1.0), 1_002_294_962_746_606_296),
            (.real(0.0), 925_820_630_484_784_613),
            (.real(-0.0), 925_961_367_973_195_621),
            (.text("r1"), -2_089_791_068_389_749_917),
            (.text(""), -5_808_589_858_502_755_950),
            (.text(SQLiteText(bytes: [0x61, 0xFF, 0x62])), 3_641_804_104_890_150_400),
            (.blob(Array("r1".utf8)), -5_210_584_399_941_171_962),
        ]
        for (key, hash) in pinned { #expect(KeyHash.of(key) == hash, "\(key)") }
    }

    @Test func theTypeIsPartOfTheHash() {
        // The same bytes under another type, and the same number as integer and real, hash apart.
        #expect(KeyHash.of(.text("r1")) != KeyHash.of(.blob(Array("r1".utf8))))
        #expect(KeyHash.of(.integer(1)) != KeyHash.of(.real(1)))
        #expect(KeyHash.of(.text("")) != KeyHash.of(.blob([])) && KeyHash.of(.text("")) != KeyHash.of(.null))
        // Text hashes its bytes: canonically equivalent spellings are different keys.
        #expect(KeyHash.of(.text("\u{E9}")) != KeyHash.of(.text("e\u{301}")))
    }
}
