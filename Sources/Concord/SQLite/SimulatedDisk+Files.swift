import CSQLite
import Foundation

/// The file operations `SimulatedDiskVFS` forwards from SQLite, each returning SQLite's result code.
///
/// Every operation that changes the disk counts towards ``SimulatedDisk/cutPower(afterOperations:)``;
/// a handle or VFS of an earlier generation, or any call once the power is off, fails with the
/// I/O error the unix VFS would give for that call and changes nothing. Releasing a lock,
/// unmapping the WAL index and closing always succeed, so a dead connection can still close.
extension SimulatedDisk {
    /// One connection's open file: what the `sqlite3_file` SQLite allocated points to.
    final class Handle {
        let disk: SimulatedDisk
        let file: SimulatedFile
        let path: String
        /// The generation the file was opened in; after a crash the handle is dead.
        let generation: Int
        /// This connection's lock on the file.
        var lockLevel = SQLITE_LOCK_NONE
        /// The WAL-index lock slots this connection holds, as bit masks.
        var sharedSlots: UInt8 = 0
        var exclusiveSlots: UInt8 = 0
        var mapsSharedMemory = false
        /// Whether the first sync also syncs the directory (a journal or WAL this open may have created).
        var syncsDirectory: Bool
        let deletesOnClose: Bool

        init(disk: SimulatedDisk, file: SimulatedFile, path: String, generation: Int, flags: Int32) {
            self.disk = disk
            self.file = file
            self.path = path
            self.generation = generation
            let journals = SQLITE_OPEN_MAIN_JOURNAL | SQLITE_OPEN_SUPER_JOURNAL | SQLITE_OPEN_WAL
            syncsDirectory = flags & SQLITE_OPEN_CREATE != 0 && flags & journals != 0
            deletesOnClose = flags & SQLITE_OPEN_DELETEONCLOSE != 0
        }
    }

    /// SQLite's extended I/O error codes, macros Swift does not import.
    enum IOError {
        static let read = SQLITE_IOERR | (1 << 8)
        static let shortRead = SQLITE_IOERR | (2 << 8)
        static let write = SQLITE_IOERR | (3 << 8)
        static let fsync = SQLITE_IOERR | (4 << 8)
        static let directoryFsync = SQLITE_IOERR | (5 << 8)
        static let truncate = SQLITE_IOERR | (6 << 8)
        static let fstat = SQLITE_IOERR | (7 << 8)
        static let delete = SQLITE_IOERR | (10 << 8)
        static let access = SQLITE_IOERR | (13 << 8)
        static let checkReservedLock = SQLITE_IOERR | (14 << 8)
        static let lock = SQLITE_IOERR | (15 << 8)
        static let sharedMemoryLock = SQLITE_IOERR | (20 << 8)
        static let sharedMemoryMap = SQLITE_IOERR | (21 << 8)
        static let deleteMissing = SQLITE_IOERR | (23 << 8)
    }

    // MARK: The VFS

    /// Opens `path` for a VFS of `generation`, creating the file when `flags` allow; the handle, or SQLite's error.
    func open(path: String, flags: Int32, generation: Int) -> Result<Handle, SQLiteCode> {
        withState { state in
            guard generation == state.generation, !state.isPoweredOff else {
                return .failure(SQLiteCode(SQLITE_CANTOPEN))
            }
            if let file = state.current[path] {
                if flags & SQLITE_OPEN_EXCLUSIVE != 0 { return .failure(SQLiteCode(SQLITE_CANTOPEN)) }
                return .success(Handle(disk: self, file: file, path: path, generation: generation, flags: flags))
            }
            guard flags & SQLITE_OPEN_CREATE != 0, state.beginOperation() else {
                return .failure(SQLiteCode(SQLITE_CANTOPEN))
            }
            let file = SimulatedFile(id: state.nextFileID, content: SimulatedFileContent())
            state.nextFileID += 1
            state.current[path] = file
            state.unsyncedEntries.append((path: path, file: file))
            return .success(Handle(disk: self, file: file, path: path, generation: generation, flags: flags))
        }
    }

