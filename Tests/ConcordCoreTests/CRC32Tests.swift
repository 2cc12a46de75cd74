import ConcordTestTraits
import Testing

@testable import ConcordCore

/// The checksum that ends every binary changeset: zlib's CRC-32, over any sequence, in any pieces.
@Suite("CRC-32", .tags(.core))
struct CRC32Tests {
    private static let check = Array("123456789".utf8)

    @Test func anySequenceOfBytesHashesAlike() {
        #expect(CRC32.checksum(Self.check) == 0xCBF4_3926)
        #expect(CRC32.checksum(Self.check.lazy.map { $0 }) == 0xCBF4_3926, "not contiguous")
        #expect(CRC32.checksum(Self.check[...]) == 0xCBF4_3926)
        #expect(CRC32.checksum("123456789".utf8) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0 && CRC32().value == 0)
        #expect(CRC32.checksum([0]) == 0xD202_EF8D && CRC32.checksum([0xFF, 0xFF, 0xFF, 0xFF]) == 0xFFFF_FFFF)
    }

    @Test func piecesHashLikeTheWhole() {
        for split in 0...Self.check.count {
            var crc = CRC32()
            crc.update(Self.check[..<split])
            crc.update(Self.check[split...].lazy.map { $0 })
            #expect(crc.value == 0xCBF4_3926, "split at \(split)")
            var whole = CRC32()
            whole.update(Self.check)
            #expect(crc == whole)
        }
    }
}
