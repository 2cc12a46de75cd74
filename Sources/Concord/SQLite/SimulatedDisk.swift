import Foundation

/// A deterministic in-memory disk for one simulated device, so a simulation can cut its power.
///
/// A crash that only kills a process leaves every write in the operating
/// system's cache; a power loss keeps only what was synced, and may tear or
/// reorder the rest. Real files cannot show the second, and their bytes
/// depend on the machine; this disk holds a device's files by path and models
/// both, the same way on every run. Open SQLite on it through a
/// ``ReplicaVFS`` made with ``ReplicaVFS/init(disk:unixMilliseconds:)``, or a
/// ``Replica`` whose configuration names it (``Replica/Configuration/disk``).
/// For simulators and tests only.
///
/// **The model.** Every file has *durable* bytes (what a power loss now
/// would leave) and the bytes processes see: the durable ones with the
/// writes and truncations not yet synced applied in order. `xSync` makes a
/// file's changes durable. The directory has the same two versions: creating
/// or deleting a file is not durable until its directory is synced, which
/// happens exactly when the unix VFS syncs one, so SQLite meets the
/// durability it meets on Linux:
///
/// - `xDelete` with `syncDir` (SQLite asks for it under `PRAGMA synchronous =
///   EXTRA`, when it deletes a rollback journal to commit);
/// - the first `xSync` of a rollback journal, super-journal or WAL that was
///   opened with `SQLITE_OPEN_CREATE`, as the unix VFS does.
///
/// A directory sync makes every creation and deletion in that directory
/// durable. So under `synchronous = FULL` in DELETE mode the deletion that
/// commits a transaction is not durable yet: a power loss right after a
/// commit brings the journal back and SQLite rolls that transaction back
/// when it next opens the file, as it documents (EXTRA exists for this).
/// Only the last transaction can be lost this way: the next one's journal
/// syncs the directory before the database file is written.
///
/// **Crashes.** ``killProcesses()`` is a process crash: every write
/// survives. ``crash(using:tornWriteRate:reorderRate:)`` is a power loss:
/// each file keeps its durable bytes; at the given rates, drawn from the
/// caller's generator, a file's last unsynced write is *torn* (its sectors
/// before the one in flight land, the one in flight holds garbage — all of
/// that sector, also bytes outside the write, since no power-safe overwrite
/// is promised — and the rest do not; a file the write grew is grown first,
/// with garbage) or an arbitrary subset of its unsynced changes lands, in
/// order (*reordering*); unsynced directory changes are reordered the same
/// way. Sectors are 4096 bytes (``sectorSize``): the unit of a modern drive
/// and what the unix VFS reports, so SQLite lays out journals and pads the
/// WAL as it does on a device, and a torn write tears where a real one would.
/// The VFS promises nothing in `xDeviceCharacteristics` (no atomic,
/// safe-append, sequential or power-safe-overwrite writes), so SQLite takes
/// every precaution this model can defeat.
///
/// **What SQLite survives on it** (checked by `SimulatedDiskTests`): with
/// `synchronous = FULL` or `EXTRA` a power loss never corrupts a database,
/// torn and reordered writes included, and keeps every acknowledged commit
/// but, in DELETE mode under FULL, possibly the last. NORMAL keeps a prefix
/// of the commits when writes are not torn; torn ones may, rarely, damage a
/// DELETE-mode database (as SQLite documents) or a WAL whose last synced
/// frame shares a sector with the next write (SQLite pads only under FULL;
/// real devices mostly promise the power-safe overwrite this disk does not).
/// With OFF anything may happen, corruption included. Even under FULL, a
/// power loss that takes the unsynced tail of a commit's padding leaves a
/// WAL that ends mid-sector, and SQLite appends the next transaction there:
/// a second power loss tearing it can garble the commit frame and lose the
/// commit, unless the WAL is checkpointed before that next write, as a
/// ``Replica`` does when it opens (`WALTailRecoveryTests`).
///
/// **After a crash** every connection opened before is dead: each of its
/// calls fails with an I/O error and changes nothing, and a ``ReplicaVFS``
/// made before opens nothing. Relaunching is opening a new ``Replica`` (or
/// ``Database`` through a new ``ReplicaVFS``) on the disk, which then holds
/// the durable image alone. ``cutPower(afterOperations:)`` picks the
/// operation at which the power fails, so a crash can land inside a commit.
///
/// **Determinism.** The disk never reads a clock or the system's randomness:
/// `xRandomness` draws from a fixed sequence, `xSleep` returns at once (in a
/// single-threaded simulation, waiting cannot free a lock), and `'now'` is
/// the clock the VFS was given. SQLite's own nonces and WAL salts come from
/// its process-wide generator, which no VFS can seed: a journal or WAL left by
/// a crash differs in those bytes from run to run; the database file, and
/// every file after a relaunch has recovered, does not.
///
/// ```swift
/// let disk = SimulatedDisk(name: "phone")
/// var configuration = Replica.Configuration(clock: clock)
/// configuration.disk = disk
/// let replica = try Replica(path: "/phone/app.sqlite", configuration: configuration)
/// // ... writes; then the battery dies:
/// var generator = SeededGenerator(seed: 7)
/// disk.crash(using: &generator, tornWriteRate: 0.5, reorderRate: 0.5)
/// let relaunched = try Replica(path: "/phone/app.sqlite", configuration: configuration)
/// ```
@_spi(Simulation)
public final class SimulatedDisk: @unchecked Sendable {
    /// The sector size the VFS reports and the unit in which writes tear: 4096 bytes.
    public static let sectorSize = 4096