    /// Deletes `path`, and syncs its directory when `syncDirectory` (SQLite's `syncDir`).
    func delete(path: String, syncDirectory: Bool, generation: Int) -> Int32 {
        withState { state in
            guard generation == state.generation, state.beginOperation() else { return IOError.delete }
            guard state.current.removeValue(forKey: path) != nil else { return IOError.deleteMissing }
            state.unsyncedEntries.append((path: path, file: nil))
            guard syncDirectory else { return SQLITE_OK }
            guard state.beginOperation() else { return IOError.directoryFsync }
            state.syncDirectory(of: path)
            return SQLITE_OK
        }
    }

    /// Whether `path` exists; for `SQLITE_ACCESS_EXISTS` an empty file does not, as with the unix VFS
    /// (SQLite relies on it: an empty journal is never hot).
    func access(path: String, flags: Int32, generation: Int) -> Result<Bool, SQLiteCode> {
        withState { state in
            guard generation == state.generation, !state.isPoweredOff else {
                return .failure(SQLiteCode(IOError.access))
            }
            guard let file = state.current[path] else { return .success(false) }
            return .success(flags != SQLITE_ACCESS_EXISTS || file.current.count > 0)
        }
    }

    /// Fills `count` bytes at `destination` from the disk's own fixed sequence (SplitMix64).
    func randomBytes(_ count: Int, into destination: UnsafeMutableRawPointer) {
        withState { state in
            for index in 0..<count {
                destination.storeBytes(
                    of: UInt8(truncatingIfNeeded: state.random.next()), toByteOffset: index, as: UInt8.self)
            }
        }
    }

    // MARK: A file

    func close(_ handle: Handle) {
        unlock(handle, to: SQLITE_LOCK_NONE)
        unmapSharedMemory(handle)
        guard handle.deletesOnClose else { return }
        withState { state in
            guard state.isLive(handle), state.current[handle.path] === handle.file, state.beginOperation() else {
                return
            }
            state.current[handle.path] = nil
            state.unsyncedEntries.append((path: handle.path, file: nil))
        }
    }

    /// Reads `length` bytes at `offset`; past the end, zeros and `SQLITE_IOERR_SHORT_READ`.
    func read(_ handle: Handle, into destination: UnsafeMutableRawPointer, length: Int, at offset: Int) -> Int32 {
        withState { state in
            guard state.isLive(handle) else { return IOError.read }
            let count = handle.file.current.read(into: destination, length: length, at: offset)
            guard count == length else {
                (destination + count).initializeMemory(as: UInt8.self, repeating: 0, count: length - count)
                return IOError.shortRead
            }
            return SQLITE_OK
        }
    }

    func write(_ handle: Handle, _ bytes: UnsafeRawBufferPointer, at offset: Int) -> Int32 {
        withState { state in
            guard state.isLive(handle), state.beginOperation() else { return IOError.write }
            handle.file.write(bytes, at: offset)
            return SQLITE_OK
        }
    }

    func truncate(_ handle: Handle, to size: Int) -> Int32 {
        withState { state in
            guard state.isLive(handle), state.beginOperation() else { return IOError.truncate }
            handle.file.truncate(to: size)
            return SQLITE_OK
        }
    }

    /// Makes the file's changes durable; the first sync of a journal or WAL the open created syncs its directory too.
    func sync(_ handle: Handle) -> Int32 {
        withState { state in
            guard state.isLive(handle), state.beginOperation() else { return IOError.fsync }
            handle.file.sync()
            guard handle.syncsDirectory else { return SQLITE_OK }
            guard state.beginOperation() else { return IOError.directoryFsync }
            state.syncDirectory(of: handle.path)
            handle.syncsDirectory = false
            return SQLITE_OK
        }
    }

    func size(_ handle: Handle) -> Result<Int, SQLiteCode> {
        withState { state in
            guard state.isLive(handle) else { return .failure(SQLiteCode(IOError.fstat)) }
            return .success(handle.file.current.count)
        }
    }

    // MARK: Locks

    func lock(_ handle: Handle, to level: Int32) -> Int32 {
        withState { state in
            guard state.isLive(handle) else { return IOError.lock }
            return handle.file.lock(from: &handle.lockLevel, to: level)
        }
    }

