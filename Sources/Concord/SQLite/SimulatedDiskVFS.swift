import CSQLite
import Foundation

/// The C side of a ``SimulatedDisk``: the `sqlite3_vfs` and `sqlite3_io_methods` functions that
/// ``ReplicaVFS`` installs when it is made on a disk.
///
/// Each function finds its Swift object and forwards to the disk: a VFS function finds its
/// ``Session`` in `pAppData`; a file function finds its ``SimulatedDisk/Handle`` right after the
/// methods pointer in the `sqlite3_file` SQLite allocated. Statement journals and temporary files
/// (which never need to survive anything) are ``MemoryJournalFile``s, as in ``ReplicaVFS``.
/// The methods are version 2: shared memory for WAL, no memory mapping, so every read goes
/// through the disk.
///
/// ```swift
/// var vfs = sqlite3_vfs_find(nil)!.pointee
/// let session = Unmanaged.passRetained(SimulatedDiskVFS.Session(disk: disk))
/// SimulatedDiskVFS.install(session, into: &vfs)
/// ```
enum SimulatedDiskVFS {
    /// What a disk-backed VFS serves: the disk, and the generation it was made in (it opens nothing after a crash).
    final class Session: Sendable {
        let disk: SimulatedDisk
        let generation: Int

        init(disk: SimulatedDisk) {
            self.disk = disk
            generation = disk.generation
        }
    }

    private static let handleOffset = MemoryLayout<UnsafeRawPointer>.stride
    /// The bytes of `sqlite3_file` a disk file needs: the methods pointer, then its handle.
    static let fileSize = Int32(handleOffset + MemoryLayout<UnsafeRawPointer>.stride)
    /// Files SQLite never needs to find again after a crash, kept in memory apart from the disk.
    private static let memoryFiles =
        SQLITE_OPEN_SUBJOURNAL | SQLITE_OPEN_TEMP_JOURNAL | SQLITE_OPEN_TEMP_DB | SQLITE_OPEN_TRANSIENT_DB

    /// Points `vfs`'s file functions at `session`'s disk; the clock functions are left to the caller.
    static func install(_ session: Unmanaged<Session>, into vfs: inout sqlite3_vfs) {
        vfs.iVersion = 2
        vfs.szOsFile = max(fileSize, MemoryJournalFile.size)
        vfs.mxPathname = 1024
        vfs.pAppData = session.toOpaque()
        vfs.xOpen = { vfs, name, file, flags, outFlags in
            SimulatedDiskVFS.open(vfs, name, file, flags, outFlags)
        }
        vfs.xDelete = { vfs, name, syncDirectory in
            guard let name else { return SQLITE_IOERR }
            let session = SimulatedDiskVFS.session(vfs)
            return session.disk.delete(
                path: String(cString: name), syncDirectory: syncDirectory != 0, generation: session.generation)
        }
        vfs.xAccess = { vfs, name, flags, out in
            guard let name else { return SQLITE_IOERR }
            let session = SimulatedDiskVFS.session(vfs)
            switch session.disk.access(path: String(cString: name), flags: flags, generation: session.generation) {
            case .success(let exists):
                out?.pointee = exists ? 1 : 0
                return SQLITE_OK
            case .failure(let error): return error.code
            }
        }
        vfs.xFullPathname = { _, name, capacity, out in
            // Paths on the disk are names, not places: kept as given.
            guard let name, let out else { return SQLITE_CANTOPEN }
            let length = strlen(name)
            guard length < Int(capacity) else { return SQLITE_CANTOPEN }
            out.update(from: name, count: length + 1)
            return SQLITE_OK
        }
        vfs.xRandomness = { vfs, count, out in
            guard let out, count > 0 else { return 0 }
            SimulatedDiskVFS.session(vfs).disk.randomBytes(Int(count), into: out)
            return count
        }
        vfs.xSleep = { _, microseconds in microseconds }
        vfs.xGetLastError = { _, _, _ in 0 }
        vfs.xSetSystemCall = nil
        vfs.xGetSystemCall = nil
        vfs.xNextSystemCall = nil
    }

    private static func session(_ vfs: UnsafeMutablePointer<sqlite3_vfs>?) -> Session {
        Unmanaged<Session>.fromOpaque(vfs!.pointee.pAppData).takeUnretainedValue()
    }

