import Concord
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a command writes: standard output and standard error.
///
/// Commands never touch the process's streams directly, so tests can run
/// them through the dispatcher with in-memory sinks. `Output` is itself a
/// `TextOutputStream` for standard output; standard output also exposes its
/// ``ByteSink`` for binary data such as an exported changeset. Writing to
/// standard error first flushes standard output, so the two stay in order on
/// a terminal.
///
/// ```swift
/// print("3 tables enabled", to: &output)
/// print("warning: no changes", to: &output.standardError)
/// output.progress("run 3/20")                       // only on a terminal
/// try ChangesetEncoder(sink: output.standardOutput.sink).encode(changeset)
/// ```
struct Output: TextOutputStream {
    var standardOutput: TextStream
    var standardError: TextStream
    /// Set by a command's `--quiet`: no progress line, even on a terminal.
    var quiet = false
    /// The terminal's width in columns, when known; a longer progress line is cut to fit, so it never wraps.
    var progressWidth: Int?

    /// Output to the given sinks, neither of them treated as a terminal (as in tests).
    init(standardOutput: any ByteSink, standardError: any ByteSink) {
        self.standardOutput = TextStream(sink: standardOutput, isTerminal: false)
        self.standardError = TextStream(sink: standardError, isTerminal: false, flushingFirst: standardOutput)
    }

    /// The process's own standard output (buffered) and standard error.
    static func standard() -> Output {
        let out = FileByteSink.standardOutput()
        var output = Output(
            standardOutput: TextStream(sink: out, isTerminal: isTerminal(1)),
            standardError: TextStream(sink: StandardErrorSink(), isTerminal: isTerminal(2), flushingFirst: out))
        output.progressWidth = terminalColumns(2)
        return output
    }

    private init(standardOutput: TextStream, standardError: TextStream) {
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// Writes to standard output.
    mutating func write(_ string: String) {
        standardOutput.write(string)
    }

    /// Whether a progress line is drawn: standard error is a terminal and the command was not given `--quiet`.
    var showsProgress: Bool { standardError.isTerminal && !quiet }

    /// Shows `line` as the progress line on standard error, replacing the one before, when that is a terminal.
    ///
    /// Progress redraws itself in place, which only a terminal shows right;
    /// a pipe or a file gets nothing, so logs and machine output stay clean,
    /// and `--quiet` turns it off. Standard output never carries it, so
    /// `--json` output is never mixed with it.
    ///
    /// ```swift
    /// output.progress("fuzz: 300/10000 inputs")
    /// output.clearProgress()
    /// ```
    mutating func progress(_ line: String) {
        guard showsProgress else { return }
        var line = line
        if let width = progressWidth, line.count >= width { line = String(line.prefix(max(width - 1, 0))) }
        standardError.write("\u{1B}[2K\r" + line)
    }

    /// Erases the progress line, when standard error is a terminal.
    mutating func clearProgress() {
        progress("")
    }

    /// Pushes buffered standard output out; this is where a full disk or closed pipe shows up.
    func flush() throws {
        try standardOutput.sink.flush()
        try standardError.sink.flush()
    }
}

/// A `TextOutputStream` over a ``ByteSink``, so `print(_:to:)` works.
///
/// Text output cannot report failures through `print`, so write errors are
/// dropped here; the sink keeps its unwritten bytes and the dispatcher's final
/// flush reports the failure. On a terminal each write is flushed at once.
///
/// ```swift
/// print("done", to: &output.standardError)
/// ```
struct TextStream: TextOutputStream {
    /// The bytes' destination, for binary output.
    let sink: any ByteSink
    /// Whether the destination is an interactive terminal (never, in tests).
    let isTerminal: Bool
    /// A sink to flush before each write, keeping standard output ahead of standard error.
    private let flushingFirst: (any ByteSink)?

    init(sink: any ByteSink, isTerminal: Bool, flushingFirst: (any ByteSink)? = nil) {
        self.sink = sink
        self.isTerminal = isTerminal
        self.flushingFirst = flushingFirst
    }

    mutating func write(_ string: String) {
        guard !string.isEmpty else { return }
        try? flushingFirst?.flush()
        try? sink.write(Array(string.utf8))
        if isTerminal { try? sink.flush() }
    }
}

/// Standard error, unbuffered, as a ``ByteSink``.
///
/// Diagnostics and progress must appear as they happen, so nothing is held back.
///
/// ```swift
/// try StandardErrorSink().write(Array("warning\n".utf8))
/// ```
final class StandardErrorSink: ByteSink {
    func write(_ bytes: [UInt8]) throws {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { systemWrite(2, $0.baseAddress! + written, $0.count - written) }
            if n > 0 {
                written += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                let reason = String(cString: strerror(errno))
                throw ChangesetError.io(operation: "write", path: "standard error", reason: reason)
            }
        }
    }

    func flush() {}

    func close() {}
}

// At file scope so the method named `write` above does not shadow the system call.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int { write(fd, buffer, count) }

extension Output {
    /// `value` as indented JSON with sorted keys: the form every `--json` prints, stable from run to run.
    static func json(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(value)
    }

    /// Prints `value` on standard output as ``json(_:)`` encodes it, with a newline.
    ///
    /// ```swift
    /// if options.json { try output.printJSON(status) }
    /// ```
    mutating func printJSON(_ value: some Encodable) throws {
        print(String(decoding: try Self.json(value), as: UTF8.self), to: &self)
    }
}