    /// The disk's name, part of every file identity it gives (``fileIdentity(of:)``).
    public let name: String

    /// Guards ``state``; every method takes it, so connections on several threads may share the disk.
    private let mutex = NSLock()
    private var state = State()

    /// Everything the disk holds; only read or changed with `mutex` held.
    struct State {
        /// Counts crashes: handles and VFSs of an earlier generation are dead.
        var generation = 0
        var nextFileID = 1
        /// The directory as processes see it.
        var current: [String: SimulatedFile] = [:]
        /// The directory as a power loss would leave it.
        var durable: [String: SimulatedFile] = [:]
        /// Creations (a file) and deletions (`nil`) not yet synced, oldest first.
        var unsyncedEntries: [(path: String, file: SimulatedFile?)] = []
        /// Operations that change the disk so far: writes, truncations, syncs, creations, deletions.
        var operations = 0
        /// The operation count at which the power fails, when one was set.
        var powerFailsAt: Int?
        var isPoweredOff = false
        /// The sequence `xRandomness` draws from.
        var random = SeededGenerator(seed: 0)
    }

    /// An empty disk.
    ///
    /// - Parameter name: identifies the disk in file identities; give each device's disk its own.
    public init(name: String = "disk") {
        self.name = name
    }

    /// A disk holding `image`'s files, all durable, as a restored backup does.
    public convenience init(name: String = "disk", image: Image) {
        self.init(name: name)
        restore(image)
    }

    /// Runs `body` with the disk's lock held.
    func withState<T>(_ body: (inout State) throws -> T) rethrows -> T {
        mutex.lock()
        defer { mutex.unlock() }
        return try body(&state)
    }

    // MARK: Power

    /// How many operations that change the disk have run so far (writes, truncations, syncs,
    /// creations and deletions of files, directory syncs), to pick a point for
    /// ``cutPower(afterOperations:)``.
    public var operationCount: Int { withState { $0.operations } }

    /// Whether the power has failed (see ``cutPower(afterOperations:)``) and no crash has brought it back.
    public var isPoweredOff: Bool { withState { $0.isPoweredOff } }

    /// Makes the power fail at the `count`-th operation that changes the disk from now on (at
    /// once when `count` is 0).
    ///
    /// That operation and every call after it fail with an I/O error and change nothing,
    /// as in a machine that stopped just before it; SQLite reports the error to whoever is
    /// writing. Call ``crash(using:tornWriteRate:reorderRate:)`` next to decide what the disk kept.
    ///
    /// ```swift
    /// disk.cutPower(afterOperations: Int.random(in: 1...40, using: &generator))
    /// try? database.execute("INSERT INTO t VALUES (1)")   // may fail midway through its commit
    /// disk.crash(using: &generator, tornWriteRate: 0.3, reorderRate: 0.3)
    /// ```
    public func cutPower(afterOperations count: Int) {
        withState { state in
            if count <= 0 {
                state.isPoweredOff = true
                state.powerFailsAt = nil
            } else {
                state.powerFailsAt = state.operations + count
            }
        }
    }

