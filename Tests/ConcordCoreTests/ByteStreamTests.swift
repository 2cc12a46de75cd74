import ConcordTestTraits
import Foundation
import Testing

@testable import ConcordCore

/// A fresh empty folder, removed after `body`.
private func withFolder<T>(_ body: (String) throws -> T) throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("concord-streams-\(UUID())").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    return try body(folder)
}

private func contents(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { Array($0) } }

/// Creates (or replaces) the file at `path` holding `bytes`.
private func create(_ path: String, _ bytes: [UInt8]) {
    #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)), "cannot create \(path)")
}

private func entries(_ folder: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
}

/// The error `body` throws, if it is a ``ChangesetError``.
private func streamError(_ body: () throws -> Void) -> ChangesetError? {
    do {
        try body()
    } catch let error as ChangesetError {
        return error
    } catch {
        Issue.record("expected a ChangesetError, got \(error)")
    }
    return nil
}

/// 200 KB of a pattern that repeats every 251 bytes, so a misplaced chunk shows.
private let pattern = (0..<200_000).map { UInt8($0 % 251) }

/// Files, standard streams and memory move bytes exactly, and fail saying which operation on which path.
@Suite("Byte streams", .tags(.core))
struct ByteStreamTests {
    @Test func aFileWrittenInPiecesReadsBackInAnyChunks() throws {
        try withFolder { folder in
            let path = folder + "/out.cncd"
            let sink = try FileByteSink(path: path)
            var offset = 0
            for size in [1, 70_000, 0, 65_535, 3] + [Int](repeating: 20_000, count: 4) {
                let end = min(offset + size, pattern.count)
                try sink.write(Array(pattern[offset..<end]))
                offset = end
            }
            try sink.write(Array(pattern[offset...]))
            try sink.close()
            try sink.close()  // a second close has nothing left to do
            #expect(contents(path) == pattern)

            let source = try FileByteSource(path: path)
            #expect(try source.size() == pattern.count)
            #expect(source.remainingByteCount == nil, "a file's length can change under it")
            #expect(try source.read(maxCount: 0) == [])
            #expect(try source.read(maxCount: 3) == [0, 1, 2])
            #expect(try source.read(maxCount: 100_000) == Array(pattern[3..<65_536]), "no more than one buffer")
            #expect(try source.readAll() == Array(pattern[65_536...]))
            #expect(try source.read(maxCount: 10) == [], "at the end")
            try source.rewind()
            #expect(try source.readAll() == pattern)
            source.close()
        }
    }

    @Test func aSinkEmptiesTheFileItOpensAndFlushesWhenDropped() throws {
        try withFolder { folder in
            let path = folder + "/out.cncd"
            create(path, pattern)
            do {
                let sink = try FileByteSink(path: path)
                #expect(contents(path) == [], "opening empties it")
                try sink.write([1, 2, 3])
            }
            #expect(contents(path) == [1, 2, 3], "dropped without close: what it buffered is written")
        }
    }