    private static func open(
        _ vfs: UnsafeMutablePointer<sqlite3_vfs>?, _ name: UnsafePointer<CChar>?,
        _ file: UnsafeMutablePointer<sqlite3_file>?, _ flags: Int32, _ outFlags: UnsafeMutablePointer<Int32>?
    ) -> Int32 {
        guard let file else { return SQLITE_CANTOPEN }
        guard let name, flags & memoryFiles == 0 else { return MemoryJournalFile.open(file, flags, outFlags) }
        // SQLite calls xClose after a failed open unless pMethods is NULL.
        file.pointee.pMethods = nil
        let session = session(vfs)
        switch session.disk.open(path: String(cString: name), flags: flags, generation: session.generation) {
        case .success(let handle):
            UnsafeMutableRawPointer(file).storeBytes(
                of: Unmanaged.passRetained(handle).toOpaque(), toByteOffset: handleOffset,
                as: UnsafeMutableRawPointer.self)
            file.pointee.pMethods = UnsafePointer(methods)
            outFlags?.pointee = flags
            return SQLITE_OK
        case .failure(let error): return error.code
        }
    }

    private static func handle(_ file: UnsafeMutablePointer<sqlite3_file>?) -> SimulatedDisk.Handle {
        Unmanaged<SimulatedDisk.Handle>.fromOpaque(
            UnsafeRawPointer(file!).load(fromByteOffset: handleOffset, as: UnsafeRawPointer.self)
        ).takeUnretainedValue()
    }

    private nonisolated(unsafe) static let methods: UnsafeMutablePointer<sqlite3_io_methods> = {
        var io = sqlite3_io_methods()
        io.iVersion = 2
        io.xClose = { file in
            let raw = UnsafeRawPointer(file!).load(
                fromByteOffset: SimulatedDiskVFS.handleOffset, as: UnsafeRawPointer.self)
            let handle = Unmanaged<SimulatedDisk.Handle>.fromOpaque(raw)
            handle.takeUnretainedValue().disk.close(handle.takeUnretainedValue())
            handle.release()
            return SQLITE_OK
        }
        io.xRead = { file, out, amount, offset in
            let handle = SimulatedDiskVFS.handle(file)
            return handle.disk.read(handle, into: out!, length: Int(amount), at: Int(offset))
        }
        io.xWrite = { file, data, amount, offset in
            let handle = SimulatedDiskVFS.handle(file)
            return handle.disk.write(handle, UnsafeRawBufferPointer(start: data, count: Int(amount)), at: Int(offset))
        }
        io.xTruncate = { file, size in
            let handle = SimulatedDiskVFS.handle(file)
            return handle.disk.truncate(handle, to: Int(size))
        }
        io.xSync = { file, _ in
            let handle = SimulatedDiskVFS.handle(file)
            return handle.disk.sync(handle)
        }
        io.xFileSize = { file, out in
            let handle = SimulatedDiskVFS.handle(file)
            switch handle.disk.size(handle) {
            case .success(let size):
                out?.pointee = sqlite3_int64(size)
                return SQLITE_OK
            case .failure(let error): return error.code
            }
        }
        io.xLock = { file, level in
            let handle = SimulatedDiskVFS.handle(file)
            return handle.disk.lock(handle, to: level)
        }
        io.xUnlock = { file, level in
            let handle = SimulatedDiskVFS.handle(file)
            handle.disk.unlock(handle, to: level)
            return SQLITE_OK
        }
        io.xCheckReservedLock = { file, out in
            let handle = SimulatedDiskVFS.handle(file)
            switch handle.disk.hasReservedLock(handle) {
            case .success(let reserved):
                out?.pointee = reserved ? 1 : 0
                return SQLITE_OK
            case .failure(let error): return error.code
            }
        }
        io.xFileControl = { _, _, _ in SQLITE_NOTFOUND }
        io.xSectorSize = { _ in Int32(SimulatedDisk.sectorSize) }
        // No atomic, safe-append, sequential or power-safe-overwrite writes: the disk tears and reorders them.
        io.xDeviceCharacteristics = { _ in 0 }
        io.xShmMap = { file, region, size, extend, out in
            let handle = SimulatedDiskVFS.handle(file)
            switch handle.disk.mapSharedMemory(handle, region: Int(region), size: Int(size), extend: extend != 0) {
            case .success(let pointer):
                out?.pointee = pointer.map { UnsafeMutableRawPointer($0) }
                return SQLITE_OK
            case .failure(let error):
                out?.pointee = nil
                return error.code
            }
        }
        io.xShmLock = { file, offset, count, flags in
            let handle = SimulatedDiskVFS.handle(file)
            return handle.disk.lockSharedMemory(handle, offset: Int(offset), count: Int(count), flags: flags)
        }
        io.xShmBarrier = { file in SimulatedDiskVFS.handle(file).disk.barrier() }
        io.xShmUnmap = { file, _ in
            let handle = SimulatedDiskVFS.handle(file)
            handle.disk.unmapSharedMemory(handle)
            return SQLITE_OK
        }
        let methods = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        methods.initialize(to: io)
        return methods
    }()
}