    /// The generation connections opened now belong to; a crash starts the next.
    var generation: Int { withState { $0.generation } }

    // MARK: Copies

    /// The bytes of the file at `path` as a process reading it now sees them (unsynced writes
    /// included), as `cp` would copy them; `nil` when there is no such file.
    ///
    /// In WAL mode the latest commits may be in the `-wal` file only: copy it too, or
    /// checkpoint first, as with a real copy.
    ///
    /// ```swift
    /// // cp /phone/app.sqlite to another device
    /// tablet.createFile(atPath: "/tablet/app.sqlite", contents: phone.copy(of: "/phone/app.sqlite")!)
    /// ```
    public func copy(of path: String) -> [UInt8]? {
        withState { $0.current[path]?.current.bytes }
    }

    /// Puts a file holding `contents` at `path`, durable at once, replacing any file there: a copy
    /// made with `cp` and synced, or a file a backup restored.
    ///
    /// The file is a new one (a new ``fileIdentity(of:)``); connections that had the old one open
    /// keep reading it, as after a rename over an open file.
    ///
    /// ```swift
    /// disk.createFile(atPath: "/phone/app.sqlite", contents: backupBytes)
    /// ```
    public func createFile(atPath path: String, contents: [UInt8]) {
        withState { state in
            let file = SimulatedFile(id: state.nextFileID, content: SimulatedFileContent(contents))
            state.nextFileID += 1
            state.current[path] = file
            state.durable[path] = file
            state.unsyncedEntries.removeAll { $0.path == path }
        }
    }

    /// The identity of the file at `path` — the disk's name and the file's number, such as
    /// `"phone:3"` — or `nil` when there is none.
    ///
    /// Like a device and inode, it survives crashes, while a copy (``createFile(atPath:contents:)``,
    /// ``restore(_:)``) gets a new one: the file identity a ``Replica`` on this disk uses to notice
    /// it was copied (``Replica/Configuration/disk`` sets it).
    ///
    /// ```swift
    /// configuration.fileIdentity = { disk.fileIdentity(of: $0) }
    /// ```
    public func fileIdentity(of path: String) -> String? {
        withState { state in state.current[path].map { "\(name):\($0.id)" } }
    }

    /// A disk's files and their bytes.
    public struct Image: Hashable, Sendable {
        /// Each file's bytes, by path.
        public var files: [String: [UInt8]]

        /// An image of `files`.
        public init(files: [String: [UInt8]] = [:]) { self.files = files }

        /// The paths of the files, sorted.
        public var paths: [String] { files.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } }
    }

    /// What a power loss now would leave, were nothing torn or reordered: every file's durable
    /// bytes under the directory's durable names. A backup taken now, to restore later with
    /// ``restore(_:)`` or ``init(name:image:)``.
    ///
    /// ```swift
    /// let backup = disk.durableImage()
    /// // ... days of edits later, the user restores the backup:
    /// disk.restore(backup)
    /// ```
    public func durableImage() -> Image {
        withState { state in Image(files: state.durable.mapValues { $0.durable.bytes }) }
    }

    /// Whether a power loss now could lose anything: ``currentImage()`` differs from ``durableImage()``
    /// (a file's bytes, or the directory), told without copying either.
    ///
    /// ```swift
    /// if disk.hasUnsyncedChanges { print("a power loss now loses something") }
    /// ```
    public var hasUnsyncedChanges: Bool {
        withState { state in
            state.current.count != state.durable.count
                || state.current.contains { path, file in
                    guard let synced = state.durable[path] else { return true }
                    return file.current != synced.durable
                }
        }
    }

    /// What processes see now: every file's bytes, unsynced changes included.
    public func currentImage() -> Image {
        withState { state in Image(files: state.current.mapValues { $0.current.bytes }) }
    }
}
