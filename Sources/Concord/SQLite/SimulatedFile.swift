import CSQLite

/// One file of a ``SimulatedDisk`` (its inode): the bytes that would survive a power loss, the
/// bytes processes see, the writes in between, and the lock every connection to it shares.
///
/// **Durability.** ``current`` is ``durable`` with ``unsynced`` applied in order; ``sync()``
/// makes the two equal. A crash keeps ``durable`` and, when the disk says so, some of
/// ``unsynced`` (see `SimulatedDisk.crash(using:tornWriteRate:reorderRate:)`).
///
/// **Locks.** The database file lock follows the unix VFS between connections of one process:
/// any number of SHARED locks; one connection at a time above SHARED (RESERVED, then PENDING
/// while it waits for readers to leave, then EXCLUSIVE); no new SHARED lock while one is PENDING.
///
/// Not thread-safe: the disk calls every method with its lock held.
///
/// ```swift
/// let file = SimulatedFile(id: 1, content: SimulatedFileContent())
/// file.write([1, 2, 3], at: 0)   // seen by every reader, lost by a crash
/// file.sync()                    // now durable
/// ```
final class SimulatedFile {
    /// A change processes have seen but the disk may not have stored yet.
    enum Change: Equatable {
        case write(offset: Int, bytes: [UInt8])
        case truncate(size: Int)
    }

    /// A number unique on the disk, kept across crashes: the file's inode number.
    let id: Int
    /// What a power loss now would leave (before tearing or reordering).
    private(set) var durable: SimulatedFileContent
    /// What a process reading the file now sees.
    private(set) var current: SimulatedFileContent
    /// The changes from ``durable`` to ``current``, oldest first.
    private(set) var unsynced: [Change]
    /// The strongest lock any connection holds on the file.
    private(set) var lockLevel = SQLITE_LOCK_NONE
    /// How many connections hold at least a SHARED lock.
    private var readers = 0
    /// The WAL index of the connections that have the file open in WAL mode, while any has it mapped.
    var sharedMemory: SimulatedSharedMemory?

    /// A file whose durable and current bytes are `content`.
    convenience init(id: Int, content: SimulatedFileContent) {
        self.init(id: id, durable: content, current: content, unsynced: [])
    }

    init(id: Int, durable: SimulatedFileContent, current: SimulatedFileContent, unsynced: [Change]) {
        self.id = id
        self.durable = durable
        self.current = current
        self.unsynced = unsynced
    }

    // MARK: Bytes

    /// Writes `bytes` at `offset` in the cache.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        current.write(bytes, at: offset)
        unsynced.append(.write(offset: offset, bytes: Array(bytes)))
    }

    /// Writes `bytes` at `offset` in the cache.
    func write(_ bytes: [UInt8], at offset: Int) { bytes.withUnsafeBytes { write($0, at: offset) } }

    /// Cuts (or grows) the file to `size` bytes in the cache.
    func truncate(to size: Int) {
        current.truncate(to: size)
        unsynced.append(.truncate(size: size))
    }

    /// Makes every change durable, as `fsync` does.
    func sync() {
        durable = current
        unsynced = []
    }

    // MARK: The database file lock

    /// Raises a connection's lock from `held` to `wanted`; `SQLITE_BUSY` when another connection's lock forbids it.
    ///
    /// EXCLUSIVE is reached through PENDING: a connection that waits for readers
    /// to leave keeps PENDING (and `held` says so), which turns new readers away.
    func lock(from held: inout Int32, to wanted: Int32) -> Int32 {
        guard held < wanted else { return SQLITE_OK }
        // Another connection holds PENDING or more, or holds the one lock above SHARED this one wants.
        if lockLevel != held && (lockLevel >= SQLITE_LOCK_PENDING || wanted > SQLITE_LOCK_SHARED) {
            return SQLITE_BUSY
        }
        switch wanted {
        case SQLITE_LOCK_SHARED:
            readers += 1
            lockLevel = max(lockLevel, SQLITE_LOCK_SHARED)
            held = SQLITE_LOCK_SHARED
        case SQLITE_LOCK_RESERVED:
            lockLevel = SQLITE_LOCK_RESERVED
            held = SQLITE_LOCK_RESERVED
        default:
            lockLevel = SQLITE_LOCK_PENDING
            held = SQLITE_LOCK_PENDING
            guard wanted == SQLITE_LOCK_EXCLUSIVE else { return SQLITE_OK }
            guard readers == 1 else { return SQLITE_BUSY }
            lockLevel = SQLITE_LOCK_EXCLUSIVE
            held = SQLITE_LOCK_EXCLUSIVE
        }
        return SQLITE_OK
    }

    /// Lowers a connection's lock from `held` to `wanted` (SHARED or NONE).
    func unlock(from held: inout Int32, to wanted: Int32) {
        guard held > wanted else { return }
        // Only one connection holds more than SHARED, so what it gives up is the file's.
        if held > SQLITE_LOCK_SHARED { lockLevel = SQLITE_LOCK_SHARED }
        if wanted == SQLITE_LOCK_NONE {
            readers -= 1
            if readers == 0 { lockLevel = SQLITE_LOCK_NONE }
        }
        held = wanted
    }
}
