import Concord

#if canImport(Glibc)
    import ConcordSimulator
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Eight bytes in a shared file: the index of the input the fuzz worker is running.
///
/// The supervisor must know which input a worker was running when it
/// crashed or hung, without slowing down thousands of inputs a second. The
/// worker maps the file and stores each index into it with a plain memory
/// write (no system call); the kernel's page cache makes the write visible
/// to the supervisor's reads at once and keeps it when the worker dies.
/// `-1` means the worker has not started an input yet.
///
/// ```swift
/// let progress = try FuzzProgressFile(path: "/tmp/run/index")   // worker
/// progress.store(41)
/// FuzzProgressFile.read(path: "/tmp/run/index")   // 41, from the supervisor
/// ```
final class FuzzProgressFile {
    private let pointer: UnsafeMutableRawPointer
    private let descriptor: Int32

    /// Maps `path`, creating it (holding -1) if needed.
    init(path: String) throws {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ChangesetError.io(operation: "open", path: path, reason: Self.lastError()) }
        var info = stat()
        if fstat(fd, &info) != 0 || info.st_size < 8 {
            guard ftruncate(fd, 8) == 0 else {
                close(fd)
                throw ChangesetError.io(operation: "resize", path: path, reason: Self.lastError())
            }
        }
        guard let mapped = mmap(nil, 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
            close(fd)
            throw ChangesetError.io(operation: "map", path: path, reason: Self.lastError())
        }
        pointer = mapped
        descriptor = fd
    }

    deinit {
        munmap(pointer, 8)
        close(descriptor)
    }

    /// Records that input `index` is about to run.
    func store(_ index: Int) {
        pointer.storeBytes(of: Int64(index).littleEndian, as: Int64.self)
    }

    /// Writes -1 ("no input yet") to `path`, creating it.
    static func reset(path: String) throws {
        try FileByteSink(path: path).closing { try $0.write(littleEndian(-1)) }
    }

    /// The index last stored in `path`; -1 when none was or the file cannot be read.
    static func read(path: String) -> Int {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return -1 }
        defer { close(fd) }
        var value: Int64 = -1
        let n = withUnsafeMutableBytes(of: &value) { pread(fd, $0.baseAddress!, 8, 0) }
        return n == 8 ? Int(Int64(littleEndian: value)) : -1
    }

    private static func littleEndian(_ value: Int64) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    private static func lastError() -> String { String(cString: strerror(errno)) }
}

extension FileByteSink {
    /// Runs `body` with the sink, then closes it (reporting a failed flush).
    func closing(_ body: (FileByteSink) throws -> Void) throws {
        do {
            try body(self)
        } catch {
            try? close()
            throw error
        }
        try close()
    }
}