    @Test func closedStreamsRefuseWithTheirPath() throws {
        try withFolder { folder in
            let path = folder + "/data"
            create(path, [1, 2, 3])
            let source = try FileByteSource(path: path)
            source.close()
            source.close()
            #expect(
                streamError { _ = try source.read(maxCount: 1) }
                    == .io(operation: "read", path: path, reason: "the source is closed"))
            #expect(
                streamError { try source.rewind() }
                    == .io(operation: "rewind", path: path, reason: "the source is closed"))
            #expect(
                streamError { _ = try source.size() }
                    == .io(operation: "stat", path: path, reason: "the source is closed"))

            let sink = try FileByteSink(path: path)
            try sink.close()
            #expect(
                streamError { try sink.write([1]) } == .io(operation: "write", path: path, reason: "the sink is closed")
            )
            try sink.flush()  // nothing buffered, nothing to refuse

            let memory = MemoryByteSink()
            try memory.write([7])
            memory.flush()
            memory.close()
            let refusal = streamError { try memory.write([8]) }
            #expect(refusal == .io(operation: "write", path: "memory", reason: "the sink is closed"))
            #expect(
                refusal?.description
                    == "Cannot write 'memory': the sink is closed. Check the path, its permissions and the free space, then retry."
            )
            #expect(memory.bytes == [7], "what was written stays readable")
        }
    }

    @Test func systemErrorsAreReportedWithTheirReason() throws {
        try withFolder { folder in
            #expect(
                streamError { _ = try FileByteSource(path: folder + "/missing") }
                    == .io(operation: "open", path: folder + "/missing", reason: "No such file or directory"))
            #expect(
                streamError { _ = try FileByteSink(path: folder + "/no/such/folder") }
                    == .io(operation: "create", path: folder + "/no/such/folder", reason: "No such file or directory"))
            // An atomic sink names the path it was given, not the temporary file it could not create beside it.
            #expect(
                streamError { _ = try FileByteSink(path: folder + "/no/out.cncd", atomically: true) }
                    == .io(operation: "create", path: folder + "/no/out.cncd", reason: "No such file or directory"))
            // A folder opens for reading, but reading it fails.
            let source = try FileByteSource(path: folder)
            #expect(
                streamError { _ = try source.read(maxCount: 1) }
                    == .io(operation: "read", path: folder, reason: "Is a directory"))
        }
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full")))
    func aFullDiskFailsTheFlushAndKeepsTheBytesBuffered() throws {
        let sink = try FileByteSink(path: "/dev/full")
        try sink.write([1, 2, 3])  // buffered: nothing reaches the device yet
        let full = ChangesetError.io(operation: "write", path: "/dev/full", reason: "No space left on device")
        #expect(streamError { try sink.flush() } == full)
        #expect(streamError { try sink.flush() } == full, "the bytes are still there to write")
        #expect(streamError { try sink.close() } == full)
        #expect(
            streamError { try sink.write([4]) }
                == .io(operation: "write", path: "/dev/full", reason: "the sink is closed"))
        // Buffers fill up too: a 64 KiB write goes straight to the device.
        let big = try FileByteSink(path: "/dev/full")
        #expect(streamError { try big.write(Array(pattern.prefix(65_536))) } == full)
    }

    @Test func anAtomicSinkReplacesTheFileOnlyWhenClosed() throws {
        try withFolder { folder in
            let path = folder + "/out.cncd"
            create(path, [9, 9])
            let sink = try FileByteSink(path: path, atomically: true)
            try sink.write(pattern)
            try sink.flush()
            #expect(contents(path) == [9, 9], "the old file is untouched until close")
            #expect(try entries(folder).count == 2, "the new bytes go to a file beside it")
            try sink.close()
            #expect(contents(path) == pattern)
            #expect(try entries(folder) == ["out.cncd"], "no temporary file is left")

            // Dropped without close, as when an export fails: the old file stays, the temporary one goes.
            do {
                let abandoned = try FileByteSink(path: path, atomically: true)
                try abandoned.write([1, 2, 3])
                try abandoned.flush()
            }
            #expect(contents(path) == pattern)
            #expect(try entries(folder) == ["out.cncd"])
        }
    }

    /// `concord export -o` replaced a link with a file of its own (its target never written), a named pipe
    /// with a regular file (its reader waited for ever), and a file's permissions with 0644; a name near
    /// the 255-byte limit failed, as the temporary name beside it was longer.
    @Test func anAtomicSinkFollowsLinksKeepsPermissionsAndWritesPipesInPlace() throws {
        try withFolder { folder in
            let target = folder + "/real.cncd"
            create(target, [9])
            #expect(chmod(target, 0o600) == 0)
            try FileManager.default.createSymbolicLink(atPath: folder + "/link.cncd", withDestinationPath: target)
            let sink = try FileByteSink(path: folder + "/link.cncd", atomically: true)
            try sink.write([1, 2])
            try sink.close()
            #expect(contents(target) == [1, 2])
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder + "/link.cncd") == target)
            let permissions = try FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? Int
            #expect(permissions == 0o600)

            let long = folder + "/" + String(repeating: "n", count: 240)
            let named = try FileByteSink(path: long, atomically: true)
            try named.write([3])
            try named.close()
            #expect(contents(long) == [3])
            #expect(try entries(folder).count == 3, "no temporary file is left")

            let pipe = folder + "/pipe"
            #expect(mkfifo(pipe, 0o644) == 0)
            let read = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var received: [UInt8]?
            Thread.detachNewThread {
                received = FileHandle(forReadingAtPath: pipe).map { Array($0.readDataToEndOfFile()) }
                read.signal()
            }
            let piped = try FileByteSink(path: pipe, atomically: true)
            try piped.write([4, 5])
            try piped.close()
            read.wait()
            #expect(received == [4, 5])
            #expect(try FileManager.default.attributesOfItem(atPath: pipe)[.type] as? FileAttributeType != .typeRegular)
        }
    }

    @Test func anAtomicReplaceThatFailsLeavesNothingBehind() throws {
        try withFolder { folder in
            // A folder cannot be replaced by a file: the rename at close fails.
            let path = folder + "/taken"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            let sink = try FileByteSink(path: path, atomically: true)
            try sink.write([1, 2, 3])
            #expect(streamError { try sink.close() } == .io(operation: "write", path: path, reason: "Is a directory"))
            #expect(try entries(folder) == ["taken"])
            #expect(try entries(path) == [])
            #expect(
                streamError { try sink.write([4]) } == .io(operation: "write", path: path, reason: "the sink is closed")
            )
        }
    }

    @Test func standardStreamsStayOpenWhenClosed() throws {
        let input = FileByteSource.standardInput()
        #expect(input.path == "standard input")
        input.close()
        #expect(fcntl(0, F_GETFD) != -1, "standard input is still open")
        #expect(
            streamError { _ = try input.read(maxCount: 1) }
                == .io(operation: "read", path: "standard input", reason: "the source is closed"))

        let output = FileByteSink.standardOutput()
        #expect(output.path == "standard output")
        try output.close()
        #expect(fcntl(1, F_GETFD) != -1, "standard output is still open")
        #expect(
            streamError { try output.write([0x0A]) }
                == .io(operation: "write", path: "standard output", reason: "the sink is closed"))
    }

    @Test func aPipeReadsThroughButCannotRewind() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let path = "/dev/fd/\(ends[0])"
        let source = try FileByteSource(path: path)
        defer { source.close() }
        let sent: [UInt8] = [0, 1, 2, 0xFF]
        #expect(sent.withUnsafeBytes { write(ends[1], $0.baseAddress!, $0.count) } == sent.count)
        close(ends[1])
        #expect(try source.readAll() == sent)
        #expect(streamError { try source.rewind() } == .io(operation: "rewind", path: path, reason: "Illegal seek"))
    }

    @Test func memoryStreamsCountWhatIsLeft() {
        let source = MemoryByteSource([1, 2, 3, 4, 5])
        #expect(source.remainingByteCount == 5)
        #expect(source.read(maxCount: -1) == [] && source.read(maxCount: 0) == [])
        #expect(source.read(maxCount: 2) == [1, 2] && source.remainingByteCount == 3)
        #expect(source.read(maxCount: 10) == [3, 4, 5] && source.remainingByteCount == 0)
        #expect(source.read(maxCount: 1) == [])
    }
}
