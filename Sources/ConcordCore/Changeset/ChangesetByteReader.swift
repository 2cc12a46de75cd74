/// Buffered, checksumming reads of the binary format's primitives, with offsets for errors.
///
/// ``ChangesetDecoder`` reads through it so every primitive (byte, varint,
/// string) checks for the end of data, refuses malformed encodings at the
/// offset where they start, and never allocates more than the data holds.
/// Bytes are hashed as they leave the buffer, so the CRC covers exactly what
/// was consumed before ``finishChecksum()``.
///
/// ```swift
/// var reader = ChangesetByteReader(source: MemoryByteSource([0xAC, 0x02]))
/// try reader.varint("a count")   // 300
/// ```
struct ChangesetByteReader {
    private let source: any ByteSource
    private var buffer: [UInt8] = []
    private var position = 0
    /// The offset in the stream of `buffer[0]`.
    private var bufferStart = 0
    /// `buffer[..<hashedUpTo]` is already in `crc`.
    private var hashedUpTo = 0
    private var hashing = true
    private var crc = CRC32()
    private var ended = false

    init(source: any ByteSource) {
        self.source = source
    }

    /// The offset of the next byte to be read.
    var offset: Int { bufferStart + position }

    private var available: Int { buffer.count - position }

    /// Makes `count` (small) bytes available unless the stream ends first; returns whether it did.
    private mutating func fill(_ count: Int) throws -> Bool {
        while available < count {
            if ended { return false }
            if hashing { crc.update(buffer[hashedUpTo..<position]) }
            buffer.removeFirst(position)
            bufferStart += position
            position = 0
            hashedUpTo = 0
            let chunk = try source.read(maxCount: byteStreamChunkSize)
            if chunk.isEmpty { ended = true } else { buffer += chunk }
        }
        return true
    }

    private func truncated(_ field: String) -> ChangesetError {
        .truncated(offset: bufferStart + buffer.count, field: field)
    }

    /// Up to `count` (small) next bytes, without consuming them; fewer only at the end of the stream.
    mutating func peek(_ count: Int) throws -> [UInt8] {
        _ = try fill(count)
        return Array(buffer[position..<position + min(count, available)])
    }

    /// Consumes `count` bytes already returned by ``peek(_:)``.
    mutating func skip(_ count: Int) {
        position += min(count, available)
    }

    mutating func byte(_ field: @autoclosure () -> String) throws -> UInt8 {
        guard try fill(1) else { throw truncated(field()) }
        defer { position += 1 }
        return buffer[position]
    }

    /// A little-endian unsigned integer of `width` (<= 8) bytes.
    mutating func fixedWidth(_ width: Int, _ field: @autoclosure () -> String) throws -> UInt64 {
        guard try fill(width) else { throw truncated(field()) }
        var value: UInt64 = 0
        for k in 0..<width { value |= UInt64(buffer[position + k]) << UInt64(8 * k) }
        position += width
        return value
    }

    /// `count` bytes; a count beyond what a memory source holds is refused before allocating.
    mutating func bytes(_ count: Int, _ field: @autoclosure () -> String) throws -> [UInt8] {
        if let remaining = source.remainingByteCount, count > available + remaining {
            throw ChangesetError.truncated(offset: offset + available + remaining, field: field())
        }
        if count <= available {
            defer { position += count }
            return Array(buffer[position..<position + count])
        }
        var result: [UInt8] = []
        while result.count < count {
            guard try fill(1) else { throw truncated(field()) }
            let n = min(available, count - result.count)
            result += buffer[position..<position + n]
            position += n
        }
        return result
    }

    /// An unsigned LEB128 integer in its shortest form.
    mutating func varint(_ field: @autoclosure () -> String) throws -> UInt64 {
        if position < buffer.count, buffer[position] < 0x80 {
            // One byte, the common case: always minimal.
            defer { position += 1 }
            return UInt64(buffer[position])
        }
        let start = offset
        var value: UInt64 = 0
        for k in 0..<10 {
            let byte = try self.byte(field())
            if k == 9 && byte > 1 {
                throw ChangesetError.malformed(offset: start, field: field(), reason: .varintTooLong)
            }
            value |= UInt64(byte & 0x7F) << UInt64(7 * k)
            if byte & 0x80 == 0 {
                if byte == 0 && k > 0 {
                    throw ChangesetError.malformed(offset: start, field: field(), reason: .nonMinimalVarint)
                }
                return value
            }
        }
        throw ChangesetError.malformed(offset: start, field: field(), reason: .varintTooLong)
    }

    /// A varint count, refused above `limit`.
    mutating func count(_ field: @autoclosure () -> String, limit: UInt64) throws -> Int {
        let start = offset
        let value = try varint(field())
        guard value <= limit else {
            let reason: ChangesetError.Reason =
                limit == ChangesetFormat.maxLength
                ? .lengthTooLarge(declared: value, limit: limit) : .countTooLarge(declared: value, limit: limit)
            throw ChangesetError.malformed(offset: start, field: field(), reason: reason)
        }
        return Int(value)
    }

    /// A length-prefixed UTF-8 string.
    mutating func string(_ field: @autoclosure () -> String) throws -> String {
        let start = offset
        let length = try count(field(), limit: ChangesetFormat.maxLength)
        if length <= available {
            // Straight from the buffer, without copying the bytes out first.
            let text = buffer.withUnsafeBufferPointer {
                String(validUTF8: UnsafeBufferPointer(rebasing: $0[position..<position + length]))
            }
            guard let text else { throw ChangesetError.malformed(offset: start, field: field(), reason: .invalidUTF8) }
            position += length
            return text
        }
        let bytes = try self.bytes(length, field())
        guard let text = bytes.withUnsafeBufferPointer({ String(validUTF8: $0) }) else {
            throw ChangesetError.malformed(offset: start, field: field(), reason: .invalidUTF8)
        }
        return text
    }

    /// A string that names a table or column.
    mutating func identifier(_ field: @autoclosure () -> String) throws -> String {
        let start = offset
        let name = try string(field())
        if let reason = ChangesetFormat.problem(identifier: name) {
            throw ChangesetError.malformed(offset: start, field: field(), reason: reason)
        }
        return name
    }

    /// Ends hashing and returns the CRC-32 of every byte consumed so far.
    mutating func finishChecksum() -> UInt32 {
        if hashing { crc.update(buffer[hashedUpTo..<position]) }
        hashedUpTo = position
        hashing = false
        return crc.value
    }
}
