/// The bytes of one file on a ``SimulatedDisk``, kept in sector-sized chunks.
///
/// A disk keeps two versions of every file (what is durable and what
/// processes see) and copies one onto the other at every sync; in chunks,
/// that copy shares every chunk and a later write copies only the chunks it
/// touches, so a sync costs a pointer per 4 KiB instead of the whole file.
/// Bytes past ``count`` in the last chunk are always zero, so growing a
/// file shows zeros, as POSIX promises, and two equal contents compare equal.
///
/// ```swift
/// var content = SimulatedFileContent([1, 2, 3])
/// content.write([9], at: 5)          // [1, 2, 3, 0, 0, 9]
/// content.truncate(to: 2)            // [1, 2]
/// ```
struct SimulatedFileContent: Equatable, Sendable {
    /// The chunk size: one sector, so a torn write's sectors are whole chunks.
    static let chunkSize = SimulatedDisk.sectorSize

    /// The file's size in bytes.
    private(set) var count = 0
    private var chunks: [[UInt8]] = []

    /// An empty file.
    init() {}

    /// A file holding `bytes`.
    init(_ bytes: [UInt8]) { write(bytes, at: 0) }

    /// Every byte, in order.
    var bytes: [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { _ = read(into: $0.baseAddress!, length: count, at: 0) }
        return bytes
    }

    /// Copies up to `length` bytes from `offset` to `destination` and returns how many there were.
    func read(into destination: UnsafeMutableRawPointer, length: Int, at offset: Int) -> Int {
        let available = max(0, min(length, count - offset))
        var done = 0
        while done < available {
            let position = offset + done
            let within = position % Self.chunkSize
            let length = min(Self.chunkSize - within, available - done)
            chunks[position / Self.chunkSize].withUnsafeBytes { chunk in
                (destination + done).copyMemory(from: chunk.baseAddress! + within, byteCount: length)
            }
            done += length
        }
        return available
    }

    /// Writes `bytes` at `offset`, growing the file (with zeros before `offset`) when it ends past the end.
    mutating func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if offset + bytes.count > count { truncate(to: offset + bytes.count) }
        var done = 0
        while done < bytes.count {
            let position = offset + done
            let within = position % Self.chunkSize
            let length = min(Self.chunkSize - within, bytes.count - done)
            chunks[position / Self.chunkSize].withUnsafeMutableBytes { chunk in
                (chunk.baseAddress! + within).copyMemory(from: source + done, byteCount: length)
            }
            done += length
        }
    }

    /// Writes `bytes` at `offset`, growing the file when it ends past the end.
    mutating func write(_ bytes: [UInt8], at offset: Int) {
        bytes.withUnsafeBytes { write($0, at: offset) }
    }

    /// Cuts the file to `size` bytes, or grows it with zeros.
    mutating func truncate(to size: Int) {
        if size < count {
            let within = size % Self.chunkSize
            chunks.removeLast(chunks.count - (size + Self.chunkSize - 1) / Self.chunkSize)
            if within != 0 {
                chunks[chunks.count - 1].replaceSubrange(
                    within..<Self.chunkSize, with: repeatElement(0, count: Self.chunkSize - within))
            }
        } else {
            while chunks.count * Self.chunkSize < size {
                chunks.append([UInt8](repeating: 0, count: Self.chunkSize))
            }
        }
        count = size
    }
}
