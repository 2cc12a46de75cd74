@_spi(Simulation) import Concord
import ConcordTestSupport
import Testing

@testable import ConcordSimulator

/// Telling torn files from reordered ones by the disk's images alone.
@Suite("Power-loss damage", .tags(.simulation))
struct PowerLossDamageTests {
    static let sector = SimulatedDisk.sectorSize

    /// A disk image holding `files`.
    private func image(_ files: [String: [UInt8]]) -> SimulatedDisk.Image {
        let disk = SimulatedDisk(name: "image")
        for (path, bytes) in files { disk.createFile(atPath: path, contents: bytes) }
        return disk.durableImage()
    }

    /// Bytes that look like an SQLite page: a few values, mostly zeros.
    private func page(_ fill: UInt8) -> [UInt8] {
        (0..<Self.sector).map { $0 % 64 == 0 ? fill : 0 }
    }

    @Test func aSectorOfRandomBytesIsATear() {
        var generator = SeededGenerator(seed: 7)
        let garbage = (0..<Self.sector).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let damage = PowerLossDamage(
            durable: image(["/db": page(1) + page(1)]), current: image(["/db": page(2) + page(2)]),
            after: image(["/db": page(2) + garbage]))
        #expect([damage.tornFiles, damage.reorderedFiles] == [1, 0])
    }

    @Test func unsyncedChangesLandedInPartAreAReorder() {
        let damage = PowerLossDamage(
            durable: image(["/db": page(1) + page(1)]), current: image(["/db": page(2) + page(2), "/db-wal": page(3)]),
            after: image(["/db": page(2) + page(1), "/db-wal": page(3)]))
        #expect([damage.tornFiles, damage.reorderedFiles] == [0, 2], "a page landed; a file's creation landed")
    }

    /// A hole of zeros where a later write landed and an earlier one did not is no tear.
    @Test func aHoleOfZerosIsNoTear() {
        let damage = PowerLossDamage(
            durable: image(["/wal": page(1)]), current: image(["/wal": page(1) + page(5) + page(6)]),
            after: image(["/wal": page(1) + [UInt8](repeating: 0, count: Self.sector) + page(6)]))
        #expect([damage.tornFiles, damage.reorderedFiles] == [0, 1])
    }

    @Test func nothingLandedIsNoDamage() {
        let damage = PowerLossDamage(
            durable: image(["/db": page(1)]), current: image(["/db": page(2)]), after: image(["/db": page(1)]))
        #expect([damage.tornFiles, damage.reorderedFiles] == [0, 0])
    }
}
