import Concord

#if canImport(Glibc)
    import ConcordTesting
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whole-file reads and writes with plain system calls, for the fuzzer's inner loop.
///
/// The fuzzer reads the database file before and after every input to prove
/// that a refusal changed no byte, and writes every input to a file for the
/// file routes, thousands of times a second; `Data(contentsOf:)` and atomic
/// writes through a temporary file cost several times as much.
///
/// ```swift
/// try FuzzFiles.write(bytes, to: "/tmp/fuzz/input")
/// let again = try FuzzFiles.read("/tmp/fuzz/input")
/// ```
enum FuzzFiles {
    /// Why a file could not be read or written.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The whole file.
    static func read(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open", path) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure("stat", path) }
        let size = Int(info.st_size)
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, size - done, off_t(done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw failure("read", path) }
            done += n
        }
        return bytes
    }

    /// Creates or replaces the file's contents with `bytes` (in place, not atomically).
    static func write(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure("create", path) }
        defer { close(fd) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { systemWrite(fd, $0.baseAddress! + done, bytes.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw failure("write", path) }
            done += n
        }
    }

    /// The size of the file, or `nil` if there is none.
    static func size(_ path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }

    /// Deletes the file if it exists.
    static func remove(_ path: String) {
        unlink(path)
    }

    private static func failure(_ operation: String, _ path: String) -> Failure {
        Failure(description: "cannot \(operation) '\(path)': \(String(cString: strerror(errno)))")
    }
}

// At file scope so the method named `write` above does not shadow the system call.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int { write(fd, buffer, count) }
