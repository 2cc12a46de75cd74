import CSQLite

/// The VFS a replica's connection goes through: the default one (or a
/// simulated disk), with an injectable clock and statement journals kept in memory.
///
/// **Clock.** Capture triggers stamp a write with SQL's `'now'`, which SQLite
/// reads from the connection's VFS. Given a clock, the simulator and tests
/// decide what time every trigger sees; files, locks and WAL behave exactly
/// as usual.
///
/// **Statement journals.** A capture trigger makes every write to a synced
/// table keep a statement journal. SQLite holds one in memory up to 64 KiB,
/// then moves it to a temporary file for the rest of the transaction, after
/// which every write costs system calls (100,000 inserts took 1.27 s instead
/// of 0.89 s). A transaction larger than the page cache makes that likely,
/// since every page the cache spills mid-statement joins the journal. This
/// VFS serves that file from memory (`MemoryJournalFile`). The other cure,
/// `PRAGMA temp_store = MEMORY`, keeps every journal in 1 KiB pieces
/// allocated and freed on every write: about 9,500 more instructions per insert
/// and 4,500 per update, measured with callgrind.
///
/// **Simulated disks.** Made with ``init(disk:unixMilliseconds:)``, the VFS
/// keeps the same duties (the clock, statement journals in memory) but its
/// files live on a ``SimulatedDisk``, whose power a simulation can cut; see
/// there what survives. Such a VFS belongs to the disk's life between
/// crashes: after one, it opens nothing, so make a new one to relaunch.
///
/// ```swift
/// let clock = ManualClock(unixMilliseconds: 1_700_000_000_000)
/// let vfs = ReplicaVFS { clock.now() }
/// let database = try Database(path: "device.sqlite", vfs: vfs)
/// ```
public final class ReplicaVFS: @unchecked Sendable {
    /// The name the VFS is registered under.
    public let name: String
    private let storage: UnsafeMutableRawPointer
    private let source: Unmanaged<Source>?
    private let cName: UnsafeMutablePointer<CChar>
    /// The disk and generation a disk-backed VFS serves, kept in its `pAppData`.
    private let session: Unmanaged<SimulatedDiskVFS.Session>?

    final class Source: Sendable {
        let unixMilliseconds: @Sendable () -> Int64
        init(_ unixMilliseconds: @escaping @Sendable () -> Int64) { self.unixMilliseconds = unixMilliseconds }
    }

    /// Where the clock's `Source` and the default VFS are kept, after the `sqlite3_vfs` itself.
    private static let sourceOffset = MemoryLayout<sqlite3_vfs>.stride
    private static let baseOffset = sourceOffset + MemoryLayout<UnsafeRawPointer>.stride

    /// Registers a VFS whose current time is `unixMilliseconds()`, or the system's when `nil`.
    public convenience init(unixMilliseconds: (@Sendable () -> Int64)? = nil) {
        self.init(disk: nil, unixMilliseconds: unixMilliseconds)
    }

    /// Registers a VFS whose files live on `disk` and whose current time is `unixMilliseconds()`,
    /// or the system's when `nil`; for simulators and tests.
    ///
    /// ```swift
    /// let disk = SimulatedDisk(name: "phone")
    /// let database = try Database(path: "/phone/app.sqlite", vfs: ReplicaVFS(disk: disk) { clock.unixMilliseconds() })
    /// ```
    @_spi(Simulation)
    public convenience init(disk: SimulatedDisk, unixMilliseconds: (@Sendable () -> Int64)? = nil) {
        self.init(disk: Optional(disk), unixMilliseconds: unixMilliseconds)
    }

    private init(disk: SimulatedDisk?, unixMilliseconds: (@Sendable () -> Int64)?) {
        storage = UnsafeMutableRawPointer.allocate(
            byteCount: Self.baseOffset + MemoryLayout<UnsafeRawPointer>.stride,
            alignment: MemoryLayout<sqlite3_vfs>.alignment)
        source = unixMilliseconds.map { Unmanaged.passRetained(Source($0)) }
        name = "concord-\(UInt(bitPattern: storage))"

        let utf8 = Array(name.utf8CString)
        cName = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
        cName.initialize(from: utf8, count: utf8.count)

        let base = sqlite3_vfs_find(nil)!
        var vfs = base.pointee
        vfs.zName = UnsafePointer(cName)
        vfs.pNext = nil
        session = disk.map { Unmanaged.passRetained(SimulatedDiskVFS.Session(disk: $0)) }
        if let session {
            SimulatedDiskVFS.install(session, into: &vfs)
        } else {
            vfs.szOsFile = max(vfs.szOsFile, MemoryJournalFile.size)
            vfs.xOpen = { vfs, path, file, flags, outFlags in
                if flags & SQLITE_OPEN_SUBJOURNAL != 0 { return MemoryJournalFile.open(file, flags, outFlags) }
                let base = ReplicaVFS.base(of: vfs!)
                return base.pointee.xOpen(base, path, file, flags, outFlags)
            }
        }
        if source != nil {
            vfs.xCurrentTime = { vfs, out in
                out?.pointee = Double(ReplicaVFS.julianMilliseconds(vfs)) / 86_400_000.0
                return SQLITE_OK
            }
            vfs.xCurrentTimeInt64 = { vfs, out in
                out?.pointee = ReplicaVFS.julianMilliseconds(vfs)
                return SQLITE_OK
            }
        }
        storage.initializeMemory(as: sqlite3_vfs.self, repeating: vfs, count: 1)
        storage.storeBytes(of: source?.toOpaque(), toByteOffset: Self.sourceOffset, as: UnsafeMutableRawPointer?.self)
        storage.storeBytes(
            of: UnsafeMutableRawPointer(base), toByteOffset: Self.baseOffset, as: UnsafeMutableRawPointer.self)
        sqlite3_vfs_register(storage.assumingMemoryBound(to: sqlite3_vfs.self), 0)
    }

    deinit {
        let vfs = storage.assumingMemoryBound(to: sqlite3_vfs.self)
        sqlite3_vfs_unregister(vfs)
        cName.deallocate()
        storage.deallocate()
        source?.release()
        session?.release()
    }

    /// The default VFS this one was copied from, which opens every file but statement journals.
    private static func base(of vfs: UnsafeMutablePointer<sqlite3_vfs>) -> UnsafeMutablePointer<sqlite3_vfs> {
        UnsafeMutableRawPointer(vfs).load(fromByteOffset: baseOffset, as: UnsafeMutableRawPointer.self)
            .assumingMemoryBound(to: sqlite3_vfs.self)
    }

    /// Milliseconds since the Julian epoch, as SQLite's `xCurrentTimeInt64` reports them.
    private static func julianMilliseconds(_ vfs: UnsafeMutablePointer<sqlite3_vfs>?) -> sqlite3_int64 {
        guard let vfs,
            let raw = UnsafeMutableRawPointer(vfs).load(
                fromByteOffset: sourceOffset, as: UnsafeMutableRawPointer?.self)
        else { return 0 }
        let source = Unmanaged<Source>.fromOpaque(raw).takeUnretainedValue()
        return source.unixMilliseconds() + unixEpochJulianMilliseconds
    }

    /// The Unix epoch, 1970-01-01T00:00Z, in Julian-day milliseconds.
    static let unixEpochJulianMilliseconds: Int64 = 210_866_760_000_000
}
