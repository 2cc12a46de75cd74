import CSQLite

/// A SQLite VFS that is the default one in every respect but its clock.
///
/// Capture triggers stamp a write with SQL's `'now'`, which SQLite reads from
/// the VFS of the connection. Opening a ``Database`` with one of these makes
/// that time injectable, so the simulator and tests decide what time every
/// trigger sees, while files, locks and WAL behave exactly as usual.
///
/// ```swift
/// let clock = ManualClock(unixMilliseconds: 1_700_000_000_000)
/// let vfs = TimeSourceVFS { clock.now() }
/// let database = try Database(path: "device.sqlite", timeSource: vfs)
/// ```
public final class TimeSourceVFS: @unchecked Sendable {
    /// The name the VFS is registered under.
    public let name: String
    private let storage: UnsafeMutableRawPointer
    private let source: Unmanaged<Source>
    private let cName: UnsafeMutablePointer<CChar>

    final class Source: Sendable {
        let unixMilliseconds: @Sendable () -> Int64
        init(_ unixMilliseconds: @escaping @Sendable () -> Int64) { self.unixMilliseconds = unixMilliseconds }
    }

    /// Registers a VFS whose current time is `unixMilliseconds()`.
    public init(unixMilliseconds: @escaping @Sendable () -> Int64) {
        let vfsSize = MemoryLayout<sqlite3_vfs>.stride
        storage = UnsafeMutableRawPointer.allocate(
            byteCount: vfsSize + MemoryLayout<UnsafeRawPointer>.stride,
            alignment: MemoryLayout<sqlite3_vfs>.alignment)
        source = Unmanaged.passRetained(Source(unixMilliseconds))
        name = "concord-time-\(UInt(bitPattern: storage))"

        let utf8 = Array(name.utf8CString)
        cName = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
        cName.initialize(from: utf8, count: utf8.count)

        var vfs = sqlite3_vfs_find(nil)!.pointee
        vfs.zName = UnsafePointer(cName)
        vfs.pNext = nil
        vfs.xCurrentTime = { vfs, out in
            out?.pointee = Double(TimeSourceVFS.julianMilliseconds(vfs)) / 86_400_000.0
            return SQLITE_OK
        }
        vfs.xCurrentTimeInt64 = { vfs, out in
            out?.pointee = TimeSourceVFS.julianMilliseconds(vfs)
            return SQLITE_OK
        }
        storage.initializeMemory(as: sqlite3_vfs.self, repeating: vfs, count: 1)
        storage.storeBytes(of: source.toOpaque(), toByteOffset: vfsSize, as: UnsafeMutableRawPointer.self)
        sqlite3_vfs_register(storage.assumingMemoryBound(to: sqlite3_vfs.self), 0)
    }

    deinit {
        let vfs = storage.assumingMemoryBound(to: sqlite3_vfs.self)
        sqlite3_vfs_unregister(vfs)
        cName.deallocate()
        storage.deallocate()
        source.release()
    }

    /// Milliseconds since the Julian epoch, as SQLite's `xCurrentTimeInt64` reports them.
    private static func julianMilliseconds(_ vfs: UnsafeMutablePointer<sqlite3_vfs>?) -> sqlite3_int64 {
        guard let vfs else { return 0 }
        let raw = UnsafeMutableRawPointer(vfs).load(
            fromByteOffset: MemoryLayout<sqlite3_vfs>.stride, as: UnsafeMutableRawPointer.self)
        let source = Unmanaged<Source>.fromOpaque(raw).takeUnretainedValue()
        return source.unixMilliseconds() + unixEpochJulianMilliseconds
    }

    /// The Unix epoch, 1970-01-01T00:00Z, in Julian-day milliseconds.
    static let unixEpochJulianMilliseconds: Int64 = 210_866_760_000_000
}
