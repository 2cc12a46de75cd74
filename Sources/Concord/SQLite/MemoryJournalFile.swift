import CSQLite
import Foundation
import Synchronization

/// A statement journal that SQLite moved out of its own memory, kept in one growing buffer.
///
/// ``ReplicaVFS`` opens these for `SQLITE_OPEN_SUBJOURNAL`. SQLite asks the
/// VFS for a file once a statement's journal outgrows 64 KiB and writes the
/// rest of the transaction's statement journals to it; here each write is a
/// copy, a truncation keeps the buffer for the next statement, and closing
/// (at the end of the transaction) frees it. A journal only ever holds pages
/// the statement changed, so it stays as small as the largest statement.
///
/// The state lives in the `sqlite3_file` SQLite allocates (``size`` bytes):
/// the methods pointer SQLite requires first, then the buffer, its length
/// and its capacity.
///
/// ```swift
/// // In a VFS's xOpen:
/// if flags & SQLITE_OPEN_SUBJOURNAL != 0 { return MemoryJournalFile.open(file, flags, outFlags) }
/// ```
enum MemoryJournalFile {
    private static let bufferOffset = MemoryLayout<UnsafeRawPointer>.stride
    private static let lengthOffset = bufferOffset + MemoryLayout<UnsafeRawPointer>.stride
    private static let capacityOffset = lengthOffset + MemoryLayout<Int>.stride
    /// The bytes of `sqlite3_file` this file needs.
    static let size = Int32(capacityOffset + MemoryLayout<Int>.stride)

    /// How many journals have been opened in this process, so tests can tell that SQLite used one.
    static let opened = Atomic<Int>(0)

    /// Opens an empty journal in `file`; never fails (memory is taken on the first write).
    static func open(
        _ file: UnsafeMutablePointer<sqlite3_file>?, _ flags: Int32,
        _ outFlags: UnsafeMutablePointer<Int32>?
    ) -> Int32 {
        guard let file else { return SQLITE_CANTOPEN }
        let raw = UnsafeMutableRawPointer(file)
        raw.storeBytes(of: nil, toByteOffset: bufferOffset, as: UnsafeMutableRawPointer?.self)
        raw.storeBytes(of: 0, toByteOffset: lengthOffset, as: Int.self)
        raw.storeBytes(of: 0, toByteOffset: capacityOffset, as: Int.self)
        file.pointee.pMethods = UnsafePointer(methods)
        outFlags?.pointee = flags
        opened.add(1, ordering: .relaxed)
        return SQLITE_OK
    }

    /// `SQLITE_IOERR_SHORT_READ`, a macro Swift does not import.
    private static let shortRead = SQLITE_IOERR | (2 << 8)

    private struct State {
        let raw: UnsafeMutableRawPointer
        init(_ file: UnsafeMutablePointer<sqlite3_file>?) { raw = UnsafeMutableRawPointer(file!) }
        var buffer: UnsafeMutableRawPointer? {
            get { raw.load(fromByteOffset: bufferOffset, as: UnsafeMutableRawPointer?.self) }
            nonmutating set {
                raw.storeBytes(of: newValue, toByteOffset: bufferOffset, as: UnsafeMutableRawPointer?.self)
            }
        }
        var length: Int {
            get { raw.load(fromByteOffset: lengthOffset, as: Int.self) }
            nonmutating set { raw.storeBytes(of: newValue, toByteOffset: lengthOffset, as: Int.self) }
        }
        var capacity: Int {
            get { raw.load(fromByteOffset: capacityOffset, as: Int.self) }
            nonmutating set { raw.storeBytes(of: newValue, toByteOffset: capacityOffset, as: Int.self) }
        }
    }

    /// Version 1 methods: no shared memory or memory mapping, which journals never use.
    private nonisolated(unsafe) static let methods: UnsafeMutablePointer<sqlite3_io_methods> = {
        var io = sqlite3_io_methods()
        io.iVersion = 1
        io.xClose = { file in
            let state = State(file)
            free(state.buffer)
            state.buffer = nil
            return SQLITE_OK
        }
        io.xRead = { file, out, amount, offset in
            guard let out else { return shortRead }
            let state = State(file)
            let wanted = Int(amount)
            let start = Int(offset)
            let available = max(0, min(wanted, state.length - start))
            if available > 0, let buffer = state.buffer { memcpy(out, buffer + start, available) }
            guard available == wanted else {
                // SQLite requires the unread part zeroed on a short read.
                memset(out + available, 0, wanted - available)
                return shortRead
            }
            return SQLITE_OK
        }
        io.xWrite = { file, data, amount, offset in
            let state = State(file)
            let start = Int(offset)
            let end = start + Int(amount)
            if end > state.capacity {
                let capacity = max(end, 2 * state.capacity, 1 << 16)
                guard let grown = realloc(state.buffer, capacity) else { return SQLITE_NOMEM }
                state.buffer = grown
                state.capacity = capacity
            }
            let buffer = state.buffer!
            if start > state.length { memset(buffer + state.length, 0, start - state.length) }
            if let data { memcpy(buffer + start, data, Int(amount)) }
            state.length = max(state.length, end)
            return SQLITE_OK
        }
        io.xTruncate = { file, size in
            let state = State(file)
            state.length = min(state.length, Int(size))
            return SQLITE_OK
        }
        io.xSync = { _, _ in SQLITE_OK }
        io.xFileSize = { file, out in
            out?.pointee = sqlite3_int64(State(file).length)
            return SQLITE_OK
        }
        io.xLock = { _, _ in SQLITE_OK }
        io.xUnlock = { _, _ in SQLITE_OK }
        io.xCheckReservedLock = { _, out in
            out?.pointee = 0
            return SQLITE_OK
        }
        io.xFileControl = { _, _, _ in SQLITE_NOTFOUND }
        io.xSectorSize = { _ in 4096 }
        io.xDeviceCharacteristics = { _ in 0 }
        let methods = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        methods.initialize(to: io)
        return methods
    }()
}
