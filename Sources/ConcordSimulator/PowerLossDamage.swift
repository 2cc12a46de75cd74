@_spi(Simulation) import Concord
import Foundation

/// What a power loss did to a disk's files, told from its images alone: which files it tore, and
/// which kept some of their unsynced changes without tearing.
///
/// `SimulatedDisk.crash(using:tornWriteRate:reorderRate:)` decides in private
/// whether a file's last unsynced write tears and which unsynced changes land,
/// and the simulator may not change the engine to ask. What is left is public:
/// the disk's durable and current images before the power loss, and its image
/// after. A tear fills a whole sector with random bytes, where almost every
/// byte differs from both what was synced and what processes saw; SQLite's own
/// writes (a page written again, a frame rewritten) share most bytes with one
/// of them. So a file counts as torn when some sector of it differs from both
/// in at least 90% of the bytes either covered (at least 16 such bytes), and
/// fewer than 10% of those bytes are zeros (random bytes are zero one time in
/// 256; a hole left where a later write landed and an earlier one did not is
/// all zeros). Without a tear, the only way bytes other than the synced ones survive is a
/// reorder landing some unsynced changes: a file that differs from its synced
/// bytes (or was created or deleted by an unsynced directory change that
/// landed) and has no torn sector counts as reordered.
///
/// ```swift
/// let (durable, current) = (disk.durableImage(), disk.currentImage())
/// disk.crash(using: &generator, tornWriteRate: 0.5, reorderRate: 0.5)
/// let damage = PowerLossDamage(durable: durable, current: current, after: disk.durableImage())
/// damage.tornFiles   // files left with a sector of garbage
/// ```
struct PowerLossDamage: Equatable {
    /// Files left with a sector of garbage.
    var tornFiles = 0
    /// Files (or directory entries) that kept some unsynced changes, none torn.
    var reorderedFiles = 0

    /// Compares each file after the power loss with what was synced and what was seen before it.
    init(durable: SimulatedDisk.Image, current: SimulatedDisk.Image, after: SimulatedDisk.Image) {
        for path in Set(durable.files.keys).union(after.files.keys).sorted() {
            let kept = after.files[path]
            guard kept != durable.files[path] else { continue }
            if let kept, Self.hasGarbageSector(kept, durable.files[path] ?? [], current.files[path] ?? []) {
                tornFiles += 1
            } else {
                reorderedFiles += 1
            }
        }
    }

    /// Whether a sector of `kept` is random bytes that differ from both `synced` and `seen` wherever either has any.
    static func hasGarbageSector(_ kept: [UInt8], _ synced: [UInt8], _ seen: [UInt8]) -> Bool {
        let size = SimulatedDisk.sectorSize
        for start in stride(from: 0, to: kept.count, by: size) {
            // Most sectors are as synced or as seen, which no byte differs from both of: skip them whole.
            let end = min(start + size, kept.count)
            if same(kept, synced, start..<end) || same(kept, seen, start..<end) { continue }
            var (compared, differing, zeros) = (0, 0, 0)
            for index in start..<min(start + size, kept.count) where index < synced.count || index < seen.count {
                compared += 1
                let byte = kept[index]
                if byte == 0 { zeros += 1 }
                if (index >= synced.count || synced[index] != byte) && (index >= seen.count || seen[index] != byte) {
                    differing += 1
                }
            }
            if compared >= 16 && differing * 10 >= compared * 9 && zeros * 10 < compared { return true }
        }
        return false
    }

    /// Whether `a` and `b` hold the same bytes over `range` (`b` reaching its end).
    private static func same(_ a: [UInt8], _ b: [UInt8], _ range: Range<Int>) -> Bool {
        guard range.upperBound <= b.count else { return false }
        return a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in
                memcmp(a.baseAddress! + range.lowerBound, b.baseAddress! + range.lowerBound, range.count) == 0
            }
        }
    }
}
