import Foundation

/// Somewhere bytes come from, a chunk at a time: memory, a file, standard input.
///
/// The changeset decoder pulls through this protocol so a changeset larger
/// than memory can be read straight from a file or a pipe; only the current
/// chunk and the current row are ever held.
///
/// ```swift
/// let source = try FileByteSource(path: "changes.cncd")
/// while case let chunk = try source.read(maxCount: 65_536), !chunk.isEmpty { use(chunk) }
/// ```
public protocol ByteSource: AnyObject {
    /// Reads up to `maxCount` (> 0) bytes; an empty result means the stream has ended.
    func read(maxCount: Int) throws -> [UInt8]
    /// How many bytes are left, when the source knows it for certain (memory); `nil` otherwise.
    var remainingByteCount: Int? { get }
}

extension ByteSource {
    /// Unknown: a source that can count what is left says so itself.
    public var remainingByteCount: Int? { nil }
}

/// Somewhere bytes go to: memory, a file, standard output.
///
/// The changeset encoder pushes through this protocol so a large export is
/// written as it is produced. Writes may be buffered: call ``flush()`` to push
/// them out and ``close()`` when done, and look at the errors they throw —
/// that is where a full disk shows up.
///
/// ```swift
/// let sink = try FileByteSink(path: "changes.cncd")
/// try sink.write(bytes)
/// try sink.close()
/// ```
public protocol ByteSink: AnyObject {
    /// Appends `bytes` (possibly only to a buffer until ``flush()``).
    func write(_ bytes: [UInt8]) throws
    /// Pushes buffered bytes to their destination.
    func flush() throws
    /// Flushes, then releases the destination; later writes fail.
    func close() throws
}

/// The size of file buffers and of the chunks the decoder asks for.
let byteStreamChunkSize = 64 * 1024

// MARK: - Memory

/// A ``ByteSource`` over an array already in memory.
///
/// It knows how much remains, so the decoder refuses a declared length that
/// runs past the end before allocating anything for it.
///
/// ```swift
/// let decoder = try ChangesetDecoder(source: MemoryByteSource(bytes))
/// ```
public final class MemoryByteSource: ByteSource {
    private let bytes: [UInt8]
    private var position = 0

    /// A source that yields `bytes`, from the first.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The next `maxCount` bytes or fewer (none once all were read); never throws.
    public func read(maxCount: Int) -> [UInt8] {
        let end = position + min(max(maxCount, 0), bytes.count - position)
        defer { position = end }
        return Array(bytes[position..<end])
    }

    /// The bytes not read yet, always known.
    public var remainingByteCount: Int? { bytes.count - position }
}

/// A ``ByteSink`` that collects everything in an array.
///
/// ```swift
/// let sink = MemoryByteSink()
/// try ChangesetEncoder(sink: sink).encode(changeset)
/// sink.bytes   // the encoded changeset
/// ```
public final class MemoryByteSink: ByteSink {
    /// Everything written so far.
    public private(set) var bytes: [UInt8] = []
    private var closed = false

    /// An empty sink.
    public init() {}

    /// Appends `bytes` to ``bytes``; throws ``ChangesetError/io(operation:path:reason:)`` once the sink is closed.
    public func write(_ bytes: [UInt8]) throws {
        guard !closed else { throw ChangesetError.io(operation: "write", path: "memory", reason: "the sink is closed") }
        self.bytes += bytes
    }

    /// Nothing to do: every write is already in ``bytes``.
    public func flush() {}

    /// Refuses later writes; ``bytes`` stays readable.
    public func close() { closed = true }
}

// MARK: - Files

/// A ``ByteSource`` reading a file or standard input through a 64 KiB buffer.
///
/// ```swift
/// let source = path == "-" ? FileByteSource.standardInput() : try FileByteSource(path: path)
/// defer { source.close() }
/// ```
public final class FileByteSource: ByteSource {
    /// The path it reads, or "standard input"; used in error messages.
    public let path: String
    private var descriptor: Int32
    private let ownsDescriptor: Bool
    private var buffer: [UInt8] = []
    private var position = 0