    func unlock(_ handle: Handle, to level: Int32) {
        withState { _ in handle.file.unlock(from: &handle.lockLevel, to: level) }
    }

    /// Whether any connection holds a lock above SHARED on the file.
    func hasReservedLock(_ handle: Handle) -> Result<Bool, SQLiteCode> {
        withState { state in
            guard state.isLive(handle) else { return .failure(SQLiteCode(IOError.checkReservedLock)) }
            return .success(handle.file.lockLevel > SQLITE_LOCK_SHARED)
        }
    }

    // MARK: The WAL index

    /// Region `index` of the file's WAL index, made when `extend`; `nil` when it does not exist yet.
    func mapSharedMemory(_ handle: Handle, region index: Int, size: Int, extend: Bool) -> Result<
        UnsafeMutableRawPointer?, SQLiteCode
    > {
        withState { state in
            guard state.isLive(handle) else { return .failure(SQLiteCode(IOError.sharedMemoryMap)) }
            let memory = handle.file.sharedMemory ?? SimulatedSharedMemory()
            handle.file.sharedMemory = memory
            if !handle.mapsSharedMemory {
                memory.mappers += 1
                handle.mapsSharedMemory = true
            }
            return .success(memory.region(index, size: size, extend: extend))
        }
    }

    func lockSharedMemory(_ handle: Handle, offset: Int, count: Int, flags: Int32) -> Int32 {
        withState { state in
            guard let memory = handle.file.sharedMemory, handle.mapsSharedMemory else {
                return IOError.sharedMemoryLock
            }
            guard flags & SQLITE_SHM_UNLOCK != 0 || state.isLive(handle) else { return IOError.sharedMemoryLock }
            return memory.lock(
                offset: offset, count: count, flags: flags, shared: &handle.sharedSlots,
                exclusive: &handle.exclusiveSlots)
        }
    }

    /// Releases the connection's WAL-index locks and mapping; the index goes with the last mapping.
    func unmapSharedMemory(_ handle: Handle) {
        withState { _ in
            guard handle.mapsSharedMemory, let memory = handle.file.sharedMemory else { return }
            _ = memory.lock(
                offset: 0, count: SimulatedSharedMemory.slotCount, flags: SQLITE_SHM_UNLOCK,
                shared: &handle.sharedSlots, exclusive: &handle.exclusiveSlots)
            handle.mapsSharedMemory = false
            memory.mappers -= 1
            if memory.mappers == 0 { handle.file.sharedMemory = nil }
        }
    }

    /// A full memory barrier between connections sharing a WAL index: taking and releasing the disk's lock.
    func barrier() { withState { _ in } }
}

/// An SQLite result code as an error, so disk operations can return `Result`.
struct SQLiteCode: Error {
    let code: Int32
    init(_ code: Int32) { self.code = code }
}

extension SimulatedDisk.State {
    /// Whether `handle` belongs to this generation and the power is on.
    func isLive(_ handle: SimulatedDisk.Handle) -> Bool {
        handle.generation == generation && !isPoweredOff
    }

    /// Counts an operation that changes the disk; `false` when the power is off or fails at it.
    mutating func beginOperation() -> Bool {
        guard !isPoweredOff else { return false }
        operations += 1
        if let at = powerFailsAt, operations >= at {
            isPoweredOff = true
            powerFailsAt = nil
            return false
        }
        return true
    }

    /// Makes every unsynced creation and deletion in the directory holding `path` durable.
    mutating func syncDirectory(of path: String) {
        let directory = Self.directory(of: path)
        var others: [(path: String, file: SimulatedFile?)] = []
        for entry in unsyncedEntries {
            if Self.directory(of: entry.path) == directory {
                durable[entry.path] = entry.file
            } else {
                others.append(entry)
            }
        }
        unsyncedEntries = others
    }

    /// The directory part of `path`: everything before its last `/` (empty for a bare name).
    static func directory(of path: String) -> Substring {
        path.lastIndex(of: "/").map { path[..<$0] } ?? ""
    }
}
