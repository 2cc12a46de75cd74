@_spi(Testing) @_spi(Simulation) import Concord
import Foundation
import Synchronization

/// The database file of a freshly installed app, built once per process and copied onto each new device's disk.
///
/// Why: installing a workload — creating its tables, then enabling sync on each, which creates Concord's
/// metadata tables, triggers and indexes — was a fifth of a default run's instructions, and the same
/// work on every device of every seed. A device starts instead as a device cloned at the factory
/// does: its disk holds a copy of the installed file, and its replica, opened on that copy, sees the
/// file is a copy and takes the device's own node id before it stamps anything. The template's node id
/// stamps nothing and appears in no row, register or changeset; every device simply starts by
/// exercising copy detection. Seeds that inject a bug into the replica install the workload on each
/// device themselves, since the bug may be in what installing does.
///
/// The file depends on the workload's schema and synced tables and on the journal mode (stored in
/// the file's header), so those are the key; the same key always builds the same bytes.
///
/// ```swift
/// let bytes = try InstalledImage.bytes(of: workload, journalMode: .wal)
/// disk.createFile(atPath: "/app.sqlite", contents: bytes)
/// ```
enum InstalledImage {
    private struct Key: Hashable {
        /// The workload as canonical JSON: its schema and tables decide the file (Workload is not Hashable).
        let workload: Data
        let journalMode: String
    }

    /// The images built or being built, each behind a lock of its own; workloads whose names are drawn per
    /// seed would grow it without end, so it starts over past a few dozen.
    private static let built = Mutex<[Key: Image]>([:])
    private static let limit = 32

    /// One image: built once, by the first run that wants it, while runs wanting it too wait for it.
    private final class Image: Sendable {
        let bytes = Mutex<[UInt8]?>(nil)
    }

    /// The node id the template replica writes under; a device's replica replaces it on open.
    static let templateNode = NodeID(bytes: Array(repeating: 0xA5, count: NodeID.byteCount))!

    /// The bytes of `workload` installed on a fresh database in `journalMode`, checkpointed.
    static func bytes(of workload: Workload, journalMode: Durability.JournalMode) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let key = Key(workload: try encoder.encode(workload), journalMode: journalMode.rawValue)
        let image = built.withLock { images in
            if let image = images[key] { return image }
            if images.count >= limit { images.removeAll() }
            let image = Image()
            images[key] = image
            return image
        }
        // Built under the image's own lock: runs wanting another image (a wide app's names are drawn per seed)
        // build theirs meanwhile.
        return try image.bytes.withLock { bytes in
            if let bytes { return bytes }
            let built = try build(workload, journalMode: journalMode)
            bytes = built
            return built
        }
    }

    private static func build(_ workload: Workload, journalMode: Durability.JournalMode) throws -> [UInt8] {
        let disk = SimulatedDisk(name: "factory")
        var configuration = Replica.Configuration(
            clock: ManualClock(unixMilliseconds: Simulation.start), merges: Workload.mergeFunctions,
            makeNodeID: { templateNode })
        configuration.disk = disk
        let path = "/app.sqlite"
        let replica = try Replica(path: path, configuration: configuration)
        try replica.database.execute("PRAGMA journal_mode = \(journalMode.rawValue)")
        try workload.install(on: replica)
        try replica.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        guard let bytes = disk.copy(of: path) else { throw SimulatorError.noDatabaseFile }
        return bytes
    }
}