    /// Opens `path` for reading.
    public init(path: String) throws {
        let fd = path.withCString { open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else {
            throw ChangesetError.io(operation: "open", path: path, reason: lastErrorDescription())
        }
        self.path = path
        self.descriptor = fd
        self.ownsDescriptor = true
    }

    private init(descriptor: Int32, path: String) {
        self.path = path
        self.descriptor = descriptor
        self.ownsDescriptor = false
    }

    /// Reads the process's standard input (which `close()` leaves open).
    public static func standardInput() -> FileByteSource {
        FileByteSource(descriptor: 0, path: "standard input")
    }

    /// The next `maxCount` bytes or fewer, refilling the buffer from the file when it is empty; none at
    /// the end of the file. Throws ``ChangesetError/io(operation:path:reason:)`` once closed or when reading fails.
    public func read(maxCount: Int) throws -> [UInt8] {
        guard maxCount > 0 else { return [] }
        if position == buffer.count {
            buffer = try readChunk(count: max(maxCount, byteStreamChunkSize))
            position = 0
        }
        let end = position + min(maxCount, buffer.count - position)
        defer { position = end }
        return Array(buffer[position..<end])
    }

    private func readChunk(count: Int) throws -> [UInt8] {
        guard descriptor >= 0 else {
            throw ChangesetError.io(operation: "read", path: path, reason: "the source is closed")
        }
        var chunk = [UInt8](repeating: 0, count: count)
        while true {
            let n = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress!, count) }
            if n >= 0 { return Array(chunk[0..<n]) }
            if errno != EINTR {
                throw ChangesetError.io(operation: "read", path: path, reason: lastErrorDescription())
            }
        }
    }

    /// Goes back to the first byte, to read the same open file again (not standard input or a pipe).
    public func rewind() throws {
        guard descriptor >= 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
            throw ChangesetError.io(
                operation: "rewind", path: path,
                reason: descriptor < 0 ? "the source is closed" : lastErrorDescription())
        }
        buffer = []
        position = 0
    }

    /// The file's size in bytes now, from the open file (not from its path, which may name another file by now).
    public func size() throws -> Int {
        var info = stat()
        guard descriptor >= 0, fstat(descriptor, &info) == 0 else {
            throw ChangesetError.io(
                operation: "stat", path: path, reason: descriptor < 0 ? "the source is closed" : lastErrorDescription())
        }
        return Int(info.st_size)
    }

    /// Everything left to read.
    public func readAll() throws -> [UInt8] {
        var bytes: [UInt8] = []
        while case let chunk = try read(maxCount: byteStreamChunkSize), !chunk.isEmpty { bytes += chunk }
        return bytes
    }

    /// Closes the file (standard input stays open); further reads fail.
    public func close() {
        if ownsDescriptor && descriptor >= 0 { _ = systemClose(descriptor) }
        descriptor = -1
    }

    deinit { if ownsDescriptor && descriptor >= 0 { _ = systemClose(descriptor) } }
}

/// A ``ByteSink`` writing a file or standard output through a 64 KiB buffer.
///
/// Opening a path creates the file or empties an existing one. Errors
/// (a full disk, a closed pipe) surface from ``write(_:)``, ``flush()`` or
/// ``close()``; dropping the sink without closing it flushes on a best-effort
/// basis and loses any error.
///
/// ```swift
/// let sink = try FileByteSink(path: "changes.cncd")
/// try ChangesetEncoder(sink: sink).encode(changeset)
/// try sink.close()
/// ```
public final class FileByteSink: ByteSink {
    /// The path it writes, or "standard output"; used in error messages.
    public let path: String
    private var descriptor: Int32
    private let ownsDescriptor: Bool
    private var buffer: [UInt8] = []
    /// For a sink that replaces its file atomically: the temporary file written until ``close()``.
    private var temporaryPath: String?
    /// The file ``close()`` renames the temporary file over: `path`, or the file its link names.
    private var replacedPath = ""

    /// Creates `path` (mode 0644), or truncates it if it exists.
    ///
    /// With `atomically`, the bytes go to a temporary file beside it that
    /// ``close()`` renames over `path`: a write that fails (a full disk, an
    /// error while exporting) leaves an existing file at `path` untouched.
    /// A symbolic link is followed, so its target is replaced and the link
    /// stays, and a file replaced keeps its permissions. A path that is not
    /// a regular file (a named pipe, `/dev/stdout`, a device) is written in
    /// place: renaming over it would replace it, and its reader would wait
    /// for ever.
    public init(path: String, atomically: Bool = false) throws {
        var info = stat()
        let found: Bool = path.withCString { (name: UnsafePointer<CChar>) -> Bool in stat(name, &info) == 0 }
        // A named pipe, a character or block device, a socket: not a file a rename may replace.
        let kind: UInt32 = UInt32(info.st_mode) & 0o170000
        let inPlace: Bool = found && [0o010000, 0o020000, 0o060000, 0o140000].contains(kind)
        var target = path
        if atomically && !inPlace {
            // A link's target is what gets replaced; a dangling link is written through, in place.
            var destination = path
            if found, let resolved = realpath(path, nil) {
                destination = String(cString: resolved)
                free(resolved)
            }
            if found || (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) == nil {
                target = Self.temporaryName(beside: destination)
                temporaryPath = target
                replacedPath = destination
            }
        }
        // A new temporary file, a regular file emptied, or a pipe or a device written as it is.
        let mode: Int32 = temporaryPath != nil ? O_EXCL : (inPlace ? 0 : O_TRUNC)
        let fd: Int32 = target.withCString { (name: UnsafePointer<CChar>) -> Int32 in
            open(name, O_WRONLY | O_CREAT | mode | O_CLOEXEC, 0o644)
        }
        guard fd >= 0 else {
            // The path asked for, not the temporary file beside it: that one is never the caller's to fix.
            throw ChangesetError.io(operation: "create", path: path, reason: lastErrorDescription())
        }
        if temporaryPath != nil && found {
            _ = fchmod(fd, info.st_mode & 0o7777)
            _ = fchown(fd, info.st_uid, info.st_gid)
        }
        self.path = path
        self.descriptor = fd
        self.ownsDescriptor = true
        buffer.reserveCapacity(byteStreamChunkSize)
    }

    /// A hidden name beside `path` for the file that replaces it; a name near the system's limit of 255
    /// bytes leaves no room for a suffix, so the suffix alone then.
    private static func temporaryName(beside path: String) -> String {
        let directory: String = (path as NSString).deletingLastPathComponent
        let name: String = (path as NSString).lastPathComponent
        let suffix: String = ".concord-\(getpid())-\(UInt32.random(in: .min ... .max))"
        let kept: String = name.utf8.count + suffix.utf8.count < 250 ? name : ""
        return (directory.isEmpty ? "." : directory) + "/." + kept + suffix
    }

    private init(descriptor: Int32, path: String) {
        self.path = path
        self.descriptor = descriptor
        self.ownsDescriptor = false
    }

    /// Writes the process's standard output (which `close()` flushes but leaves open).
    public static func standardOutput() -> FileByteSink {
        FileByteSink(descriptor: 1, path: "standard output")
    }

    /// Buffers `bytes`, writing the buffer out once it holds 64 KiB or more.
    public func write(_ bytes: [UInt8]) throws {
        guard descriptor >= 0 else {
            throw ChangesetError.io(operation: "write", path: path, reason: "the sink is closed")
        }
        buffer += bytes
        if buffer.count >= byteStreamChunkSize { try flush() }
    }

    /// Writes the buffer to the file; bytes the system did not take stay buffered when it throws.
    public func flush() throws {
        guard !buffer.isEmpty else { return }
        guard descriptor >= 0 else {
            throw ChangesetError.io(operation: "write", path: path, reason: "the sink is closed")
        }
        var written = 0
        while written < buffer.count {
            let n = buffer.withUnsafeBytes { systemWrite(descriptor, $0.baseAddress! + written, $0.count - written) }
            if n > 0 {
                written += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                let reason = n == 0 ? "the system accepted no bytes" : lastErrorDescription()
                buffer.removeFirst(written)
                throw ChangesetError.io(operation: "write", path: path, reason: reason)
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes and closes the file (standard output stays open); writing atomically, syncs the
    /// temporary file to disk and renames it over the target, or removes it when that fails.
    public func close() throws {
        defer {
            if ownsDescriptor && descriptor >= 0 { _ = systemClose(descriptor) }
            descriptor = -1
        }
        try flush()
        if let temporaryPath {
            guard fsync(descriptor) == 0, rename(temporaryPath, replacedPath) == 0 else {
                let reason = lastErrorDescription()
                unlink(temporaryPath)
                self.temporaryPath = nil
                throw ChangesetError.io(operation: "write", path: path, reason: reason)
            }
            self.temporaryPath = nil
        }
    }

    /// A sink dropped without ``close()`` flushes what it can, or, writing atomically, leaves the target as it was.
    deinit {
        if let temporaryPath {
            unlink(temporaryPath)
        } else {
            try? flush()
        }
        if ownsDescriptor && descriptor >= 0 { _ = systemClose(descriptor) }
    }
}

// File-scope wrappers, so the methods named `read`/`write`/`close` above do not shadow the system calls.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int { read(fd, buffer, count) }
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int { write(fd, buffer, count) }
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
private func lastErrorDescription() -> String { String(cString: strerror(errno)) }
